import { Migration } from "@mikro-orm/migrations";

/**
 * A pending mark carries `until` beside `since` (migration 032): no unpublished event of its
 * organization occurred at or after it. The appending statement sets it to the hour after the
 * latest `occurred_at` it appends, and raises it only when an event falls past it, so a busy
 * organization's mark is written about once an hour, not with every event. With both bounds, the
 * relay's read of recent marks names the window of weeks they can hold as parameters, and
 * PostgreSQL leaves the weeks made in advance out of the statement too.
 *
 * Existing marks get the bound of their organization's unpublished events. The default stays:
 * a mark written without it reads as unbounded, which the relay's other read takes.
 */
export class M20261128033RelayPendingUntil extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table event_relay_pending add column until timestamptz not null default 'infinity'");
    this.addSql(`update event_relay_pending p set until = coalesce((
        select date_trunc('hour', max(e.occurred_at)) + interval '1 hour'
        from events e join event_relay_cursors r on r.organization_id = e.organization_id
        where e.organization_id = p.organization_id and e.seq > r.published_seq
      ), 'infinity')`);
  }

  override async down(): Promise<void> {
    this.addSql("alter table event_relay_pending drop column until");
  }
}
