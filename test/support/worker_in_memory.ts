import type { DueDelivery, EventMessage } from "../../core/messages/mod.ts";
import { type AttemptRequest, DEFAULT_SCHEDULE, type PostResult } from "../../core/webhooks/mod.ts";
import { NO_METRICS } from "../../workers/runtime.ts";
import type { BookkeepingStore } from "../../workers/webhook_bookkeeping.ts";
import { type Subscribe, startWebhookWorker, type WorkMessage } from "../../workers/webhook_worker.ts";

/**
 * A delivery worker apart from NATS, PostgreSQL and the network: the store's calls a test does not
 * give find and keep nothing, every organization has a webhook for all events and a secret, no
 * dispatch ever comes, and `handle` hands the worker one event message as the bus would.
 */
export const inMemoryWorker = (options: {
  deliveries: Partial<BookkeepingStore>;
  post: (request: AttemptRequest) => Promise<PostResult>;
  sealed?: (message: EventMessage) => boolean;
  at: Date;
}) => {
  let handler: ((m: WorkMessage<EventMessage>) => void) | undefined;
  const events: Subscribe<EventMessage> = (_take, h) => {
    handler = h;
    return { stop: async () => {} };
  };
  const dispatches: Subscribe<DueDelivery> = () => ({ stop: async () => {} });
  const worker = startWebhookWorker(
    {
      deliveries: {
        events: async () => new Map(),
        existing: async () => new Set(),
        recordFirst: async () => {},
        claim: async () => new Map(),
        defer: async () => {},
        record: async () => {},
        abandon: async () => {},
        releasePutOff: async () => 0,
        ...options.deliveries,
      },
      targets: {
        target: async () => ({
          webhookUrl: "https://hooks.example/laurel",
          eventTypes: "all",
          hasDataServicesApplication: true,
          secretSealed: "sealed",
          previousSecretSealed: null,
          previousSecretExpiresAt: null,
        }),
      },
      secrets: { open: () => `whsec_${"A".repeat(44)}` },
      crypto: { sign: () => "signature" },
      post: options.post,
      events,
      ...(options.sealed ? { sealed: options.sealed } : {}),
      dispatches,
      clock: () => options.at,
      random: () => 0.5,
      newId: () => "attempt-1",
      schedule: DEFAULT_SCHEDULE,
      metrics: NO_METRICS,
      log: { info: () => {}, warn: () => {}, error: () => {} },
    },
    { concurrency: 4, perDestination: 4, leaseMs: 30_000, targetCacheMs: 1_000 },
  );
  return {
    worker,
    handle: (m: WorkMessage<EventMessage>): void => {
      if (!handler) throw new Error("the worker did not subscribe to events");
      handler(m);
    },
  };
};
