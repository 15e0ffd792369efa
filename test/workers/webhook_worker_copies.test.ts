import t from "tap";
import type { EventMessage } from "../../core/messages/mod.ts";
import type { AttemptRequest, DeliveryEvent, PostResult, RecordedFirstAttempt } from "../../core/webhooks/mod.ts";
import type { WorkMessage } from "../../workers/webhook_worker.ts";
import { inMemoryWorker } from "../support/worker_in_memory.ts";

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
  const posted: AttemptRequest[] = [];
  let answer: (r: PostResult) => void = () => {};
  const recorded: RecordedFirstAttempt[] = [];
  const { worker, handle } = inMemoryWorker({
    at,
    deliveries: {
      events: async (refs) => new Map(refs.map((r) => [r.id, EVENT])),
      // Nothing is recorded until the first copy's attempt is.
      existing: async (refs) =>
        new Set(refs.filter((r) => recorded.some((x) => x.event.event_id === r.id)).map((r) => r.id)),
      recordFirst: async (attempts) => {
        recorded.push(...attempts);
      },
    },
    post: (request) => {
      posted.push(request);
      return new Promise<PostResult>((resolve) => {
        answer = resolve;
      });
    },
  });
  t.teardown(() => worker.stop());

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
