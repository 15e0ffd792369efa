import { Migration } from "@mikro-orm/migrations";

/**
 * A pending mark (migration 027) carries `since`: no unpublished event of its organization
 * occurred before it. The statement that appends events sets it to the earliest `occurred_at` it
 * appends when it creates the mark, and lowers it when it appends an earlier one; the relay deletes
 * the mark only when the organization is caught up. The relay's probe of an organization's next
 * events then names a lower bound of the partition key, so PostgreSQL prunes the weekly partitions
 * before it at run time (`events` is partitioned by week, migration 030, and kept forever by
 * default): a poll costs what the pending work does, not one index probe per week of history.
 *
 * Existing marks get the earliest time of their organization's unpublished events.
 */
export class M20261128032RelayPendingSince extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table event_relay_pending add column since timestamptz not null default '-infinity'");
    this.addSql(`update event_relay_pending p set since = coalesce((
        select min(e.occurred_at) from events e join event_relay_cursors r on r.organization_id = e.organization_id
        where e.organization_id = p.organization_id and e.seq > r.published_seq
      ), '-infinity')`);
    this.addSql("alter table event_relay_pending alter column since drop default");
  }

  override async down(): Promise<void> {
    this.addSql("alter table event_relay_pending drop column since");
  }
}
