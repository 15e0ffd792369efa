import { randomUUID } from "node:crypto";
import t from "tap";
import { migratePostgres } from "../../adapters/db/migrate.ts";
import {
  openDatabase,
  postgresDeliveryAdminStore,
  postgresDeliveryStore,
  postgresOutbox,
} from "../../adapters/db/mod.ts";
import { createTestDatabase } from "../support/services.ts";
import { appendBefore032 } from "../support/webhooks.ts";

const DAY = 86_400_000;

/**
 * Migration 029 on a database built at the migration before it, with deliveries in every state
 * and their attempts: every row is there afterwards, unchanged, in a weekly partition, and
 * delivery, first deliveries racing each other, redelivery and the relay still work.
 */
t.test("the webhook log's partitions keep every row, and delivery goes on", async (t) => {
  const database = await createTestDatabase({ empty: true });
  t.teardown(() => database.drop());
  await migratePostgres(database.url, "m20261127_027_relay_pending");
  const db = await openDatabase({ databaseUrl: database.url, dataDir: "/nonexistent", migrate: false });
  t.teardown(() => db.close());

  const org = randomUUID();
  await db.run("insert into organizations (id, name, created_at, updated_at) values (?::uuid, 'Moved', now(), now())", [
    org,
  ]);
  const now = new Date();
  // The sixth event is 60 days old: its week lies before any partition the migration would make for now.
  const ids = [
    ...(await appendBefore032(db, org, 5, now)),
    ...(await appendBefore032(db, org, 1, new Date(now.getTime() - 60 * DAY))),
    ...(await appendBefore032(db, org, 2, now)),
  ];
  const states: [string, string, number, boolean][] = [
    ["pending", "next attempt due", 2, true],
    ["delivering", "held by a worker", 1, true],
    ["succeeded", "done", 3, false],
    ["failed", "failed", 2, false],
    ["failed", "dead: every retry spent", 8, false],
    ["succeeded", "60 days old", 1, false],
  ];
  for (const [i, [status, , attempts, open]] of states.entries()) {
    await db.run(
      `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
         last_attempt_at, next_attempt_at, lease_until, claim_token, due_at, created_at)
       select e.id, e.id, e.organization_id, e.event_type, e.occurred_at, ?, ?, ?::timestamptz,
         case when ? = 'pending' then ?::timestamptz end, case when ? = 'delivering' then ?::timestamptz end,
         case when ? = 'delivering' then 'token' end, case when ? then ?::timestamptz end, e.occurred_at
       from events e where e.id = ?::uuid`,
      [status, attempts, now, status, now, status, now, status, open, now, ids[i]],
    );
    for (let n = 1; n <= attempts; n++) {
      await db.run(
        `insert into webhook_attempts (id, delivery_id, attempt_number, started_at, duration_ms, status_code, outcome)
         values (?::uuid, ?::uuid, ?, ?, 12, 500, 'http_error')`,
        [randomUUID(), ids[i], n, new Date(now.getTime() - (attempts - n) * DAY)],
      );
    }
  }
  const snapshot = async () => ({
    deliveries: await db.all("select to_jsonb(d) as row from webhook_deliveries d order by id"),
    attempts: await db.all("select to_jsonb(a) as row from webhook_attempts a order by id"),
    events: await db.all("select to_jsonb(e) as row from events e order by id"),
  });
  const before = await snapshot();
  t.equal(before.deliveries.length, 6);
  t.equal(before.attempts.length, 17);

  await migratePostgres(database.url);

  t.same(await snapshot(), before, "every delivery, attempt and event is there, unchanged");
  t.same(
    await db.all("select 1 from webhook_deliveries_default union all select 1 from webhook_attempts_default"),
    [],
    "each in a weekly partition",
  );
  t.same(
    (await db.all<{ n: number }>("select count(distinct tableoid)::int as n from webhook_deliveries"))[0]?.n,
    2,
    "the old delivery in a week of its own",
  );

  const store = postgresDeliveryStore(db);
  const later = new Date(now.getTime() + 1000);
  const lease = new Date(now.getTime() + 60_000);
  // The pending delivery is claimed and its attempt recorded.
  const claimed = await store.claim([{ deliveryId: ids[0] as string }], "w1", later, lease);
  t.same([...claimed.keys()], [ids[0]]);
  const attempt = (deliveryId: string, n: number) => ({
    id: randomUUID(),
    delivery_id: deliveryId,
    attempt_number: n,
    started_at: later,
    duration_ms: 5,
    status_code: 200,
    error: null,
    response_excerpt: null,
    outcome: "succeeded" as const,
  });
  const done = {
    status: "succeeded" as const,
    attemptsCount: 3,
    firstAttemptAt: now,
    lastAttemptAt: later,
    nextAttemptAt: null,
    succeededAt: later,
  };
  await store.record([
    { deliveryId: ids[0] as string, claimToken: "w1", attempt: attempt(ids[0] as string, 3), progress: done },
  ]);
  t.same(await db.all("select status, attempts_count, due_at from webhook_deliveries where id = ?::uuid", [ids[0]]), [
    { status: "succeeded", attempts_count: 3, due_at: null },
  ]);

  // A first delivery recorded twice (two workers) is one delivery with both attempts.
  const fresh = { id: ids[6] as string, event_type: "badge.created" as const, occurred_at: now };
  const first = (n: number) => ({
    event: {
      event_id: fresh.id,
      organization_id: org,
      event_type: fresh.event_type,
      occurred_at: fresh.occurred_at,
    },
    attempt: attempt(fresh.id, n),
    progress: { ...done, attemptsCount: 1 },
  });
  await store.recordFirst([first(1)], later);
  await store.recordFirst([first(1)], later);
  t.same(
    await db.all(
      `select (select count(*)::int from webhook_deliveries where id = ?::uuid) as deliveries,
         (select count(*)::int from webhook_attempts where delivery_id = ?::uuid) as attempts`,
      [fresh.id, fresh.id],
    ),
    [{ deliveries: 1, attempts: 2 }],
  );
  // A claim that creates a delivery takes it once; a second claim finds it held.
  const create = { deliveryId: ids[7] as string, create: { ...first(1).event, event_id: ids[7] as string } };
  t.equal((await store.claim([create], "w2", later, lease)).size, 1);
  t.equal((await store.claim([create], "w3", later, lease)).size, 0);

  // Redelivery makes a new delivery of each failed one (the failed and the dead).
  const admin = postgresDeliveryAdminStore(db);
  t.equal(await admin.redeliverFailed(org, new Date(now.getTime() - DAY), "all", later, randomUUID), 2);
  t.same(
    await db.all(
      "select event_id::text from webhook_deliveries where status = 'pending' and id <> event_id order by event_id",
    ),
    [{ event_id: ids[3] }, { event_id: ids[4] }].sort((a, b) =>
      (a.event_id as string).localeCompare(b.event_id as string),
    ),
  );

  // Migrations 032 and 033 gave the pending mark the bounds of the unpublished events' times.
  t.same(
    await db.all(
      `select p.since = e.since and p.until = e.until as bounded from event_relay_pending p,
         (select min(occurred_at) as since, date_trunc('hour', max(occurred_at)) + interval '1 hour' as until
          from events where organization_id = ?::uuid) e
       where p.organization_id = ?::uuid`,
      [org, org],
    ),
    [{ bounded: true }],
    "the mark's since and until",
  );
  // The relay publishes every event, the moved ones included.
  const published: string[] = [];
  const outbox = postgresOutbox(db);
  while ((await outbox.relayBatch(500, async (batch) => void published.push(...batch.map((e) => e.id)))) > 0);
  t.same(published.sort(), [...ids].sort());

  // Deleting an event still deletes its deliveries and their attempts (migration 006's triggers).
  await db.run("delete from events where id = ?::uuid", [ids[2]]);
  t.same(
    await db.all(
      `select (select count(*)::int from webhook_deliveries where event_id = ?::uuid) as deliveries,
         (select count(*)::int from webhook_attempts where delivery_id = ?::uuid) as attempts`,
      [ids[2], ids[2]],
    ),
    [{ deliveries: 0, attempts: 0 }],
  );
});
