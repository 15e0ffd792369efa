import { createSecretKey, randomBytes } from "node:crypto";
import t from "tap";
import { eventMessageSeal } from "../../adapters/bus/mod.ts";
import type { EventMessage } from "../../core/messages/mod.ts";
import type { AttemptRequest, DeliveryEvent, EventRef, RecordedFirstAttempt } from "../../core/webhooks/mod.ts";
import { inMemoryWorker } from "../support/worker_in_memory.ts";

/**
 * The relay seals each event message with the servers' bus key; a worker takes a sealed message as
 * the event's row and reads the row for any other. The whole pipeline against NATS, including
 * forged and tampered messages, is in test/e2e/webhooks_forged.test.ts.
 */

const at = new Date("2026-03-01T10:00:00.000Z");
const message = (over: Partial<EventMessage> = {}): EventMessage => ({
  id: "0190f1a2-0000-7000-8000-000000000001",
  organization_id: "0190f1a2-0000-7000-8000-0000000000aa",
  event_type: "badge.created",
  occurred_at: at.toISOString(),
  ...over,
});

t.test("the seal: only the key's own seal over the same fields is sealed", async (t) => {
  const seal = eventMessageSeal(createSecretKey(randomBytes(32)));
  const other = eventMessageSeal(createSecretKey(randomBytes(32)));
  const sealed = seal.seal(message());
  t.match(sealed.mac, /^[A-Za-z0-9_-]{43}$/, "an HMAC-SHA256, base64url");
  t.ok(seal.sealed(sealed), "its own seal");
  t.notOk(seal.sealed(message()), "no seal");
  t.notOk(other.sealed(sealed), "another key's seal");
  const changes: Array<[string, Partial<EventMessage>]> = [
    ["id", { id: "0190f1a2-0000-7000-8000-000000000002" }],
    ["organization", { organization_id: "0190f1a2-0000-7000-8000-0000000000bb" }],
    ["type", { event_type: "badge.revoked" }],
    ["time", { occurred_at: new Date(at.getTime() + 1).toISOString() }],
  ];
  for (const [field, change] of changes) t.notOk(seal.sealed({ ...sealed, ...change }), `the ${field} changed`);
  for (const mac of ["", "x", `${sealed.mac}A`, sealed.mac?.slice(1), "!".repeat(43)])
    t.notOk(seal.sealed({ ...sealed, mac }), `a broken seal (${JSON.stringify(mac)})`);
});

/** A worker whose event rows and receiver are in memory: which rows it read, what it posted. */
const workerWith = (sealed: (m: EventMessage) => boolean, rows: Map<string, DeliveryEvent>) => {
  const read: EventRef[] = [];
  const posted: AttemptRequest[] = [];
  const recorded: RecordedFirstAttempt[] = [];
  const { worker, handle } = inMemoryWorker({
    at,
    sealed,
    deliveries: {
      events: async (refs) => {
        read.push(...refs);
        return new Map(refs.flatMap((r) => (rows.has(r.id) ? [[r.id, rows.get(r.id) as DeliveryEvent]] : [])));
      },
      recordFirst: async (attempts) => {
        recorded.push(...attempts);
      },
    },
    post: async (request) => {
      posted.push(request);
      return { status: 200, durationMs: 5 };
    },
  });
  /** Hands the worker one message and waits until it is settled. */
  const deliver = async (body: EventMessage): Promise<string[]> => {
    const settled: string[] = [];
    handle({
      body,
      deliveryCount: 1,
      ack: () => settled.push("ack"),
      nak: () => settled.push("nak"),
      term: () => settled.push("term"),
    });
    // The first delivery's record is batched (20 ms at most) before the message is acknowledged.
    for (let i = 0; i < 100 && settled.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    return settled;
  };
  return { worker, deliver, read, posted, recorded };
};

t.test("a sealed message is posted as it stands, without reading the event's row", async (t) => {
  const seal = eventMessageSeal(createSecretKey(randomBytes(32)));
  const w = workerWith(seal.sealed, new Map());
  t.teardown(() => w.worker.stop());
  t.same(await w.deliver(seal.seal(message())), ["ack"]);
  t.same(w.read, [], "no row read");
  t.equal(w.posted.length, 1);
  t.equal(w.recorded[0]?.event.organization_id, message().organization_id);
  t.equal(w.recorded[0]?.event.event_type, "badge.created");
});

t.test("an unsealed or tampered message is posted only as its event's row says", async (t) => {
  const seal = eventMessageSeal(createSecretKey(randomBytes(32)));
  const row: DeliveryEvent = {
    event_id: message().id,
    organization_id: "0190f1a2-0000-7000-8000-0000000000cc",
    event_type: "badge.accepted",
    occurred_at: at,
  };
  const w = workerWith(seal.sealed, new Map([[row.event_id, row]]));
  t.teardown(() => w.worker.stop());
  const tampered = { ...seal.seal(message()), organization_id: "0190f1a2-0000-7000-8000-0000000000bb" };
  for (const body of [message(), tampered]) {
    w.posted.length = 0;
    w.recorded.length = 0;
    t.same(await w.deliver(body), ["ack"]);
    t.equal(w.posted.length, 1, "posted once");
    t.equal(w.recorded[0]?.event.organization_id, row.organization_id, "the row's organization");
    t.equal(w.recorded[0]?.event.event_type, row.event_type, "the row's type");
  }
  t.equal(w.read.length, 2, "each read its row");
  w.posted.length = 0;
  t.same(await w.deliver(message({ id: "0190f1a2-0000-7000-8000-000000000009" })), ["ack"], "no row: dropped");
  t.equal(w.posted.length, 0, "nothing posted for an event that is not recorded");
});
