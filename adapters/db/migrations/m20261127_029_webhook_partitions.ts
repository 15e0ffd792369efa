import { Migration } from "@mikro-orm/migrations";
import { ATTEMPT_COLUMNS, DELIVERY_COLUMNS } from "./m20261122_004_webhooks.ts";

/** The partitioned tables, their partition key, and the former table each replaces. */
const TABLES = [
  { table: "webhook_deliveries", key: "occurred_at" },
  { table: "webhook_attempts", key: "started_at" },
] as const;

/** The indexes of both tables but their primary keys, as migration 004 made them. */
const INDEXES = [
  "create index webhook_deliveries_due_idx on webhook_deliveries (due_at) where due_at is not null",
  "create index webhook_deliveries_event_idx on webhook_deliveries (event_id, created_at desc)",
  "create index webhook_deliveries_org_idx on webhook_deliveries (organization_id, created_at desc, id desc)",
  "create index webhook_deliveries_failed_idx on webhook_deliveries (organization_id, last_attempt_at) where status = 'failed'",
  "create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempt_number)",
] as const;

/** Migration 006's cascade: deleting deliveries deletes their attempts. */
const DELETE_ATTEMPTS_TRIGGER = `create trigger webhook_deliveries_delete_attempts after delete on webhook_deliveries
      referencing old table as gone for each statement execute function laurel_delete_delivery_attempts()`;

/**
 * Webhook deliveries and attempts are partitioned by week, so that the retention worker removes
 * old ones by dropping whole partitions (no bulk DELETE, no dead rows, indexes that stop growing).
 *
 * - `webhook_deliveries` is partitioned by `occurred_at`, its event's time, not by `created_at`:
 *   a first delivery's id is its event's id and is written by `insert ... on conflict (id)` from
 *   any worker at any time, and a partitioned table's unique keys must hold the partition key.
 *   `(id, occurred_at)` is exactly as unique as `id`, because a delivery id always comes with the
 *   same event, hence the same `occurred_at`; `created_at` would differ between two workers' inserts.
 * - `webhook_attempts` is partitioned by `started_at`; attempts are only ever inserted.
 * - Each has a default partition, so a row outside every weekly range (a clock far off, a
 *   redelivery of an event older than the kept weeks) is still written; partition maintenance
 *   moves such rows into the week it creates.
 *
 * The existing rows are copied into weekly partitions covering them and four weeks ahead; the
 * delete cascades of migration 006 are put back on the new tables.
 */
export class M20261127029WebhookPartitions extends Migration {
  override async up(): Promise<void> {
    this.addSql("drop trigger webhook_deliveries_delete_attempts on webhook_deliveries");
    this.addSql("alter table webhook_deliveries rename to webhook_deliveries_unpartitioned");
    this.addSql("alter table webhook_attempts rename to webhook_attempts_unpartitioned");
    for (const idx of [
      "webhook_deliveries_due_idx",
      "webhook_deliveries_event_idx",
      "webhook_deliveries_org_idx",
      "webhook_deliveries_failed_idx",
      "webhook_attempts_delivery_idx",
    ]) {
      this.addSql(`drop index ${idx}`);
    }

    this.addSql(`create table webhook_deliveries (
      id uuid not null,
      event_id uuid not null,
      organization_id uuid not null,
      ${DELIVERY_COLUMNS},
      primary key (id, occurred_at)
    ) partition by range (occurred_at)`);
    this.addSql(`create table webhook_attempts (
      id uuid not null,
      delivery_id uuid not null,
      ${ATTEMPT_COLUMNS},
      primary key (id, started_at)
    ) partition by range (started_at)`);

    for (const { table, key } of TABLES) {
      this.addSql(`create table ${table}_default partition of ${table} default`);
      // Weeks start on Monday, 00:00 UTC; partitions are named after that day.
      this.addSql(`do $$
        declare w timestamptz;
        begin
          w := date_trunc('week', coalesce((select min(${key}) from ${table}_unpartitioned), now()) at time zone 'UTC')
            at time zone 'UTC';
          while w < date_trunc('week', now() at time zone 'UTC') at time zone 'UTC' + interval '5 weeks' loop
            execute format('create table %I partition of ${table} for values from (%L) to (%L)',
              '${table}_p' || to_char(w at time zone 'UTC', 'YYYYMMDD'), w, w + interval '1 week');
            w := w + interval '1 week';
          end loop;
        end $$`);
    }

    this.addSql("insert into webhook_deliveries select * from webhook_deliveries_unpartitioned");
    this.addSql("insert into webhook_attempts select * from webhook_attempts_unpartitioned");
    this.addSql("drop table webhook_attempts_unpartitioned");
    this.addSql("drop table webhook_deliveries_unpartitioned");

    this.addSql("create index webhook_deliveries_id_idx on webhook_deliveries (id)");
    for (const sql of INDEXES) this.addSql(sql);

    this.addSql(DELETE_ATTEMPTS_TRIGGER);
  }

  override async down(): Promise<void> {
    this.addSql("drop trigger webhook_deliveries_delete_attempts on webhook_deliveries");
    this.addSql("alter table webhook_deliveries rename to webhook_deliveries_partitioned");
    this.addSql("alter table webhook_attempts rename to webhook_attempts_partitioned");
    this.addSql(
      `create table webhook_deliveries (like webhook_deliveries_partitioned including defaults including constraints)`,
    );
    this.addSql(
      `create table webhook_attempts (like webhook_attempts_partitioned including defaults including constraints)`,
    );
    this.addSql("insert into webhook_deliveries select * from webhook_deliveries_partitioned");
    this.addSql("insert into webhook_attempts select * from webhook_attempts_partitioned");
    this.addSql("drop table webhook_attempts_partitioned");
    this.addSql("drop table webhook_deliveries_partitioned");
    this.addSql("alter table webhook_deliveries add primary key (id)");
    this.addSql("alter table webhook_attempts add primary key (id)");
    for (const sql of INDEXES) this.addSql(sql);
    this.addSql(DELETE_ATTEMPTS_TRIGGER);
  }
}
