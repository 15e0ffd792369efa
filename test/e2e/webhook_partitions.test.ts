import { randomUUID } from "node:crypto";
import t from "tap";
import { postgresAuditLog, postgresMemberStore, postgresWebhookLogPartitions } from "../../adapters/db/mod.ts";
import { partitionPlan, weekStart } from "../../core/webhooks/mod.ts";
import { startRetention } from "../../workers/mod.ts";
import { startLaurel } from "../support/laurel.ts";
import { waitFor } from "../support/webhooks.ts";

const DAY = 86_400_000;

/**
 * The webhook log's weekly partitions (migration 029) kept by the retention worker: weeks ahead
 * are created, weeks past WEBHOOK_LOG_RETENTION_DAYS are dropped whole once every delivery in them
 * has finished, younger rows and unfinished deliveries stay, rows that fell into the default
 * partition move into the week created for them.
 */
for (const database of ["postgresql", "pglite"] as const) {
  t.test(`partition maintenance with a clock (${database})`, async (t) => {
    const laurel = await startLaurel({ database });
    t.teardown(() => laurel.close());
    const db = laurel.db;
    const parts = postgresWebhookLogPartitions(db);
    const org = (await laurel.createOrganization("Partitions")).organization.id;
    const partitions = async (table: string) =>
      (
        await db.all<{ name: string }>(
          `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
         join pg_class p on p.oid = i.inhparent where p.relname = ? order by 1`,
          [table],
        )
      ).map((r) => r.name);
    const name = (table: string, d: Date) => `${table}_p${weekStart(d).toISOString().slice(0, 10).replaceAll("-", "")}`;
    const delivery = async (occurredAt: Date, status: string, due: boolean) => {
      const id = randomUUID();
      await db.run(
        `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
         due_at, created_at) values (?::uuid, ?::uuid, ?::uuid, 'badge.created', ?, ?, 1, ?, ?)`,
        [id, id, org, occurredAt, status, due ? occurredAt : null, occurredAt],
      );
      await db.run(
        `insert into webhook_attempts (id, delivery_id, attempt_number, started_at, duration_ms, outcome)
       values (?::uuid, ?::uuid, 1, ?, 5, 'succeeded')`,
        [randomUUID(), id, occurredAt],
      );
      return id;
    };
    const where = async (id: string) =>
      (
        await db.all<{ table: string; attempts: string }>(
          `select d.tableoid::regclass::text as table, (select count(*) from webhook_attempts a where a.delivery_id = d.id)::text as attempts
         from webhook_deliveries d where d.id = ?::uuid`,
          [id],
        )
      )[0];

    const now = new Date();
    for (const table of ["webhook_deliveries", "webhook_attempts"]) {
      const names = await partitions(table);
      for (let i = 0; i <= 4; i++)
        t.ok(names.includes(name(table, new Date(now.getTime() + i * 7 * DAY))), `${table} week +${i}`);
      t.ok(names.includes(`${table}_default`));
    }

    // Two processes keeping the partitions at once: each week is created once, neither fails.
    const far = [8, 9].map((w) => weekStart(new Date(now.getTime() + w * 7 * DAY)));
    const both = await Promise.all([parts.ensure(far), postgresWebhookLogPartitions(db).ensure(far)]);
    t.equal(both[0] + both[1], 6, "two weeks of deliveries, of attempts and of events, once");

    // Rows from before the first partition land in the default one, then move into their week.
    const oldDone = await delivery(new Date(now.getTime() - 70 * DAY), "succeeded", false);
    const oldPending = await delivery(new Date(now.getTime() - 63 * DAY), "pending", true);
    const young = await delivery(new Date(now.getTime() - 20 * DAY), "failed", false);
    t.equal((await where(oldDone))?.table, "webhook_deliveries_default");
    const weeks = [70, 63, 20].map((d) => weekStart(new Date(now.getTime() - d * DAY)));
    t.equal(await parts.ensure(weeks), 9, "three weeks of deliveries, of attempts and of events");
    t.equal(await parts.ensure(weeks), 0, "created once");
    t.same(await where(oldDone), { table: name("webhook_deliveries", weeks[0] as Date), attempts: "1" });
    t.same(await db.all("select 1 from webhook_deliveries_default"), [], "the default partition is empty again");
    t.same(await db.all("select 1 from webhook_attempts_default"), []);

    // At now: the old finished week goes, with its attempts; the week with a pending delivery stays.
    const endingBy = partitionPlan(now, { webhookLog: 35, events: 0 }).dropEndingBy;
    const drops = await Promise.all([
      parts.dropFinished(endingBy),
      postgresWebhookLogPartitions(db).dropFinished(endingBy),
    ]);
    t.equal(drops[0] + drops[1], 2, "dropped once, by one of two processes");
    t.equal(await where(oldDone), undefined);
    t.same(await db.all("select 1 from webhook_attempts a where a.delivery_id = ?::uuid", [oldDone]), []);
    t.same(await where(oldPending), { table: name("webhook_deliveries", weeks[1] as Date), attempts: "1" });
    t.same((await where(young))?.attempts, "1", "younger than the window: kept");
    t.notOk((await partitions("webhook_deliveries")).includes(name("webhook_deliveries", weeks[0] as Date)));

    // The worker, its clock 70 days on: creates the weeks ahead of it, drops the young week now old,
    // keeps the pending delivery's week and the default partitions.
    const later = new Date(now.getTime() + 70 * DAY);
    const recentAt = new Date(later.getTime() - 20 * DAY);
    await parts.ensure([weekStart(recentAt)]);
    const recent = await delivery(recentAt, "succeeded", false);
    const job = startRetention(
      {
        audit: postgresAuditLog(db),
        invitations: postgresMemberStore(db),
        webhookLog: parts,
        clock: () => later,
        log: console,
      },
      { intervalMs: 60_000, batch: 100, webhookLogRetentionDays: 35 },
    );
    t.teardown(() => job.stop());
    // One round drops the deliveries' weeks, then the attempts' weeks.
    await waitFor(
      "the round that drops the weeks past the window",
      async () => !(await partitions("webhook_attempts")).includes(name("webhook_attempts", now)),
    );
    t.equal(await where(young), undefined);
    for (const table of ["webhook_deliveries", "webhook_attempts"]) {
      const names = await partitions(table);
      for (let i = 0; i <= 4; i++) {
        t.ok(names.includes(name(table, new Date(later.getTime() + i * 7 * DAY))), `${table} week +${i} of the clock`);
      }
      t.ok(names.includes(`${table}_default`));
      t.notOk(names.includes(name(table, now)), "this week is past the window at the clock: dropped");
      t.ok(names.includes(name(table, recentAt)), "20 days before the clock: kept");
    }
    t.same(await where(oldPending), { table: name("webhook_deliveries", weeks[1] as Date), attempts: "1" });
    t.same(await where(recent), { table: name("webhook_deliveries", recentAt), attempts: "1" });
  });
}
