import { partitionWeekEnd, type WebhookLogPartitions } from "../../core/webhooks/mod.ts";
import type { Database } from "./database.ts";

/**
 * Each partitioned table, its partition key, and what "unfinished" is in a partition: a webhook
 * delivery still due or under way (for attempts: their delivery's), an event not yet published.
 */
const TABLES = [
  {
    table: "webhook_deliveries",
    key: "occurred_at",
    unfinished: (p: string) =>
      `select 1 from ${p} d where d.due_at is not null or d.status in ('pending', 'delivering') limit 1`,
  },
  {
    table: "webhook_attempts",
    key: "started_at",
    unfinished: (p: string) =>
      `select 1 from ${p} a join webhook_deliveries d on d.id = a.delivery_id
       where d.due_at is not null or d.status in ('pending', 'delivering') limit 1`,
  },
  {
    table: "events",
    key: "occurred_at",
    // Only organizations marked pending have events above their relay cursor (migration 027): one
    // probe of the partition's (organization_id, seq) index each, not a scan of the week.
    unfinished: (p: string) =>
      `select 1 from event_relay_pending m
       cross join lateral (select published_seq from event_relay_cursors where organization_id = m.organization_id offset 0) r
       where exists (select 1 from ${p} e where e.organization_id = m.organization_id and e.seq > r.published_seq)
       limit 1`,
  },
] as const;

const WEBHOOK_LOG = TABLES.filter((t) => t.table !== "events");
const EVENTS = TABLES.filter((t) => t.table === "events");

/** `webhook_deliveries_p20261123`: the partition of the week starting that Monday (UTC). */
const partitionName = (table: string, week: Date): string =>
  `${table}_p${week.toISOString().slice(0, 10).replaceAll("-", "")}`;

const weekOfName = (table: string, name: string): Date | null => {
  const m = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`).exec(name);
  return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`) : null;
};

/**
 * Laurel's own partition maintenance of the webhook log and of the events. A week's partition is
 * created in one transaction; rows that landed meanwhile in the default partition for that week
 * are moved into it (the default is detached for that moment, since a range may not be attached
 * over rows the default holds). A week is dropped whole, under a lock of its table, after checking in that same
 * transaction that none of its deliveries (or, for attempts, their deliveries) is unfinished, or,
 * for events, that none is unpublished.
 */
export const postgresWebhookLogPartitions = (db: Database): WebhookLogPartitions => {
  const existing = async (table: string): Promise<string[]> =>
    (
      await db.all<{ name: string }>(
        `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
         join pg_class p on p.oid = i.inhparent where p.relname = ?`,
        [table],
      )
    ).map((r) => r.name);

  const dropWeeks = async (tables: readonly (typeof TABLES)[number][], endingBy: Date): Promise<number> => {
    let dropped = 0;
    for (const { table, unfinished } of tables) {
      for (const name of await existing(table)) {
        const week = weekOfName(table, name);
        if (!week || partitionWeekEnd(week).getTime() > endingBy.getTime()) continue;
        const gone = await db.transaction(async (q) => {
          await q.all("select pg_advisory_xact_lock(hashtext('laurel_webhook_log_partitions'))");
          const there = await q.all<{ name: string | null }>("select to_regclass(?)::text as name", [name]);
          if (!there[0]?.name) return false;
          // The parent first, as every writer locks it before a partition: no deadlock with them.
          // Under this lock no writer adds a row to the week and no relay is between reading
          // events and moving its cursor, so what `unfinished` finds holds until the drop.
          await q.run(`lock table ${table}, ${name} in access exclusive mode`);
          if ((await q.all(unfinished(name))).length > 0) return false;
          await q.run(`drop table ${name}`);
          return true;
        });
        if (gone) dropped++;
      }
    }
    return dropped;
  };

  return {
    async ensure(weeks) {
      let created = 0;
      for (const { table, key } of TABLES) {
        const have = new Set(await existing(table));
        for (const week of weeks) {
          const name = partitionName(table, week);
          if (have.has(name)) continue;
          const from = week.toISOString();
          const to = partitionWeekEnd(week).toISOString();
          const made = await db.transaction(async (q) => {
            // Worker processes keep the partitions at once: one creates a week, the others find it.
            await q.all("select pg_advisory_xact_lock(hashtext('laurel_webhook_log_partitions'))");
            const there = await q.all<{ name: string | null }>("select to_regclass(?)::text as name", [name]);
            if (there[0]?.name) return false;
            const strays = await q.all<{ one: number }>(
              `select 1 as one from ${table}_default where ${key} >= ?::timestamptz and ${key} < ?::timestamptz limit 1`,
              [from, to],
            );
            const bounds = `for values from ('${from}') to ('${to}')`;
            if (strays.length === 0) {
              await q.run(`create table ${name} partition of ${table} ${bounds}`);
              return true;
            }
            await q.run(`alter table ${table} detach partition ${table}_default`);
            await q.run(`create table ${name} partition of ${table} ${bounds}`);
            await q.run(
              `with moved as (delete from ${table}_default where ${key} >= ?::timestamptz and ${key} < ?::timestamptz
                 returning *)
               insert into ${name} select * from moved`,
              [from, to],
            );
            await q.run(`alter table ${table} attach partition ${table}_default default`);
            return true;
          });
          if (made) created++;
        }
      }
      return created;
    },

    dropFinished: (endingBy) => dropWeeks(WEBHOOK_LOG, endingBy),
    dropPublishedEvents: (endingBy) => dropWeeks(EVENTS, endingBy),
  };
};
