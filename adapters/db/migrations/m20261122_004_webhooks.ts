import { Migration } from "@mikro-orm/migrations";

/**
 * A delivery's and an attempt's columns after their keys, in order. Migration 029 makes the
 * partitioned tables with the same ones and copies the rows across with `select *`, so the two
 * must not differ.
 */
export const DELIVERY_COLUMNS = `event_type text not null,
      occurred_at timestamptz(3) not null,
      status text not null check (status in ('pending', 'delivering', 'succeeded', 'failed')),
      attempts_count integer not null default 0,
      first_attempt_at timestamptz(3) null,
      last_attempt_at timestamptz(3) null,
      next_attempt_at timestamptz(3) null,
      succeeded_at timestamptz(3) null,
      lease_until timestamptz(3) null,
      claim_token text null,
      due_at timestamptz(3) null,
      created_at timestamptz(3) not null`;
export const ATTEMPT_COLUMNS = `attempt_number integer not null,
      started_at timestamptz(3) not null,
      duration_ms integer not null,
      status_code integer null,
      error text null,
      response_excerpt text null,
      outcome text not null`;

/**
 * Event listing counters and webhook delivery state. SQL valid on PostgreSQL 15.
 *
 * - `event_counts` holds each organization's number of events, kept in the transaction that appends
 *   them; `events.seq` numbers an organization's events 1, 2, 3... in that same transaction. The row
 *   lock on the counter serializes appends per organization, so `seq` is dense, gapless and follows
 *   commit order: page N of the newest-first list is the seq range just below `total - (N-1)*50`,
 *   one index seek whatever N is, and no `count(*)`.
 * - `webhook_settings`: the organization's webhook_url, chosen kinds and sealed signing secrets.
 * - `webhook_deliveries` / `webhook_attempts`: every delivery of an event and every attempt of it.
 *   `due_at` is the scheduler's key: when the delivery next needs a message on JetStream (its next
 *   attempt, the end of a worker's lease, or a re-dispatch safety net); null once it has ended.
 */
export class M20261122004Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table organizations add column workforce_authorized boolean not null default false");

    this.addSql("alter table events add column seq bigint null");
    this.addSql(`update events e set seq = r.rn
      from (select id, row_number() over (partition by organization_id order by id) as rn from events) r
      where e.id = r.id`);
    this.addSql("alter table events alter column seq set not null");
    this.addSql("create unique index events_org_seq_idx on events (organization_id, seq desc)");
    this.addSql(`create table event_counts (
      organization_id uuid primary key references organizations(id) on delete cascade,
      total bigint not null
    )`);
    this.addSql(
      "insert into event_counts (organization_id, total) select organization_id, count(*) from events group by 1",
    );

    this.addSql(`create table webhook_settings (
      organization_id uuid primary key references organizations(id) on delete cascade,
      webhook_url text null,
      event_types jsonb not null default '[]',
      secret_sealed text null,
      previous_secret_sealed text null,
      previous_secret_expires_at timestamptz(3) null,
      updated_at timestamptz(3) not null
    )`);

    this.addSql(`create table webhook_deliveries (
      id uuid primary key,
      event_id uuid not null references events(id) on delete cascade,
      organization_id uuid not null references organizations(id) on delete cascade,
      ${DELIVERY_COLUMNS}
    )`);
    this.addSql("create index webhook_deliveries_due_idx on webhook_deliveries (due_at) where due_at is not null");
    this.addSql("create index webhook_deliveries_event_idx on webhook_deliveries (event_id, created_at desc)");
    this.addSql(
      "create index webhook_deliveries_org_idx on webhook_deliveries (organization_id, created_at desc, id desc)",
    );
    this.addSql(
      "create index webhook_deliveries_failed_idx on webhook_deliveries (organization_id, last_attempt_at) where status = 'failed'",
    );

    this.addSql(`create table webhook_attempts (
      id uuid primary key,
      delivery_id uuid not null references webhook_deliveries(id) on delete cascade,
      ${ATTEMPT_COLUMNS}
    )`);
    this.addSql("create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempt_number)");
  }

  override async down(): Promise<void> {
    this.addSql("drop table webhook_attempts");
    this.addSql("drop table webhook_deliveries");
    this.addSql("drop table webhook_settings");
    this.addSql("drop table event_counts");
    this.addSql("drop index events_org_seq_idx");
    this.addSql("alter table events drop column seq");
    this.addSql("alter table organizations drop column workforce_authorized");
  }
}
