import { randomUUID } from "node:crypto";
import t from "tap";
import { type Database, postgresDeliveryStore, postgresWebhookLogPartitions } from "../../adapters/db/mod.ts";
import { newDeliveryProgress, type WebhookAttemptRecord, weekStart } from "../../core/webhooks/mod.ts";
import { openStoreDatabase } from "../support/store_database.ts";

/**
 * The worker's statements over a batch find their rows through the indexes: joined to the batch's
 * JSON, which the planner takes for 100 rows, they hash-joined a sequential scan of every events or
 * deliveries partition for a batch of a few ids, wherever the tables were small enough for that to
 * look cheaper (at the 20,000 rows here: the claim, the put-off and the first record; in the drain
 * benchmark, at 29,000 events, the event lookup too, most of PostgreSQL's CPU per delivered event).
 * Each statement the store sends is planned (EXPLAIN) against 20,000 analyzed rows.
 */

const db = await openStoreDatabase(t);
const ORG = randomUUID();
const ROWS = 20_000;
const now = new Date();

await db.run(
  "insert into organizations (id, name, email, created_at, updated_at) values (?, 'Acme', 'a@acme.test', ?, ?)",
  [ORG, now, now],
);
await db.run(
  `insert into events (id, organization_id, event_type, occurred_at, detail, seq)
   select gen_random_uuid(), ?, 'badge.created', ?::timestamptz - g * interval '1 ms', '{}', g
   from generate_series(1, ?::int) g`,
  [ORG, now, ROWS],
);
await db.run(
  `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
     created_at)
   select id, id, organization_id, event_type, occurred_at, 'succeeded', 1, occurred_at from events`,
);
await db.run("analyze events, webhook_deliveries");
/** The partitions holding the rows (the others are empty, and scanning those costs nothing). */
const seeded = new Set(
  (
    await db.all<{ name: string }>(
      `select distinct tableoid::regclass::text as name from events
       union select distinct tableoid::regclass::text from webhook_deliveries`,
    )
  ).map((r) => r.name),
);

/** The statements `work` sends through the store, as text and parameters. */
const statementsOf = async (work: (db: Database) => Promise<unknown>) => {
  const sent: Array<{ text: string; params: readonly unknown[] }> = [];
  const recording = new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "all" && prop !== "run" && prop !== "one") return value;
      return (text: string, params: readonly unknown[] = []) => {
        sent.push({ text, params });
        return (value as (text: string, params: readonly unknown[]) => Promise<unknown>).call(target, text, params);
      };
    },
  });
  await work(recording);
  return sent;
};

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

/** The tables a plan reads by sequential scan, among those holding the seeded rows. */
const scannedWhole = async (text: string, params: readonly unknown[]): Promise<string[]> => {
  const [row] = await db.all<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`explain (format json) ${text}`, params);
  const out: string[] = [];
  const walk = (node: PlanNode): void => {
    const relation = node["Relation Name"] ?? "";
    if (node["Node Type"] === "Seq Scan" && seeded.has(relation)) out.push(relation);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk((row as { "QUERY PLAN": Array<{ Plan: PlanNode }> })["QUERY PLAN"][0]?.Plan as PlanNode);
  return out;
};

const some = await db.all<{ id: string; occurred_at: Date }>("select id, occurred_at from events limit 3");
const ids = some.map((r) => r.id);
const refs = some.map((r) => ({ id: r.id, occurred_at: r.occurred_at }));
const event = (id: string) => ({ event_id: id, organization_id: ORG, event_type: "badge.created", occurred_at: now });
const attempt = (deliveryId: string): WebhookAttemptRecord => ({
  id: randomUUID(),
  delivery_id: deliveryId,
  attempt_number: 1,
  started_at: now,
  duration_ms: 5,
  status_code: 200,
  error: null,
  response_excerpt: null,
  outcome: "succeeded",
});
const progress = newDeliveryProgress(now);

t.test("every statement over a batch of three reads its rows by index", async (t) => {
  const store = (q: Database) => postgresDeliveryStore(q);
  const work: Record<string, (q: Database) => Promise<unknown>> = {
    events: (q) => store(q).events(refs),
    existing: (q) => store(q).existing(refs),
    claim: (q) =>
      store(q).claim(
        [...ids.map((id) => ({ deliveryId: id })), { deliveryId: randomUUID(), create: event(randomUUID()) }],
        "token",
        now,
        new Date(now.getTime() + 60_000),
      ),
    defer: (q) =>
      store(q).defer(
        [
          ...ids.map((id) => ({ claim: { deliveryId: id }, until: now })),
          { claim: { deliveryId: randomUUID(), create: event(randomUUID()) }, until: now },
        ],
        now,
      ),
    recordFirst: (q) =>
      store(q).recordFirst(
        ids.map((id) => ({ event: event(id), attempt: attempt(id), progress })),
        now,
      ),
    record: (q) =>
      store(q).record(ids.map((id) => ({ deliveryId: id, claimToken: "token", attempt: attempt(id), progress }))),
    abandon: (q) =>
      store(q).abandon(
        ids.map((id) => ({ deliveryId: id, claimToken: "token" })),
        now,
      ),
  };
  for (const [name, run] of Object.entries(work)) {
    const sent = await statementsOf(run);
    t.ok(sent.length > 0, `${name} sends a statement`);
    for (const { text, params } of sent) t.same(await scannedWhole(text, params), [], `${name}: ${text.slice(0, 60)}`);
  }
});

/**
 * Events are kept for good by default, in weekly partitions: a statement about a batch of events
 * (or of their first deliveries) names the batch's times, so it reads the weeks of those times
 * only, not every week kept.
 */
t.test("the statements about a batch's events read the weeks of its times only", async (t) => {
  const week = 7 * 86_400_000;
  const thisWeek = weekStart(now).getTime();
  const earlier = Array.from({ length: 10 }, (_, i) => new Date(thisWeek - (10 - i) * week));
  await postgresWebhookLogPartitions(db).ensure(earlier);
  const store = postgresDeliveryStore(db);
  const fresh = refs.filter((r) => r.occurred_at.getTime() >= thisWeek);
  t.ok(fresh.length > 0, "the batch's events are of this week");
  /** The event as its row has it (this week). */
  const recorded = (r: { id: string; occurred_at: Date }) => ({ ...event(r.id), occurred_at: r.occurred_at });
  const work: Record<string, (q: Database) => Promise<unknown>> = {
    events: (q) => postgresDeliveryStore(q).events(fresh),
    existing: (q) => postgresDeliveryStore(q).existing(fresh),
    claim: (q) =>
      postgresDeliveryStore(q).claim(
        fresh.map((r) => ({ deliveryId: r.id, create: recorded(r) })),
        "token",
        now,
        new Date(now.getTime() + 60_000),
      ),
    defer: (q) =>
      postgresDeliveryStore(q).defer(
        fresh.map((r) => ({
          claim: { deliveryId: r.id, create: recorded(r) },
          until: now,
        })),
        now,
      ),
    recordFirst: (q) =>
      postgresDeliveryStore(q).recordFirst(
        fresh.map((r) => ({
          event: recorded(r),
          attempt: attempt(r.id),
          progress,
        })),
        now,
      ),
  };
  const weekOf = (name: string) => {
    const m = /_p(\d{4})(\d{2})(\d{2})$/.exec(name);
    return m ? Date.parse(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`) : null;
  };
  for (const [name, run] of Object.entries(work)) {
    for (const { text, params } of await statementsOf(run)) {
      const [row] = await db.all<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`explain (format json) ${text}`, params);
      const relations: string[] = [];
      const walk = (node: PlanNode): void => {
        if (node["Relation Name"]) relations.push(node["Relation Name"]);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk((row as { "QUERY PLAN": Array<{ Plan: PlanNode }> })["QUERY PLAN"][0]?.Plan as PlanNode);
      const weeks = relations.filter((r) => /^(events|webhook_deliveries)_p/.test(r));
      t.same(
        weeks.filter((r) => weekOf(r) !== thisWeek),
        [],
        `${name}: ${text.trim().slice(0, 50)} reads this week's partitions only (${weeks.join(", ")})`,
      );
    }
  }
  t.same((await store.events(fresh)).size, fresh.length, "the events are found");
  t.same(
    (await store.events(fresh.map((r) => ({ ...r, occurred_at: new Date(r.occurred_at.getTime() - week) })))).size,
    0,
    "a time that is not the event's finds none",
  );
});
