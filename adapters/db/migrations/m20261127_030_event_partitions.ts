import { Migration } from "@mikro-orm/migrations";
import { EVENT_COLUMNS } from "./m20261122_002_events.ts";

/** Every index of `events` but its primary key, as migrations 002, 004, 012 and 025 made them. */
const INDEXES = [
  // Newest first by id (UUIDv7, so time order).
  "create index events_org_id_idx on events (organization_id, id desc)",
  "create index events_org_type_seq_idx on events (organization_id, event_type, seq desc)",
  "create index events_org_occurred_idx on events (organization_id, occurred_at desc)",
  "create index events_badge_idx on events (organization_id, ((detail -> 'badge' ->> 'id')), id desc) where detail -> 'badge' is not null",
] as const;

/** Every index of `events` but its primary key, dropped from the table it replaces so the new one takes the names. */
const INDEX_NAMES = [
  "events_org_id_idx",
  "events_org_seq_idx",
  "events_org_type_seq_idx",
  "events_org_occurred_idx",
  "events_badge_idx",
] as const;

/** Migration 006's cascade: deleting events deletes their deliveries. */
const DELETE_DELIVERIES_TRIGGER = `create trigger events_delete_deliveries after delete on events
      referencing old table as gone for each statement execute function laurel_delete_event_deliveries()`;

/**
 * Fills the new `events` from the table it replaces, drops that one, then builds the indexes (the
 * sequence index on `seqKey`) and the cascade trigger: indexes built after the copy cost less.
 */
const refill = (from: string, seqKey: string): string[] => [
  `insert into events (id, organization_id, event_type, occurred_at, detail, seq)
      select id, organization_id, event_type, occurred_at, detail, seq from ${from}`,
  `drop table ${from}`,
  `create unique index events_org_seq_idx on events ${seqKey}`,
  ...INDEXES,
  DELETE_DELIVERIES_TRIGGER,
];

/**
 * `events` is partitioned by week on `occurred_at`, so that `EVENT_RETENTION_DAYS` removes old
 * events by dropping whole partitions (no bulk DELETE, indexes that stop growing), as the webhook
 * log is (migration 029), by the same partition maintenance.
 *
 * A partitioned table's unique keys must hold the partition key:
 * - The primary key is `(id, occurred_at)`. It is exactly as unique as `id`: an event id is a new
 *   UUIDv7 of the event and is written once, with its one time. A look-up by `id` alone still reads
 *   this index, once per partition.
 * - `events_org_seq_idx` is unique on `(organization_id, seq desc, occurred_at)`, the same seek for
 *   the list and the relay. `seq` cannot repeat within an organization because the statement that
 *   appends events numbers them from `event_counts.total` under that counter's row lock, held to
 *   commit (migration 004); the index no longer checks it across weeks.
 * - A default partition takes a row outside every week (a clock far off); partition maintenance
 *   moves such rows into the week it creates.
 *
 * Existing rows are copied into weekly partitions covering them and four weeks ahead, the indexes
 * are built after the copy, and migration 006's trigger (deleting an event deletes its deliveries)
 * is put back. Dropping a partition fires no delete trigger: the deliveries of dropped events stay
 * until their own retention.
 */
export class M20261127030EventPartitions extends Migration {
  override async up(): Promise<void> {
    this.addSql("drop trigger events_delete_deliveries on events");
    this.addSql("alter table events rename to events_unpartitioned");
    // The new table's constraints and indexes take the names these hold.
    this.addSql("alter table events_unpartitioned drop constraint events_pkey");
    this.addSql("alter table events_unpartitioned drop constraint events_organization_id_fkey");
    for (const idx of INDEX_NAMES) this.addSql(`drop index ${idx}`);

    this.addSql(`create table events (
      id uuid not null,
      ${EVENT_COLUMNS},
      seq bigint not null,
      primary key (id, occurred_at)
    ) partition by range (occurred_at)`);
    this.addSql("create table events_default partition of events default");
    // Weeks start on Monday, 00:00 UTC; partitions are named after that day.
    this.addSql(`do $$
      declare w timestamptz;
      begin
        w := date_trunc('week', coalesce((select min(occurred_at) from events_unpartitioned), now()) at time zone 'UTC')
          at time zone 'UTC';
        while w < date_trunc('week', now() at time zone 'UTC') at time zone 'UTC' + interval '5 weeks' loop
          execute format('create table %I partition of events for values from (%L) to (%L)',
            'events_p' || to_char(w at time zone 'UTC', 'YYYYMMDD'), w, w + interval '1 week');
          w := w + interval '1 week';
        end loop;
      end $$`);

    for (const sql of refill("events_unpartitioned", "(organization_id, seq desc, occurred_at)")) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql("drop trigger events_delete_deliveries on events");
    this.addSql("alter table events rename to events_partitioned");
    this.addSql("alter table events_partitioned drop constraint events_organization_id_fkey");
    for (const idx of INDEX_NAMES) this.addSql(`drop index ${idx}`);
    this.addSql("alter table events_partitioned drop constraint events_pkey");
    this.addSql(`create table events (
      id uuid primary key,
      ${EVENT_COLUMNS},
      seq bigint not null
    )`);
    for (const sql of refill("events_partitioned", "(organization_id, seq desc)")) this.addSql(sql);
  }
}
