import type { EventRecord } from "../../core/events/mod.ts";
import type { Em } from "./orm.ts";
import { sqlRun } from "./sql.ts";

/** The channel the relay listens on; a notification means "events were committed". */
export const EVENTS_CHANNEL = "laurel_events";

/**
 * `with`: one more common table expression (with its `?` values) run in the same statement, such as
 * the insert of the row the events describe: the change and its events then commit together in
 * one round trip, even outside a transaction, and the counter's lock is held for the shortest time.
 */
export interface AppendOptions {
  with?: { cte: string; values: unknown[] };
}

/**
 * Appends events inside the caller's transaction (`em` is the transactional EntityManager), so an
 * event exists exactly when its change committed. Pass the same `em` down: PGlite has one
 * connection, and a query through another EntityManager inside a transaction would wait forever.
 *
 * Per organization, one statement bumps `event_counts` and inserts the rows numbered with the
 * following `seq` values (see migration 004): the counter's row lock is held to commit, so numbers
 * are dense and in commit order, and the list endpoint needs neither `count(*)` nor an offset scan.
 * The same statement notifies the relay with the organization's id, which PostgreSQL delivers at
 * commit (and sends once per transaction and organization).
 */
export const appendEvents = async (em: Em, events: EventRecord[], options: AppendOptions = {}): Promise<void> => {
  if (events.length === 0) return;
  const byOrganization = new Map<string, EventRecord[]>();
  for (const e of events) {
    const list = byOrganization.get(e.organization_id);
    if (list) list.push(e);
    else byOrganization.set(e.organization_id, [e]);
  }
  // A stable order of organizations: two transactions touching the same two counters cannot deadlock.
  for (const organizationId of [...byOrganization.keys()].sort()) {
    const group = (byOrganization.get(organizationId) as EventRecord[]).slice().sort((a, b) => (a.id < b.id ? -1 : 1));
    const before = options.with;
    if (before && byOrganization.size > 1) throw new Error("appendEvents: `with` needs events of one organization");
    const values: unknown[] = [...(before?.values ?? []), organizationId, group.length];
    const rows = group.map((e, i) => {
      values.push(e.id, e.event_type, e.occurred_at, JSON.stringify(e.detail), i + 1);
      return "(?::uuid, ?::text, ?::timestamptz, ?::jsonb, ?::bigint)";
    });
    // Bound values (not inlined into the text): the details are the bulk of the statement.
    await sqlRun(
      em,
      `with ${before ? `${before.cte}, ` : ""}c as (
         insert into event_counts (organization_id, total) values (?::uuid, ?::bigint)
         on conflict (organization_id) do update set total = event_counts.total + excluded.total
         returning organization_id, total
       ), n as (select pg_notify('${EVENTS_CHANNEL}', c.organization_id::text) as notified from c)
       insert into events (id, organization_id, event_type, occurred_at, detail, seq)
       select v.id, c.organization_id, v.event_type, v.occurred_at, v.detail, c.total - ${group.length} + v.ord
       from (values ${rows.join(", ")}) as v(id, event_type, occurred_at, detail, ord), c, n`,
      values,
    );
  }
};
