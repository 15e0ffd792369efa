import { randomUUID } from "node:crypto";
import t from "tap";
import { migratePostgres } from "../../adapters/db/migrate.ts";
import { type Database, openDatabase, postgresEventStore, postgresOutbox } from "../../adapters/db/mod.ts";
import { weekStart } from "../../core/webhooks/mod.ts";
import { createTestDatabase } from "../support/services.ts";
import { recordEvents } from "../support/webhooks.ts";

const DAY = 86_400_000;

const weekName = (d: Date) => `events_p${weekStart(d).toISOString().slice(0, 10).replaceAll("-", "")}`;

/** Publishes every pending event of these organizations, as the relay does; answers their ids. */
const relay = async (db: Database, organizations?: string[]): Promise<string[]> => {
  const published: string[] = [];
  const outbox = postgresOutbox(db);
  while ((await outbox.relayBatch(500, async (b) => void published.push(...b.map((e) => e.id)), organizations)) > 0);
  return published;
};

/** Moves recorded events to another time (row movement across partitions), as if they happened then. */
const backdate = (db: Database, ids: string[], at: Date) =>
  db.run("update events set occurred_at = ? where id = any(?::uuid[])", [at, ids]);

/**
 * Migration 030 on a database built at the migration before it, with events in every state:
 * published, unpublished and partly published, of several organizations, one 60 days old,
 * some referenced by webhook deliveries. Every row is there afterwards, unchanged, in a weekly
 * partition; counters, cursors and pending marks are untouched; the list, the look-up by id, the
 * relay, appending and the delete cascade to deliveries still work.
 */
t.test("the events' partitions keep every row, and the outbox goes on", async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  await migratePostgres(database.url, "m20261127_029_webhook_partitions");
  const db = await openDatabase({ databaseUrl: database.url, dataDir: "/nonexistent", migrate: false });
  t.teardown(() => db.close());

  const now = new Date();
  const orgs = [randomUUID(), randomUUID(), randomUUID()];
  for (const [i, org] of orgs.entries()) {
    await db.run("insert into organizations (id, name, created_at, updated_at) values (?::uuid, ?, now(), now())", [
      org,
      `Moved ${i}`,
    ]);
  }
  const [published, unpublished, partly] = orgs as [string, string, string];
  const ids = async (org: string, n: number) => (await recordEvents(db, org, n)).map((e) => e.id);
  const pub = await ids(published, 4);
  await backdate(db, pub.slice(0, 2), new Date(now.getTime() - 60 * DAY));
  t.same((await relay(db, [published])).sort(), [...pub].sort());
  const unpub = await ids(unpublished, 3);
  const part = await ids(partly, 5);
  await postgresOutbox(db).relayBatch(2, async () => {}, [partly]);
  // Deliveries of a published event and of the old one.
  for (const id of [pub[0], pub[3]] as string[]) {
    await db.run(
      `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
         created_at)
       select e.id, e.id, e.organization_id, e.event_type, e.occurred_at, 'succeeded', 1, e.occurred_at
       from events e where e.id = ?::uuid`,
      [id],
    );
  }

  const snapshot = async () => ({
    events: await db.all("select to_jsonb(e) as row from events e order by id"),
    counts: await db.all("select to_jsonb(n) as row from event_counts n order by organization_id"),
    cursors: await db.all("select to_jsonb(r) as row from event_relay_cursors r order by organization_id"),
    pending: await db.all("select organization_id::text from event_relay_pending order by 1"),
    deliveries: await db.all("select to_jsonb(d) as row from webhook_deliveries d order by id"),
  });
  const store = postgresEventStore(db);
  const lists = async () =>
    Promise.all(orgs.map((o) => store.list(o, { filters: {}, sort: [], page: 1 }, { page: 1, per: 50, offset: 0 })));
  const before = await snapshot();
  const listed = await lists();
  t.equal(before.events.length, 12);
  t.same(
    before.pending,
    [{ organization_id: unpublished }, { organization_id: partly }].sort((a, b) =>
      a.organization_id.localeCompare(b.organization_id),
    ),
  );

  await migratePostgres(database.url);

  t.same(await snapshot(), before, "every event, counter, cursor, mark and delivery is there, unchanged");
  t.same(await lists(), listed, "each organization's list reads the same");
  t.same(await db.all("select 1 from events_default"), [], "each event in a weekly partition");
  t.same(
    await db.all("select tableoid::regclass::text as p from events where id = ?::uuid", [pub[0]]),
    [{ p: weekName(new Date(now.getTime() - 60 * DAY)) }],
    "the old event in its own week",
  );
  t.same((await store.get(published, pub[0] as string))?.id, pub[0], "looked up by id alone, in an old week");

  // The relay publishes what was left: the unpublished events and the rest of the partly published.
  t.same((await relay(db)).sort(), [...unpub, ...part.slice(2)].sort());
  t.same(await db.all("select 1 from event_relay_pending"), []);
  // Numbering goes on from the counter, in the new table.
  const more = await ids(published, 2);
  t.same(await db.all<{ seq: string }>("select seq::text from events where id = any(?::uuid[]) order by seq", [more]), [
    { seq: "5" },
    { seq: "6" },
  ]);
  t.same(await relay(db), more);

  // Deleting an event still deletes its deliveries (migration 006's trigger, put back).
  await db.run("delete from events where id = ?::uuid", [pub[3]]);
  t.same(await db.all("select 1 from webhook_deliveries where event_id = ?::uuid", [pub[3]]), []);
  t.equal((await db.all("select 1 from webhook_deliveries where event_id = ?::uuid", [pub[0]])).length, 1);
});
