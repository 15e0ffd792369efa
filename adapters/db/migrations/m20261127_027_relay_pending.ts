import { Migration } from "@mikro-orm/migrations";

/**
 * The relay's look at "every organization" reads only organizations with unpublished events.
 *
 * `event_relay_pending` holds one row per organization whose counter is above its cursor: the
 * statement that appends events inserts it (nothing when it is there), and the relay deletes it in
 * the batch that moves the cursor up to the counter, after locking the counter `for share`, so a
 * writer that has not committed yet either still finds the row or inserts it again after the
 * relay's commit. A poll then costs time in proportion to organizations with pending work.
 *
 * The row references the counter, not the organization: the writer already holds the counter's
 * row lock, so the key check takes no lock of its own (see migration 005 on organization locks).
 *
 * `event_relay_published` counts published events as the relay commits them, in 16 slots (by
 * backend) so relays do not queue on one row; /metrics adds the pending organizations' backlogs to
 * it instead of summing every organization's counter on every scrape.
 */
export class M20261127027RelayPending extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table event_relay_pending (
      organization_id uuid primary key references event_counts(organization_id) on delete cascade
    )`);
    this.addSql(`insert into event_relay_pending (organization_id)
      select n.organization_id from event_counts n join event_relay_cursors r on r.organization_id = n.organization_id
      where n.total > r.published_seq`);
    this.addSql("create table event_relay_published (slot smallint primary key, total bigint not null)");
    this.addSql("insert into event_relay_published (slot, total) select s, 0 from generate_series(0, 15) s");
    this.addSql(`update event_relay_published set total = (select coalesce(sum(published_seq), 0) from event_relay_cursors)
      where slot = 0`);
  }

  override async down(): Promise<void> {
    this.addSql("drop table event_relay_published");
    this.addSql("drop table event_relay_pending");
  }
}
