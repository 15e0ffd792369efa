import { Migration } from "@mikro-orm/migrations";

/**
 * The relay keeps one cursor per organization instead of marking each event.
 *
 * An organization's events are numbered 1, 2, 3... in commit order (`seq`, migration 004), so
 * "published up to seq N" says all a per-event `published_at` said, and the relay now writes one
 * row per organization and batch instead of updating every event: events are never updated after
 * they are written (no dead row versions, no index entries to replace, no row-lock conflicts with
 * the deliveries' foreign-key checks). Events with `seq` above the cursor and at most
 * `event_counts.total` are unpublished.
 *
 * A cursor row is made, at 0, when an organization's counter is (trigger below), so no code path
 * that records events can forget it. Existing rows start just below their first unpublished event:
 * anything after it that was already published goes out again, which the bus drops by msgID (or
 * the worker recognises by its delivery), as after a relay crash.
 *
 * Also: a delivery no longer references its organization by a foreign key of its own. It
 * references its event, which references the organization, so deleting an organization still
 * removes its deliveries (and their attempts) by cascade; the second key only cost a row lock on the
 * organization for every delivery written, which concurrent workers turned into multixacts.
 */
export class M20261122005RelayCursors extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table event_relay_cursors (
      organization_id uuid primary key references organizations(id) on delete cascade,
      published_seq bigint not null
    )`);
    this.addSql(`insert into event_relay_cursors (organization_id, published_seq)
      select n.organization_id,
        coalesce((select min(e.seq) - 1 from events e where e.organization_id = n.organization_id and e.published_at is null), n.total)
      from event_counts n`);
    this.addSql(`create function laurel_event_relay_cursor() returns trigger language plpgsql as $$
      begin
        insert into event_relay_cursors (organization_id, published_seq) values (new.organization_id, 0)
        on conflict (organization_id) do nothing;
        return null;
      end $$`);
    this.addSql(`create trigger event_counts_relay_cursor after insert on event_counts
      for each row execute function laurel_event_relay_cursor()`);
    this.addSql("drop index events_unpublished_idx");
    this.addSql("alter table events drop column published_at");
    this.addSql("alter table webhook_deliveries drop constraint webhook_deliveries_organization_id_fkey");
  }

  override async down(): Promise<void> {
    this.addSql(`alter table webhook_deliveries add constraint webhook_deliveries_organization_id_fkey
      foreign key (organization_id) references organizations(id) on delete cascade`);
    this.addSql("alter table events add column published_at timestamptz(3) null");
    this.addSql(`update events e set published_at = now() from event_relay_cursors r
      where r.organization_id = e.organization_id and e.seq <= r.published_seq`);
    this.addSql("create index events_unpublished_idx on events (id) where published_at is null");
    this.addSql("drop trigger event_counts_relay_cursor on event_counts");
    this.addSql("drop function laurel_event_relay_cursor()");
    this.addSql("drop table event_relay_cursors");
  }
}
