import { Migration } from "@mikro-orm/migrations";

/** The counted changes of one statement, `d` = +1 for a row that now exists, -1 for one that went. */
const countsBody = (changes: string): string => `
  begin
    -- The organizations' event counters first, in one order: an issue holds its counter while it
    -- picks a status index and until commit, so counter rows are only ever locked after it.
    perform 1 from event_counts
      where organization_id in (select organization_id from (${changes}) s)
      order by organization_id for update;
    insert into badge_state_counts as c (organization_id, state, n)
      select s.organization_id, s.state, sum(s.d) from (${changes}) s
        where exists (select 1 from organizations o where o.id = s.organization_id)
        group by s.organization_id, s.state having sum(s.d) <> 0
        order by s.organization_id, s.state
      on conflict (organization_id, state) do update set n = c.n + excluded.n;
    insert into badge_week_counts as c (organization_id, week, issued, accepted)
      select w.organization_id, w.week, sum(w.issued), sum(w.accepted) from (
        select organization_id, badge_week(issued_at) as week, d as issued, 0 as accepted from (${changes}) s
        union all
        select organization_id, badge_week(state_updated_at), 0, d from (${changes}) s where state = 'accepted'
      ) w
        where exists (select 1 from organizations o where o.id = w.organization_id)
        group by w.organization_id, w.week having sum(w.issued) <> 0 or sum(w.accepted) <> 0
        order by w.organization_id, w.week
      on conflict (organization_id, week) do update
        set issued = c.issued + excluded.issued, accepted = c.accepted + excluded.accepted;
    return null;
  end`;

const COUNTED = "organization_id, state, issued_at, state_updated_at";

/**
 * The dashboard counters are kept per statement rather than per badge: a grouped issue of many
 * badges applies one upsert per (organization, state) and per (organization, week) it touched,
 * from the statement's transition table, instead of up to three upserts per badge.
 *
 * Statement triggers are not deferrable, so they run at the end of the statement that changed the
 * badges, not at commit. The lock order stays event counter, then counter rows, on every path:
 * - inserts: the status pick of each new badge locked its organization's event counter before
 *   this trigger runs (and the grouped issue appends its events in the same statement);
 * - updates and deletes (the badge transaction's state changes and deletions, an organization's
 *   deletion cascading to its badges, earner merges moving `user_id`): the trigger itself locks
 *   the event counters of the organizations whose counts change, in organization order, before
 *   any counter row; a transaction that appends its event later already holds that row. Updates
 *   that change no counted column (user, accept token) count nothing and lock nothing.
 * So the counter rows of an organization are only locked by the transaction holding its event
 * counter: no deadlock with it, whatever order a transaction changes its badges in. The counts
 * stay exact: each statement adds the net change of its rows. An organization deleted in the
 * statement (or earlier in the transaction) gets no counter row back: the upserts skip
 * organizations that no longer exist.
 */
export class M20261128031SetBasedBadgeTriggers extends Migration {
  override async up(): Promise<void> {
    this.addSql("drop trigger badge_counts_insert_delete on badges");
    this.addSql("drop trigger badge_counts_update on badges");
    this.addSql("drop function badge_counts_follow()");
    this.addSql("drop function badge_counts_add(uuid, text, timestamptz, timestamptz, integer)");
    this.addSql(`create function badge_counts_inserted() returns trigger language plpgsql as $$
      ${countsBody(`select ${COUNTED}, 1 as d from badge_rows_new`)} $$`);
    this.addSql(`create function badge_counts_deleted() returns trigger language plpgsql as $$
      ${countsBody(`select ${COUNTED}, -1 as d from badge_rows_old`)} $$`);
    // Only the rows whose counted columns changed; the others would add and take back one.
    const changed = `select n.id from badge_rows_new n join badge_rows_old o on o.id = n.id
      where (o.organization_id, o.state, o.issued_at, o.state_updated_at)
        is distinct from (n.organization_id, n.state, n.issued_at, n.state_updated_at)`;
    this.addSql(`create function badge_counts_updated() returns trigger language plpgsql as $$
      ${countsBody(`select ${COUNTED}, 1 as d from badge_rows_new where id in (${changed})
        union all select ${COUNTED}, -1 from badge_rows_old where id in (${changed})`)} $$`);
    this.addSql(`create trigger badge_counts_statement_insert after insert on badges
      referencing new table as badge_rows_new for each statement execute function badge_counts_inserted()`);
    this.addSql(`create trigger badge_counts_statement_delete after delete on badges
      referencing old table as badge_rows_old for each statement execute function badge_counts_deleted()`);
    this.addSql(`create trigger badge_counts_statement_update after update on badges
      referencing old table as badge_rows_old new table as badge_rows_new
      for each statement execute function badge_counts_updated()`);
  }
}
