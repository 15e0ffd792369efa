import type { EventRecord } from "../../core/events/mod.ts";
import type { Queryable } from "./sql.ts";

/** The channel the relay listens on; a notification means "events were committed". */
export const EVENTS_CHANNEL = "laurel_events";

/**
 * The common table expressions that append the events of `source` (a CTE with `id`, `event_type`,
 * `occurred_at`, `detail`) for one organization, the one `?` parameter they take. Every event write
 * goes through them, alone (`appendEvents`) or in the grouped issue statement.
 *
 * One statement bumps `event_counts` by the number of events and inserts them numbered with the
 * following `seq` values, in id order: the counter's row lock is held to commit, so numbers are
 * dense and in commit order, and the list endpoint needs neither `count(*)` nor an offset scan. It
 * is the last lock the statement takes. The same statement notifies the relay with the
 * organization's id, which PostgreSQL delivers at commit (once per transaction and organization),
 * and marks the organization as having unpublished events, so the relay's poll finds it without
 * reading every organization (migration 027), with the earliest time among them (migration 032)
 * and the hour after the latest (migration 033).
 */
export const appendEventsCtes = (source: string): string => `k as (select count(*) as n from ${source}),
  c as (
    insert into event_counts (organization_id, total) select ?::uuid, k.n from k where k.n > 0
    on conflict (organization_id) do update set total = event_counts.total + excluded.total
    returning organization_id, total
  ), p as (
    insert into event_relay_pending as m (organization_id, since, until)
    select c.organization_id, b.since, b.until from c,
      (select min(occurred_at) as since, date_trunc('hour', max(occurred_at)) + interval '1 hour' as until
       from ${source}) b
    on conflict (organization_id) do update
      set since = least(m.since, excluded.since), until = greatest(m.until, excluded.until)
      where m.since > excluded.since or m.until < excluded.until
  ), n as (select pg_notify('${EVENTS_CHANNEL}', c.organization_id::text) as notified from c),
  w as (
    insert into events (id, organization_id, event_type, occurred_at, detail, seq)
    select s.id, c.organization_id, s.event_type, s.occurred_at, s.detail,
      c.total - k.n + row_number() over (order by s.id)
    from ${source} s, c, k, n
  )`;

/** The events of a batch as the one jsonb parameter of `eventsSource`. */
export const eventsJson = (events: readonly EventRecord[], badgeIdOf?: (e: EventRecord) => string | null): string =>
  JSON.stringify(
    events.map((e) => ({
      id: e.id,
      event_type: e.event_type,
      occurred_at: e.occurred_at,
      detail: e.detail,
      ...(badgeIdOf ? { badge_id: badgeIdOf(e) } : {}),
    })),
  );

/** The rows of `eventsJson` (one `?`), with `badge_id` when the batch carries one. */
export const EVENTS_RECORDSET =
  "jsonb_to_recordset(?::jsonb) as ev(id uuid, badge_id uuid, event_type text, occurred_at timestamptz, detail jsonb)";

/**
 * `with`: one more common table expression (with its `?` values) run in the same statement, such as
 * the insert of the row the events describe: the change and its events then commit together in
 * one round trip, even outside a transaction, and the counter's lock is held for the shortest time.
 */
export interface AppendOptions {
  with?: { cte: string; values: unknown[] };
}

/**
 * Appends events in `q` (a transaction when it is one), so an event exists exactly when its change
 * committed. Pass the transaction's `q` down: PGlite has one connection, and a statement outside
 * the transaction would wait for it forever.
 */
export const appendEvents = async (q: Queryable, events: EventRecord[], options: AppendOptions = {}): Promise<void> => {
  if (events.length === 0) return;
  const byOrganization = new Map<string, EventRecord[]>();
  for (const e of events) {
    const list = byOrganization.get(e.organization_id);
    if (list) list.push(e);
    else byOrganization.set(e.organization_id, [e]);
  }
  const before = options.with;
  if (before && byOrganization.size > 1) throw new Error("appendEvents: `with` needs events of one organization");
  // A stable order of organizations: two transactions touching the same two counters cannot deadlock.
  for (const organizationId of [...byOrganization.keys()].sort()) {
    await q.run(
      `with ${before ? `${before.cte}, ` : ""}e as (select * from ${EVENTS_RECORDSET}), ${appendEventsCtes("e")} select 1`,
      [...(before?.values ?? []), eventsJson(byOrganization.get(organizationId) as EventRecord[]), organizationId],
    );
  }
};
