import { Migration } from "@mikro-orm/migrations";

/** An event's columns after its id; migration 030 makes the partitioned table with the same ones. */
export const EVENT_COLUMNS = `organization_id uuid not null references organizations(id) on delete cascade,
      event_type text not null,
      occurred_at timestamptz(3) not null,
      detail jsonb not null`;

/**
 * The events table is the outbox: a row is written in the transaction of the change
 * that causes it; the relay publishes rows whose `published_at` is null.
 */
export class M20261122002Events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table events (
      id uuid primary key,
      ${EVENT_COLUMNS},
      published_at timestamptz(3) null
    )`);
    // Listing is newest first per organization; ids are UUIDv7, so id order is time order.
    this.addSql("create index events_org_id_idx on events (organization_id, id desc)");
    this.addSql("create index events_unpublished_idx on events (id) where published_at is null");
  }

  override async down(): Promise<void> {
    this.addSql("drop table events");
  }
}
