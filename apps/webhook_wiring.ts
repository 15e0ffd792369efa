import { type KeyObject, randomUUID } from "node:crypto";
import type { Static, TSchema } from "typebox";
import {
  consumeWorkQueue,
  DEFAULT_BUS_OPTIONS,
  DISPATCH_QUEUE,
  DISPATCH_STREAM,
  EVENTS_QUEUE,
  EVENTS_STREAM,
  ensureWebhookStreams,
  eventMessageSeal,
  jetstreamDispatchPublisher,
  jetstreamEventPublisher,
  type NatsConnection,
  subscribeSettingsChanges,
  WEBHOOK_CONSUMER,
  type WebhookBusOptions,
} from "../adapters/bus/mod.ts";
import { nodeWebhookCrypto } from "../adapters/crypto/mod.ts";
import {
  type Database,
  isRowRefusal,
  listenForEvents,
  postgresDeliveryAdminStore,
  postgresDeliveryFigures,
  postgresDeliveryStore,
  postgresDeliveryTargets,
  postgresEventFigures,
  postgresEventStore,
  postgresOutbox,
  postgresWebhookSettingsStore,
} from "../adapters/db/mod.ts";
import { type MetricsRegistry, metricsRegistry } from "../adapters/metrics/mod.ts";
import type { WebhookAdminDeps } from "../adapters/trpc/mod.ts";
import { undiciWebhookPoster } from "../adapters/webhook_http/mod.ts";
import type { SecretBox } from "../core/credentials/mod.ts";
import type { EventStore } from "../core/events/mod.ts";
import { ATTEMPT_OUTCOMES, DEFAULT_SCHEDULE, type RetrySchedule } from "../core/webhooks/mod.ts";
import {
  DEFAULT_RELAY_OPTIONS,
  type Log,
  type OutboxRelayOptions,
  type PipelineMetrics,
  type Subscribe,
  startOutboxRelay,
  startRetryScheduler,
  startWebhookWorker,
} from "../workers/mod.ts";
import type { WebhookConfig } from "./webhook_config.ts";

/** What the API process needs of the webhook pipeline: the events API's store and the internal tools' parts. */
export const webhookApiParts = (
  db: Database,
  webhooks: WebhookConfig,
): { events: EventStore; admin: WebhookAdminDeps } => {
  const events = postgresEventStore(db);
  return {
    events,
    admin: {
      settings: postgresWebhookSettingsStore(db),
      targets: postgresDeliveryTargets(db),
      deliveries: postgresDeliveryAdminStore(db),
      events,
      crypto: nodeWebhookCrypto(),
      allowedNetworks: webhooks.allowedNetworks,
    },
  };
};

const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400];

/** Figures only the database knows, cheap to read at every scrape. */
export const registerDatabaseFigures = (registry: MetricsRegistry, db: Database): void => {
  const events = postgresEventFigures(db);
  const deliveries = postgresDeliveryFigures(db);
  registry.gauge(
    "laurel_events_recorded_total",
    "Events recorded, all organizations (from the per-organization counters)",
    async () => [{ value: await events.recordedTotal() }],
    "counter",
  );
  registry.gauge("laurel_events_unpublished", "Recorded events not yet on JetStream", async () => [
    { value: await events.unpublished() },
  ]);
  registry.gauge("laurel_webhook_deliveries_unfinished", "Deliveries waiting for an attempt or in one", async () => {
    const u = await deliveries.unfinished();
    return [
      { labels: { status: "pending" }, value: u.pending },
      { labels: { status: "delivering" }, value: u.delivering },
    ];
  });
};

/** The pipeline's counters in this process, written as Prometheus series. */
export const pipelineMetrics = (registry: MetricsRegistry): PipelineMetrics => {
  const published = registry.counter("laurel_events_published_total", "Events this process put on JetStream");
  const dispatched = registry.counter("laurel_webhook_dispatched_total", "Due deliveries this process dispatched");
  const attempts = registry.counter("laurel_webhook_attempts_total", "Delivery attempts by outcome");
  const deliveries = registry.counter("laurel_webhook_deliveries_total", "Deliveries ended, by result");
  const notPosted = registry.counter("laurel_webhook_not_posted_total", "Events not posted, by unmet condition");
  const deferred = registry.counter("laurel_webhook_deferred_total", "Deliveries put off: destination at its cap");
  const lag = registry.histogram(
    "laurel_webhook_delivery_lag_seconds",
    "From the event to its successful delivery",
    LAG_BUCKETS,
  );
  // One series per outcome, bound once: these count every attempt.
  const attemptsBy = new Map(ATTEMPT_OUTCOMES.map((outcome) => [outcome, attempts.series({ outcome })]));
  const delivered = deliveries.series({ result: "delivered" });
  const failed = deliveries.series({ result: "failed" });
  return {
    eventsPublished: (n) => published.inc({}, n),
    dispatched: (n) => dispatched.inc({}, n),
    attempt: (outcome) => {
      const series = attemptsBy.get(outcome);
      if (series) series.inc();
      else attempts.inc({ outcome });
    },
    delivered: (seconds) => {
      delivered.inc();
      lag.observe(seconds);
    },
    failed: () => failed.inc(),
    notPosted: (reason) => notPosted.inc({ reason }),
    deferred: () => deferred.inc(),
  };
};

/** Everything a test or benchmark may replace; production uses the defaults. */
export interface PipelineOverrides {
  clock?: () => Date;
  random?: () => number;
  schedule?: RetrySchedule;
  relay?: Partial<OutboxRelayOptions>;
  schedulerIntervalMs?: number;
  targetCacheMs?: number;
  leaseMs?: number;
  bus?: Partial<WebhookBusOptions>;
  /** Which parts run in this process (default: all three). */
  parts?: { relay?: boolean; scheduler?: boolean; worker?: boolean };
}

export interface WebhookPipeline {
  /** Dispatch due deliveries now (after a redelivery, or a fake clock moved). */
  wakeScheduler(): void;
  wakeRelay(): void;
  stop(): Promise<void>;
}

/**
 * The relay, the retry scheduler and a delivery worker, wired with plain arguments. Every process
 * may run all three: they share work through PostgreSQL row locks and the durable consumers.
 */
export const startWebhookPipeline = async (
  db: Database,
  nc: NatsConnection,
  webhooks: WebhookConfig,
  deps: {
    secrets: Pick<SecretBox, "open">;
    /** The servers' bus key (`ServerKeys.busKey`): the relay seals its messages with it, the worker checks them. */
    busKey: KeyObject;
    log: Log;
    metrics: PipelineMetrics;
  },
  overrides: PipelineOverrides = {},
): Promise<WebhookPipeline> => {
  const bus: WebhookBusOptions = {
    ...DEFAULT_BUS_OPTIONS,
    ackWaitMs: webhooks.ackWaitMs,
    replicas: webhooks.streamReplicas,
    ...overrides.bus,
  };
  await ensureWebhookStreams(nc, bus);
  deps.log.info(
    { streams: [EVENTS_STREAM, DISPATCH_STREAM], consumer: WEBHOOK_CONSUMER, replicas: bus.replicas },
    `JetStream streams and consumers ready with ${bus.replicas} replica(s)`,
  );
  const clock = overrides.clock ?? (() => new Date());
  const parts = { relay: true, scheduler: true, worker: true, ...overrides.parts };
  const deliveries = postgresDeliveryStore(db);
  const seal = eventMessageSeal(deps.busKey);

  const relay = parts.relay
    ? await startOutboxRelay(
        {
          outbox: postgresOutbox(db),
          publisher: jetstreamEventPublisher(nc, seal),
          metrics: deps.metrics,
          log: deps.log,
          listen: (onNotify) =>
            listenForEvents(db, onNotify, (err) => deps.log.warn({ err }, "event notifications lost")),
        },
        { ...DEFAULT_RELAY_OPTIONS, ...overrides.relay },
      )
    : null;

  const scheduler = parts.scheduler
    ? startRetryScheduler(
        { deliveries, publisher: jetstreamDispatchPublisher(nc), clock, metrics: deps.metrics, log: deps.log },
        {
          intervalMs: overrides.schedulerIntervalMs ?? webhooks.schedulerIntervalMs,
          // While nothing is due the wait grows to 8 intervals: a retry comes a few seconds late
          // after a quiet spell (waits are 5 s and up), and an idle process asks rarely.
          idleMaxMs: 8 * (overrides.schedulerIntervalMs ?? webhooks.schedulerIntervalMs),
          batch: 1_000,
          redispatchAfterMs: 2 * bus.ackWaitMs,
        },
      )
    : null;

  let poster: ReturnType<typeof undiciWebhookPoster> | null = null;
  let worker: ReturnType<typeof startWebhookWorker> | null = null;
  if (parts.worker) {
    poster = undiciWebhookPoster({
      allowedNetworks: webhooks.allowedNetworks,
      caFile: webhooks.caFile,
      timeoutMs: webhooks.timeoutMs,
      connectionsPerOrigin: webhooks.perDestination,
    });
    const subscribe =
      <S extends TSchema>(queue: { stream: string; schema: S }): Subscribe<Static<S>> =>
      (take, handle) =>
        consumeWorkQueue(nc, queue, { batch: Math.min(webhooks.concurrency, 1_000), take, log: deps.log }, handle);
    const post = poster.post;
    worker = startWebhookWorker(
      {
        deliveries,
        targets: postgresDeliveryTargets(db),
        secrets: deps.secrets,
        crypto: nodeWebhookCrypto(),
        post,
        events: subscribe(EVENTS_QUEUE),
        sealed: seal.sealed,
        dispatches: subscribe(DISPATCH_QUEUE),
        clock,
        random: overrides.random ?? Math.random,
        newId: randomUUID,
        schedule: overrides.schedule ?? DEFAULT_SCHEDULE,
        metrics: deps.metrics,
        log: deps.log,
        isRowRefusal,
        onReleased: () => scheduler?.wake(),
      },
      {
        concurrency: webhooks.concurrency,
        perDestination: webhooks.perDestination,
        // Outlives the HTTP timeout, and ends before JetStream redelivers the message.
        leaseMs: overrides.leaseMs ?? Math.round(webhooks.timeoutMs + (bus.ackWaitMs - webhooks.timeoutMs) / 2),
        targetCacheMs: overrides.targetCacheMs ?? 1_000,
      },
    );
  }

  // Settings changed through the internal tools (any API process): drop them from the cache.
  const stopSettingsChanges = worker ? subscribeSettingsChanges(nc, worker.forget, deps.log) : undefined;

  return {
    wakeScheduler: () => scheduler?.wake(),
    wakeRelay: () => relay?.wake(),
    stop: async () => {
      stopSettingsChanges?.();
      await relay?.stop();
      await scheduler?.stop();
      await worker?.stop();
      await poster?.close();
    },
  };
};

export { metricsRegistry };
