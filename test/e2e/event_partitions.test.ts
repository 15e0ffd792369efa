import { randomUUID } from "node:crypto";
import t from "tap";
import { migratePostgres } from "../../adapters/db/migrate.ts";
import {
  type Database,
  openDatabase,
  postgresAuditLog,
  postgresEventStore,
  postgresMemberStore,
  postgresOutbox,
  postgresWebhookLogPartitions,
} from "../../adapters/db/mod.ts";
import { partitionPlan, weekStart } from "../../core/webhooks/mod.ts";
import { startRetention } from "../../workers/mod.ts";
import { basic, startLaurel } from "../support/laurel.ts";
import { createTestDatabase } from "../support/services.ts";
import { appendBefore032, recordEvents, waitFor } from "../support/webhooks.ts";

const DAY = 86_400_000;

const partitions = async (db: Database, table: string) =>
  (
    await db.all<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       join pg_class p on p.oid = i.inhparent where p.relname = ? order by 1`,
      [table],
    )
  ).map((r) => r.name);
const weekName = (d: Date) => `events_p${weekStart(d).toISOString().slice(0, 10).replaceAll("-", "")}`;

/** Publishes every pending event of these organizations, as the relay does; answers their ids. */
const relay = async (db: Database, organizations?: string[]): Promise<string[]> => {
  const published: string[] = [];
  const outbox = postgresOutbox(db);
  while ((await outbox.relayBatch(500, async (b) => void published.push(...b.map((e) => e.id)), organizations)) > 0);
  return published;
};

/** Publishes an organization's first `upto` events as the relay of that time did: its cursor, and its mark when caught up. */
const publishAt029 = async (db: Database, organizationId: string, upto: number): Promise<void> => {
  await db.run("update event_relay_cursors set published_seq = ?::int where organization_id = ?::uuid", [
    upto,
    organizationId,
  ]);
  await db.run(
    `delete from event_relay_pending p using event_counts n
     where p.organization_id = ?::uuid and n.organization_id = p.organization_id and n.total <= ?::int`,
    [organizationId, upto],
  );
};

/**
 * Migration 030 on a database built at the migration before it, with events in every state:
 * published, unpublished and partly published, of several organizations, one 60 days old,
 * some referenced by webhook deliveries. Every row is there afterwards, unchanged, in a weekly
 * partition; counters, cursors and pending marks are untouched; the list, the look-up by id, the
 * relay, appending and the delete cascade to deliveries still work.
 */
t.test("the events' partitions keep every row, and the outbox goes on", async (t) => {
  const database = await createTestDatabase({ empty: true });
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
  const pub = [
    ...(await appendBefore032(db, published, 2, new Date(now.getTime() - 60 * DAY))),
    ...(await appendBefore032(db, published, 2)),
  ];
  await publishAt029(db, published, 4);
  const unpub = await appendBefore032(db, unpublished, 3);
  const part = await appendBefore032(db, partly, 5);
  await publishAt029(db, partly, 2);
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
  const more = (await recordEvents(db, published, 2)).map((e) => e.id);
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

/**
 * EVENT_RETENTION_DAYS: weeks past it are dropped whole once every event in them is published; a
 * recent week and a week holding an unpublished event stay; the deliveries of dropped events stay;
 * the events API lists what is kept across the remaining weeks, its count included.
 */
for (const database of ["postgresql", "pglite"] as const) {
  t.test(`event retention by partition (${database})`, async (t) => {
    const laurel = await startLaurel({ database });
    t.teardown(() => laurel.close());
    const db = laurel.db;
    const parts = postgresWebhookLogPartitions(db);
    const now = new Date();
    const ago = (days: number) => new Date(now.getTime() - days * DAY);

    const names = await partitions(db, "events");
    for (let i = 0; i <= 4; i++) t.ok(names.includes(weekName(new Date(now.getTime() + i * 7 * DAY))), `week +${i}`);
    t.ok(names.includes("events_default"));

    const a = await laurel.createOrganization("Kept and dropped");
    const b = await laurel.createOrganization("Unpublished");
    const org = a.organization.id;
    // Before every partition: they land in the default one, and move into their week when it is made.
    const old = (await recordEvents(db, org, 3, "badge.created", ago(70))).map((e) => e.id);
    const recent = (await recordEvents(db, org, 2, "badge.privacy.changed", ago(20))).map((e) => e.id);
    const current = (await recordEvents(db, org, 2)).map((e) => e.id);
    const waiting = (await recordEvents(db, b.organization.id, 1, "badge.created", ago(63))).map((e) => e.id);
    t.equal((await db.all("select 1 from events_default")).length, 6);
    const weeks = [70, 63, 20].map((d) => weekStart(ago(d)));
    t.equal(await parts.ensure(weeks), 9, "three weeks of events, of deliveries and of attempts");
    t.same(await db.all("select 1 from events_default"), [], "the default partition is empty again");
    t.same(
      await db.all<{ p: string }>(
        "select distinct tableoid::regclass::text as p from events where id = any(?::uuid[])",
        [old],
      ),
      [{ p: weekName(ago(70)) }],
    );
    // A delivery of an old event: it stays until the webhook log's own retention.
    await db.run(
      `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
         created_at)
       select e.id, e.id, e.organization_id, e.event_type, e.occurred_at, 'succeeded', 1, e.occurred_at
       from events e where e.id = ?::uuid`,
      [old[0]],
    );
    t.equal((await relay(db, [org])).length, 7, "the first organization's events published; the other's not");

    // Two processes at once: the published old week goes, once; the week with an unpublished
    // event and the recent week stay.
    const endingBy = partitionPlan(now, { webhookLog: 35, events: 35 }).dropEventsEndingBy as Date;
    const drops = await Promise.all([
      parts.dropPublishedEvents(endingBy),
      postgresWebhookLogPartitions(db).dropPublishedEvents(endingBy),
    ]);
    t.equal(drops[0] + drops[1], 1, "dropped once, by one of two processes");
    const kept = await partitions(db, "events");
    t.notOk(kept.includes(weekName(ago(70))), "the old published week is gone from pg_inherits");
    t.same(await db.all<{ r: string | null }>("select to_regclass(?)::text as r", [weekName(ago(70))]), [{ r: null }]);
    t.ok(kept.includes(weekName(ago(63))), "the week holding an unpublished event is kept");
    t.ok(kept.includes(weekName(ago(20))), "the recent week is kept");
    t.same(await db.all("select 1 from events where id = any(?::uuid[])", [old]), []);
    t.equal((await db.all("select 1 from events where id = ?::uuid", [waiting[0]])).length, 1);
    t.equal(
      (await db.all("select 1 from webhook_deliveries where event_id = ?::uuid", [old[0]])).length,
      1,
      "the dropped event's delivery is kept",
    );
    t.same(await db.all("select 1 from webhook_deliveries_default"), []);

    // The API lists the kept events, newest first, across the remaining weeks; the count is theirs.
    const list = async (query = "") => {
      const res = await fetch(`${laurel.baseUrl}/organizations/${org}/events${query}`, {
        headers: { authorization: basic(a.authorization_token.token) },
      });
      t.equal(res.status, 200);
      return (await res.json()) as { data: { id: string }[]; metadata: { total_count: number; total_pages: number } };
    };
    const page = await list();
    t.same(
      page.data.map((e) => e.id),
      [...recent, ...current].reverse(),
    );
    t.match(page.metadata, { total_count: 4, total_pages: 1 });
    const updated = await list("?filter=event_type::badge.privacy.changed");
    t.same(
      updated.data.map((e) => e.id),
      [...recent].reverse(),
    );
    t.match(updated.metadata, { total_count: 2 });
    const one = await fetch(`${laurel.baseUrl}/organizations/${org}/events/${recent[0]}`, {
      headers: { authorization: basic(a.authorization_token.token) },
    });
    t.equal(one.status, 200, "an event in an older week, by id");
    const gone = await fetch(`${laurel.baseUrl}/organizations/${org}/events/${old[1]}`, {
      headers: { authorization: basic(a.authorization_token.token) },
    });
    t.equal(gone.status, 404, "a dropped event is not found");

    // The worker, once the other organization's event is published: drops that week too, keeps
    // the recent one and creates the weeks ahead.
    t.same(await relay(db), waiting);
    const job = startRetention(
      {
        audit: postgresAuditLog(db),
        invitations: postgresMemberStore(db),
        webhookLog: parts,
        clock: () => now,
        log: console,
      },
      { intervalMs: 60_000, batch: 100, webhookLogRetentionDays: 35, eventRetentionDays: 35 },
    );
    t.teardown(() => job.stop());
    await waitFor(
      "the round that drops the published week",
      async () => !(await partitions(db, "events")).includes(weekName(ago(63))),
    );
    const after = await partitions(db, "events");
    t.ok(after.includes(weekName(ago(20))));
    t.ok(after.includes("events_default"));
    t.same(await db.all("select 1 from events where id = ?::uuid", [waiting[0]]), []);
    t.match((await list()).metadata, { total_count: 4 });
  });
}

/** Without EVENT_RETENTION_DAYS the worker drops no event, however old. */
t.test("events are kept for good by default", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const db = laurel.db;
  const org = (await laurel.createOrganization("Forever")).organization.id;
  const ids = (await recordEvents(db, org, 2)).map((e) => e.id);
  await relay(db, [org]);
  const later = new Date(Date.now() + 400 * DAY);
  const job = startRetention(
    {
      audit: postgresAuditLog(db),
      invitations: postgresMemberStore(db),
      webhookLog: postgresWebhookLogPartitions(db),
      clock: () => later,
      log: console,
    },
    { intervalMs: 60_000, batch: 100, webhookLogRetentionDays: 35 },
  );
  t.teardown(() => job.stop());
  // The round has run once the weeks ahead of its clock exist.
  await waitFor("the worker's round", async () =>
    (await partitions(db, "events")).includes(weekName(new Date(later.getTime() + 4 * 7 * DAY))),
  );
  t.equal((await db.all("select 1 from events where id = any(?::uuid[])", [ids])).length, 2);
  t.ok((await partitions(db, "events")).includes(weekName(new Date())));
});
