import t from "tap";
import type { DueDelivery, EventMessage } from "../../core/messages/mod.ts";
import {
  type AttemptRequest,
  DEFAULT_SCHEDULE,
  type DeliveryEvent,
  type PostResult,
  type RecordedFirstAttempt,
} from "../../core/webhooks/mod.ts";
import { NO_METRICS } from "../../workers/runtime.ts";
import { type Subscribe, startWebhookWorker, type WorkMessage } from "../../workers/webhook_worker.ts";

/**
 * The bus may hand a message out again while a worker still holds it (a stale NAK from a worker
 * that stopped, or a redelivery): a copy that reaches the process already working on its event
 * must not be posted a second time. The worker against real NATS is in test/e2e/graceful_stop.
 */

const at = new Date("2026-03-01T10:00:00.000Z");
const EVENT: DeliveryEvent = {
  event_id: "0190f1a2-0000-7000-8000-000000000001",
  organization_id: "org-1",
  event_type: "badge.created",
  occurred_at: at,
};
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** One message as the worker sees it, and what the worker did with it. */
const message = (deliveryCount: number) => {
  const settled: string[] = [];
  const m: WorkMessage<EventMessage> = {
    body: {
      id: EVENT.event_id,
      organization_id: EVENT.organization_id,
      event_type: EVENT.event_type,
      occurred_at: at.toISOString(),
    },
    deliveryCount,
    ack: () => settled.push("ack"),
    nak: (delayMs) => settled.push(`nak ${delayMs ?? 0}`),
    term: () => settled.push("term"),
  };
  return { m, settled };
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

t.test("a second copy of a message the process is still working on is not posted again", async (t) => {
  let handle: ((m: WorkMessage<EventMessage>) => void) | undefined;
  const events: Subscribe<EventMessage> = (_take, h) => {
    handle = h;
    return { stop: async () => {} };
  };
  const dispatches: Subscribe<DueDelivery> = () => ({ stop: async () => {} });
  const posted: AttemptRequest[] = [];
  let answer: (r: PostResult) => void = () => {};
  const recorded: RecordedFirstAttempt[] = [];
  const worker = startWebhookWorker(
    {
      deliveries: {
        events: async (refs) => new Map(refs.map((r) => [r.id, EVENT])),
        // Nothing is recorded until the first copy's attempt is.
        existing: async (refs) =>
          new Set(refs.filter((r) => recorded.some((x) => x.event.event_id === r.id)).map((r) => r.id)),
        recordFirst: async (attempts) => {
          recorded.push(...attempts);
        },
        claim: async () => new Map(),
        defer: async () => {},
        record: async () => {},
        abandon: async () => {},
        releasePutOff: async () => 0,
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
      post: (request) => {
        posted.push(request);
        return new Promise<PostResult>((resolve) => {
          answer = resolve;
        });
      },
      events,
      dispatches,
      clock: () => at,
      random: () => 0.5,
      newId: () => "attempt-1",
      schedule: DEFAULT_SCHEDULE,
      metrics: NO_METRICS,
      log: quiet,
    },
    { concurrency: 4, perDestination: 4, leaseMs: 30_000, targetCacheMs: 1_000 },
  );
  t.teardown(() => worker.stop());
  if (!handle) throw new Error("the worker did not subscribe to events");

  // The first copy (handed back by a worker that stopped) is being posted...
  const first = message(2);
  handle(first.m);
  await settle();
  t.equal(posted.length, 1, "the first copy is posted");
  // ...when the bus hands the same message out again.
  const second = message(3);
  handle(second.m);
  await settle();
  t.equal(posted.length, 1, "the copy is not posted while the first is under way");
  t.same(second.settled, ["nak 1000"], "the copy goes back to the bus, to come back after the first settled");

  answer({ status: 200, durationMs: 5 });
  await settle();
  t.same(first.settled, ["ack"], "the first copy is acknowledged once recorded");
  t.equal(recorded.length, 1, "one first delivery recorded");

  // The copy, back once the first settled, finds the delivery made.
  const back = message(4);
  handle(back.m);
  await settle();
  t.equal(posted.length, 1, "the copy that came back is not posted either");
  t.same(back.settled, ["ack"], "and is acknowledged");
});
