import { createSecretKey, randomBytes, randomUUID } from "node:crypto";
import t from "tap";
import { batcher } from "../../adapters/batch/mod.ts";
import {
  connectNats,
  EVENTS_STREAM,
  ensureWebhookStreams,
  eventMessageSeal,
  jetstreamEventPublisher,
} from "../../adapters/bus/mod.ts";
import { isRowRefusal, postgresDeliveryStore } from "../../adapters/db/mod.ts";
import {
  concludeAttempt,
  DEFAULT_SCHEDULE,
  type DeliveryProgress,
  newDeliveryProgress,
  type RecordedFirstAttempt,
} from "../../core/webhooks/mod.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { startTestNats } from "../support/services.ts";
import { recordEvents } from "../support/webhooks.ts";

/**
 * The batched bookkeeping and publishing of the delivery pipeline: one statement per batch must
 * still keep each delivery's own outcome, a row the database refuses must fail alone, and a batch
 * publish must resolve only once JetStream stored every message.
 */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

const rows = async (ids: string[]) =>
  laurel.db.all<{ id: string; status: string; attempts: string; outcome: string | null }>(
    `select d.id, d.status, (select count(*) from webhook_attempts a where a.delivery_id = d.id) as attempts,
         (select max(a.outcome) from webhook_attempts a where a.delivery_id = d.id) as outcome
       from webhook_deliveries d where d.id = any(?::uuid[]) order by d.id`,
    [`{${ids.join(",")}}`],
  );

const firstAttempt = (
  e: { id: string; organization_id: string; event_type: string; occurred_at: Date },
  status: number,
  progress?: DeliveryProgress,
): RecordedFirstAttempt => {
  const now = new Date();
  const done = concludeAttempt({
    attemptId: randomUUID(),
    deliveryId: e.id,
    progress: newDeliveryProgress(now),
    result: { status, durationMs: 3, body: status === 200 ? "ok" : "busy" },
    startedAt: now,
    now,
    random: () => 0.5,
    schedule: DEFAULT_SCHEDULE,
  });
  return {
    event: { event_id: e.id, organization_id: e.organization_id, event_type: e.event_type, occurred_at: e.occurred_at },
    attempt: done.attempt,
    progress: progress ?? done.progress,
  };
};

t.test("one statement records a batch of mixed outcomes, each delivery its own", async (t) => {
  const org = await laurel.createOrganization("Mixed batch");
  const events = await recordEvents(laurel.db, org.organization.id, 4);
  const store = postgresDeliveryStore(laurel.db);
  const statuses = [200, 500, 200, 429];
  await store.recordFirst(
    events.map((e, i) => firstAttempt(e, statuses[i] as number)),
    new Date(),
  );
  const got = await rows(events.map((e) => e.id));
  const byId = new Map(got.map((r) => [r.id, r]));
  for (const [i, e] of events.entries()) {
    const ok = statuses[i] === 200;
    t.match(
      byId.get(e.id),
      { status: ok ? "succeeded" : "pending", outcome: ok ? "succeeded" : "http_error" },
      `event ${i}: ${statuses[i]}`,
    );
    t.equal(Number(byId.get(e.id)?.attempts), 1, `event ${i}: one attempt`);
  }
  // The same batch again (a message that came back): deliveries keep their state, and the
  // attempts, which happened, are kept.
  await store.recordFirst(
    events.map((e) => firstAttempt(e, 200)),
    new Date(),
  );
  const again = new Map((await rows(events.map((e) => e.id))).map((r) => [r.id, r]));
  t.equal(again.get(events[1]?.id as string)?.status, "pending", "a recorded delivery keeps its state");
  t.equal(Number(again.get(events[1]?.id as string)?.attempts), 2, "the second attempt is kept");
});

t.test("a row the database refuses fails alone; the rest of its batch is recorded", async (t) => {
  const org = await laurel.createOrganization("Refused row");
  const events = await recordEvents(laurel.db, org.organization.id, 5);
  const store = postgresDeliveryStore(laurel.db);
  let statements = 0;
  const record = batcher<RecordedFirstAttempt, void>(
    async (items) => {
      statements++;
      await store.recordFirst(items, new Date());
      return items.map(() => undefined);
    },
    { maxItems: 100, maxInFlight: 1, lingerMs: 20, isolateFailures: isRowRefusal },
  );
  const bad = 2;
  const results = await Promise.allSettled(
    events.map((e, i) =>
      record(
        i === bad
          ? // A status the table's check constraint refuses (SQLSTATE 23514).
            firstAttempt(e, 200, { ...newDeliveryProgress(new Date()), status: "lost" as never })
          : firstAttempt(e, 200),
      ),
    ),
  );
  t.same(
    results.map((r) => r.status),
    ["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"],
    "only the refused row's caller sees the failure",
  );
  t.equal(statements, 1 + events.length, "one batch statement, then each row on its own");
  const got = await rows(events.map((e) => e.id));
  t.same(
    got.map((r) => r.id).sort(),
    events
      .filter((_, i) => i !== bad)
      .map((e) => e.id)
      .sort(),
    "the four others are recorded",
  );
  t.ok(
    got.every((r) => r.status === "succeeded" && Number(r.attempts) === 1),
    "each with its state and attempt",
  );

  // A store that is away is not retried row by row: every caller fails at once.
  let calls = 0;
  const away = batcher<number, void>(
    async () => {
      calls++;
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    },
    { maxItems: 100, maxInFlight: 1, lingerMs: 10, isolateFailures: isRowRefusal },
  );
  const outcomes = await Promise.allSettled([1, 2, 3].map((n) => away(n)));
  t.ok(
    outcomes.every((o) => o.status === "rejected"),
    "all rejected",
  );
  t.equal(calls, 1, "one attempt for the whole batch");
});

t.test("deleting events deletes their deliveries and attempts; nothing else", async (t) => {
  // No foreign keys (migration 006): statement-level triggers keep what the cascades did.
  const sql = laurel.db;
  const count = async (table: string, ids: string[]): Promise<number> => {
    const column = table === "webhook_attempts" ? "delivery_id" : "id";
    const [row] = await sql.all<{ n: string }>(`select count(*) as n from ${table} where ${column} = any(?::uuid[])`, [
      `{${ids.join(",")}}`,
    ]);
    return Number(row?.n);
  };
  const store = postgresDeliveryStore(laurel.db);
  const gone = await laurel.createOrganization("Deleted organization");
  const kept = await laurel.createOrganization("Kept organization");
  const goneEvents = await recordEvents(laurel.db, gone.organization.id, 3);
  const keptEvents = await recordEvents(laurel.db, kept.organization.id, 3);
  const goneIds = goneEvents.map((e) => e.id);
  const keptIds = keptEvents.map((e) => e.id);
  await store.recordFirst(
    [...goneEvents, ...keptEvents].map((e) => firstAttempt(e, 500)),
    new Date(),
  );
  t.same([await count("webhook_deliveries", goneIds), await count("webhook_attempts", goneIds)], [3, 3], "recorded");

  // One delivery deleted on its own takes its attempts along.
  await sql.all("delete from webhook_deliveries where id = ?", [keptIds[0]]);
  t.equal(await count("webhook_attempts", keptIds), 2, "the deleted delivery's attempt is gone, the others stay");

  // An organization deleted: its events go by cascade, their deliveries and attempts with them.
  await sql.all("delete from organizations where id = ?", [gone.organization.id]);
  t.same(
    [await count("webhook_deliveries", goneIds), await count("webhook_attempts", goneIds)],
    [0, 0],
    "the deleted organization's deliveries and attempts are gone",
  );
  t.same(
    [await count("webhook_deliveries", keptIds), await count("webhook_attempts", keptIds)],
    [2, 2],
    "another organization's are untouched",
  );
});

t.test("a batch publish resolves once JetStream stored every event; duplicates are acknowledged", async (t) => {
  await ensureWebhookStreams(laurel.nc, {
    ackWaitMs: 60_000,
    maxAckPending: 1_000,
    duplicateWindowMs: 120_000,
    eventsMaxAgeMs: 3_600_000,
  });
  const org = await laurel.createOrganization("Publisher");
  const events = await recordEvents(laurel.db, org.organization.id, 300);
  const outbox = events.map((e) => ({
    id: e.id,
    organization_id: e.organization_id,
    event_type: e.event_type,
    occurred_at: e.occurred_at,
  }));
  const { jetstreamManager } = await import("@nats-io/jetstream");
  const jsm = await jetstreamManager(laurel.nc);
  const before = (await jsm.streams.info(EVENTS_STREAM)).state.messages;
  const seal = eventMessageSeal(createSecretKey(randomBytes(32)));
  const publisher = jetstreamEventPublisher(laurel.nc, seal);
  await publisher.publish(outbox);
  const stored = (await jsm.streams.info(EVENTS_STREAM)).state.messages;
  t.equal(stored - before, 300, "all 300 stored when the publish resolved");
  await publisher.publish(outbox.slice(0, 100));
  t.equal(
    (await jsm.streams.info(EVENTS_STREAM)).state.messages,
    stored,
    "a batch published again is dropped by msgID",
  );

  // A server without the stream: nothing stores the messages, and the batch fails (the relay keeps
  // the events unpublished and tries again).
  const bare = await startTestNats();
  const nc = await connectNats(bare.url, "batches-test");
  t.teardown(async () => {
    await nc.close();
    await bare.stop();
  });
  await t.rejects(
    jetstreamEventPublisher(nc, seal, { timeoutMs: 2_000 }).publish(outbox.slice(0, 10)),
    "a batch no stream stores fails",
  );
});
