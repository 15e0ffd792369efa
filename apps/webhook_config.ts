import { existsSync } from "node:fs";
import { type Cidr, parseAllowedNetworks } from "../core/webhooks/mod.ts";
import type { Env } from "./env_schema.ts";

/** Webhook delivery settings from the environment (README, "Configuration"). */
export interface WebhookConfig {
  /** `WEBHOOK_ALLOWED_NETWORKS`: CIDRs that may be private/loopback/link-local destinations. */
  allowedNetworks: Cidr[];
  /** `WEBHOOK_CA_FILE`: PEM of private CAs trusted beside the system roots. */
  caFile: string | undefined;
  /** `WEBHOOK_TIMEOUT_MS`: one attempt, connect to the end of the answer (default 15 s). */
  timeoutMs: number;
  /** `WEBHOOK_ACK_WAIT_MS`: JetStream redelivery of an unacknowledged message (default 60 s). */
  ackWaitMs: number;
  /**
   * `WEBHOOK_CONCURRENCY`: attempts a worker process makes at once, per queue (first deliveries,
   * and the scheduler's retries), default 256; up to 4x as many messages may wait for their batched
   * bookkeeping after their POST.
   */
  concurrency: number;
  /** `WEBHOOK_MAX_PER_DESTINATION`: requests in flight to one destination per process (default 8). */
  perDestination: number;
  /** `WEBHOOK_SCHEDULER_INTERVAL_MS`: how often due retries are looked for (default 1 s). */
  schedulerIntervalMs: number;
  /** `WEBHOOK_WORKERS=0` keeps `npm start` from running the relay and workers in its process. */
  inProcessWorkers: boolean;
  /** `METRICS_PORT`: where `apps/worker` serves /metrics (unset: not served). */
  metricsPort: number | undefined;
  /** `NATS_STREAM_REPLICAS`: copies of each stream and consumer (1; 3 on a three-node cluster). */
  streamReplicas: number;
}

/** Webhook delivery settings, from the parsed environment (`apps/env_schema.ts`). */
export const readWebhookConfig = (env: Env): WebhookConfig => {
  const { networks, errors } = parseAllowedNetworks(env.WEBHOOK_ALLOWED_NETWORKS);
  if (errors.length > 0) throw new Error(errors.map((e) => `${e.field}: ${e.message}`).join("; "));
  const caFile = env.WEBHOOK_CA_FILE;
  if (caFile && !existsSync(caFile)) throw new Error(`WEBHOOK_CA_FILE ${caFile} does not exist`);
  const timeoutMs = env.WEBHOOK_TIMEOUT_MS;
  const ackWaitMs = env.WEBHOOK_ACK_WAIT_MS ?? Math.max(60_000, timeoutMs * 2 + 10_000);
  // A message must not come back while its attempt may still be running.
  if (ackWaitMs <= timeoutMs + 1_000) {
    throw new Error(
      `WEBHOOK_ACK_WAIT_MS (${ackWaitMs}) must exceed WEBHOOK_TIMEOUT_MS (${timeoutMs}) by more than a second`,
    );
  }
  return {
    allowedNetworks: networks,
    caFile,
    timeoutMs,
    ackWaitMs,
    concurrency: env.WEBHOOK_CONCURRENCY,
    perDestination: env.WEBHOOK_MAX_PER_DESTINATION,
    schedulerIntervalMs: env.WEBHOOK_SCHEDULER_INTERVAL_MS,
    inProcessWorkers: env.WEBHOOK_WORKERS !== "0",
    metricsPort: env.METRICS_PORT,
    streamReplicas: env.NATS_STREAM_REPLICAS,
  };
};
