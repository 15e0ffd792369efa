import type {
  EVENT_LIST,
  EventListQuery,
  EventRecord,
  EventStore,
  Outbox,
  OutboxEvent,
} from "../../core/events/mod.ts";
import type { PageRequest } from "../../core/shared/mod.ts";
import type { Database } from "./database.ts";
import { type ListTable, listWhere } from "./list_sql.ts";
import type { EventRow } from "./rows.ts";
import { arrayLiteral, type Queryable, statement, toDate, toJson, toNumber } from "./sql.ts";

/** An event as the lists read it (every column but `seq`). */
type EventFields = Omit<EventRow, "seq">;

const record = (r: EventFields): EventRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  event_type: r.event_type,
  occurred_at: toDate(r.occurred_at),
  detail: toJson<Record<string, unknown>>(r.detail),
});

const EVENTS: ListTable<keyof typeof EVENT_LIST.filters, never> = {
  filters: { event_type: "event_type", occurred_at: "occurred_at" },
  sorts: {},
  id: "seq",
};

/**
 * A filtered page: the matching events newest first (the kind's index, or the time index for a
 * time range) and their count, which grows with the matches, not with the whole history.
 */
const filteredList = async (db: Database, organizationId: string, query: EventListQuery, page: PageRequest) => {
  const where = listWhere(EVENTS, query, ["organization_id = ?::uuid"], [organizationId]);
  const [items, counted] = await Promise.all([
    db.all<EventFields>(
      `select id, organization_id, event_type, occurred_at, detail from events where ${where.sql}
       order by seq desc limit ?::int offset ?::int`,
      [...where.params, page.per, page.offset],
    ),
    db.all<{ n: string | number }>(`select count(*) as n from events where ${where.sql}`, where.params),
  ]);
  return { items: items.map(record), total: toNumber(counted[0]?.n) };
};

/**
 * The events API's reads. A page is a seek on `(organization_id, seq desc)` just below
 * `total - offset`, with the total from `event_counts` in the same statement: page 1,000 costs what
 * page 1 does, and no request counts the history (migration 004).
 *
 * Weeks dropped by `EVENT_RETENTION_DAYS` take an organization's oldest numbers with them, so the
 * count is the numbers from its oldest kept event up to its counter: the oldest is one seek per
 * weekly partition, as the page itself is. Around a dropped week's end, an event committed after
 * one of the following week may be older than it and gone while that one stays; the count is off
 * by such events only.
 */
export const postgresEventStore = (db: Database): EventStore => ({
  async list(organizationId, query, page) {
    if (Object.keys(query.filters).length > 0) return filteredList(db, organizationId, query, page);
    const rows = await db.all<EventFields & { kept: string | number }>(
      `select c.total - coalesce(
           (select seq - 1 from events where organization_id = ?::uuid order by seq limit 1), c.total
         ) as kept,
         e.id, e.organization_id, e.event_type, e.occurred_at, e.detail
       from (select coalesce((select total from event_counts where organization_id = ?::uuid), 0) as total) c
       left join lateral (
         select id, organization_id, event_type, occurred_at, detail, seq from events
         where organization_id = ?::uuid and seq <= c.total - ?::bigint
         order by seq desc limit ?::int
       ) e on true
       order by e.seq desc`,
      [organizationId, organizationId, organizationId, page.offset, page.per],
    );
    const total = rows.length > 0 ? toNumber(rows[0]?.kept) : 0;
    return { items: rows.filter((r) => r.id !== null).map(record), total };
  },
  async get(organizationId, id) {
    const rows = await db.all<EventFields>(
      "select id, organization_id, event_type, occurred_at, detail from events where id = ?::uuid and organization_id = ?::uuid",
      [id, organizationId],
    );
    return rows[0] ? record(rows[0]) : null;
  },
  async workforceAuthorized(organizationId) {
    const rows = await db.all<{ workforce_authorized: boolean }>(
      "select workforce_authorized from organizations where id = ?::uuid",
      [organizationId],
    );
    return rows[0]?.workforce_authorized === true;
  },
});

/**
 * Removes the pending mark of organizations whose cursor reached their counter. The counters are
 * locked `for share` first (in id order, as writers lock them), and read again under the lock: a
 * writer between its counter update and its commit holds that row, so it commits first and its
 * new events keep the mark, or it waits for this commit and inserts the mark again.
 */
const unmarkCaughtUp = async (tx: Queryable, organizations: Set<string>, cursors: Map<string, number>) => {
  const locked = await tx.all<{ organization_id: string; total: string | number }>(
    `select organization_id, total from event_counts
     where organization_id in (select o::uuid from json_array_elements_text(?::json) as j(o))
     order by organization_id for share`,
    [JSON.stringify([...organizations])],
  );
  const done = locked
    .filter((r) => toNumber(r.total) <= (cursors.get(r.organization_id) ?? 0))
    .map((r) => r.organization_id);
  if (done.length === 0) return;
  await tx.run(
    "delete from event_relay_pending where organization_id in (select o::uuid from json_array_elements_text(?::json) as j(o))",
    [JSON.stringify(done)],
  );
};

/**
 * The relay's read: the organizations with unpublished events (locked), then each one's next
 * events. Named statements, planned once per connection: the poll runs every second on every
 * relay, and the lateral probes over every weekly partition are costly to plan.
 *
 * A probe names the organization's `since` (migration 032), read in the same statement as the
 * events, so the weeks before it are pruned as the probe runs and never hide one of its events. The
 * statement still sets up a scan of every kept week (and of every week made in advance) before it
 * runs, unless parameters bound the time: the recent read takes the organizations whose mark lies
 * within `RECENT_MS` before now and `AHEAD_MS` after it (`since` and `until`, migration 033), with
 * that window as parameters, so PostgreSQL leaves the other weeks out of the statement; the other
 * read, only when marks outside it exist (a back-dated event, an outage of more than a week, a clock
 * far ahead), takes the rest (first, up to half of the batch). A window is safe whatever its value:
 * a mark read inside it bounds its organization's events in the same snapshot. (A bound taken from
 * the marks by an earlier statement would not be: a mark made or moved in between would have events
 * outside it, skipped, and the cursor moved past them.)
 */
const relayRead = (locked: string, window: boolean): string =>
  `with l as (${locked}
   ), c as (
     select organization_id, published_seq, total, since,
       least(total, published_seq + ?::int / count(*) over () + 1) as upto
     from l
   )
   select e.id, e.organization_id, e.event_type, round(date_part('epoch', e.occurred_at) * 1000) as occurred_ms,
     e.seq::float8 as seq, c.total::float8 as total
   from c cross join lateral (
     select id, organization_id, event_type, occurred_at, seq from events
     where organization_id = c.organization_id and seq > c.published_seq and seq <= c.upto
       and occurred_at >= c.since${window ? " and occurred_at >= ?::timestamptz and occurred_at < ?::timestamptz" : ""}
     order by seq limit ?::int
   ) e
   order by e.seq - c.published_seq, e.organization_id
   limit ?::int`;

/** The recent read's window: this week's and last week's partitions, and the next if within a day. */
const RECENT_MS = 7 * 86_400_000;
const AHEAD_MS = 86_400_000;
/** Of the marks (their two times): those within the window (`?` its start and end), or the others. */
type Times = { since: string; until: string };
type Marks = (m: Times) => string;
const INSIDE: Marks = (m) => `${m.since} >= ?::timestamptz and ${m.until} <= ?::timestamptz`;
const OUTSIDE: Marks = (m) => `not (${INSIDE(m)})`;

/** The organizations named by notifications (`?`, a JSON array of ids), in a `where`. */
const NAMED_ORGANIZATIONS = "in (select o::uuid from json_array_elements_text(?::json) as j(o))";

/**
 * Organizations named by notifications: their cursors, when behind their counters. Either read
 * leaves out the organizations the batch took already (whose cursors it holds: `?`, an array).
 */
const named = (which: Marks): string =>
  `select r.organization_id, r.published_seq, n.total, coalesce(p.since, '-infinity') as since
     from event_relay_cursors r join event_counts n on n.organization_id = r.organization_id
     left join event_relay_pending p on p.organization_id = r.organization_id
     where r.organization_id ${NAMED_ORGANIZATIONS}
       and n.total > r.published_seq and ${which({ since: "coalesce(p.since, '-infinity')", until: "coalesce(p.until, 'infinity')" })}
       and r.organization_id <> all(?::uuid[])
     limit ?::int
     for update of r skip locked`;
/** The organizations marked pending (migration 027). */
const pending = (which: Marks): string =>
  `select r.organization_id, r.published_seq, n.total, p.since
     from event_relay_pending p
     cross join lateral (
       select organization_id, published_seq from event_relay_cursors
       where organization_id = p.organization_id for update skip locked
     ) r
     cross join lateral (select total from event_counts where organization_id = p.organization_id offset 0) n
     where n.total > r.published_seq and ${which({ since: "p.since", until: "p.until" })}
       and p.organization_id <> all(?::uuid[])
     limit ?::int`;
const OUTSIDE_MARKS = (names: string): string =>
  `select exists (select 1 from event_relay_pending p where ${OUTSIDE({ since: "p.since", until: "p.until" })}${names}) as any`;
const READS = {
  named: {
    recent: statement("relay_named", relayRead(named(INSIDE), true)),
    outside: statement("relay_named_outside", relayRead(named(OUTSIDE), false)),
    any: statement("relay_named_any_outside", OUTSIDE_MARKS(` and p.organization_id ${NAMED_ORGANIZATIONS}`)),
  },
  pending: {
    recent: statement("relay_pending", relayRead(pending(INSIDE), true)),
    outside: statement("relay_pending_outside", relayRead(pending(OUTSIDE), false)),
    any: statement("relay_pending_any_outside", OUTSIDE_MARKS("")),
  },
} as const;

type RelayRow = Omit<OutboxEvent, "occurred_at"> & { occurred_ms: number; seq: number; total: number };

/**
 * The relay's side of the outbox (migration 005): per organization, the events above its cursor
 * (`event_relay_cursors.published_seq`) and at most its committed `event_counts.total` are
 * unpublished. A batch locks the cursors of organizations with such events (`skip locked`: several
 * relays take disjoint organizations), takes their next events in `seq` order (the first pending
 * event of each organization, then the second..., so one busy organization cannot starve the
 * others), and moves each cursor past what it took in the transaction that publishes them, which
 * commits only after the bus stored them all. A crash in between publishes them again; the bus drops
 * the copies by msgID within its window, and a later copy finds its delivery already made. The
 * batch that brings a cursor up to its counter removes the organization's pending mark.
 */
export const postgresOutbox = (db: Database): Outbox => ({
  relayBatch: (limit, publish, organizations) =>
    db.transaction(async (tx) => {
      // Without names, the organizations marked pending (migration 027) are read, not every one:
      // a poll costs what the pending work does, however many organizations there are.
      // `seq` is dense, so an organization's next events are the seq range just above its cursor.
      // Each of the k organizations locked gets a window of limit/k + 1 of them, bounded by range
      // (`upto`, an index condition), so a batch reads at most limit + k rows whatever the
      // statistics say. The LIMIT inside keeps the lateral one index scan per organization: without
      // it, once the planner expected 500 organizations it chose a hash join over the whole events
      // table; with an ORDER BY ... LIMIT alone and stale statistics, it read and sorted every
      // pending event of the organization for each batch, a cost that grows with the backlog.
      // The pending path is lateral, each subquery a fence (`for update`, `offset 0`), so it stays
      // one index probe per marked organization even when the planner, misled by a small or fresh
      // table's statistics, would hash-join every counter and cursor.
      // The time as epoch milliseconds and the numbers as float8 (exact to 2^53): numbers, where pg
      // parses a timestamptz's text with a regular expression and hands a bigint over as a string,
      // a large part of the poll's own CPU (docs/benchmarks.md, scale).
      const names = organizations ? [JSON.stringify(organizations)] : [];
      const reads = READS[organizations ? "named" : "pending"];
      const at = Date.now();
      const window = [new Date(at - RECENT_MS), new Date(at + AHEAD_MS)];
      const rows: RelayRow[] = [];
      /** One of the two reads, `limit` events at most, leaving out the organizations taken already. */
      const read = async (which: "recent" | "outside", limit: number): Promise<void> => {
        const taken = arrayLiteral([...new Set(rows.map((r) => r.organization_id))]);
        const bound = which === "recent" ? window : [];
        rows.push(
          ...(await tx.prepared<RelayRow>(reads[which], [
            ...names,
            ...window,
            taken,
            limit,
            limit,
            ...bound,
            limit,
            limit,
          ])),
        );
      };
      // Marks outside the window are rare (a back-dated event, an outage of more than a week) and
      // get up to half of the batch first, so a busy stream of recent events cannot keep them waiting.
      const [outside] = await tx.prepared<{ any: boolean }>(reads.any, [...window, ...names]);
      if (outside?.any) await read("outside", Math.ceil(limit / 2));
      if (rows.length < limit) await read("recent", limit - rows.length);
      if (rows.length === 0) return 0;
      const cursors = new Map<string, number>();
      /** Organizations whose cursor reaches the counter as read: their pending mark may go. */
      const caughtUp = new Set<string>();
      const events = rows.map((r) => {
        cursors.set(r.organization_id, r.seq);
        if (r.seq >= r.total) caughtUp.add(r.organization_id);
        else caughtUp.delete(r.organization_id);
        return {
          id: r.id,
          organization_id: r.organization_id,
          event_type: r.event_type,
          occurred_at: new Date(r.occurred_ms),
        };
      });
      await publish(events);
      await tx.run(
        `update event_relay_cursors r set published_seq = v.seq
         from json_to_recordset(?::json) as v(organization_id uuid, seq bigint)
         where r.organization_id = v.organization_id`,
        [JSON.stringify([...cursors].map(([organization_id, seq]) => ({ organization_id, seq })))],
      );
      await tx.run("update event_relay_published set total = total + ?::bigint where slot = pg_backend_pid() % 16", [
        events.length,
      ]);
      if (caughtUp.size > 0) await unmarkCaughtUp(tx, caughtUp, cursors);
      return events.length;
    }),
});

/**
 * The backlog of the organizations marked pending: the only ones with unpublished events, so the
 * sum reads as many rows as there is pending work. Lateral probes (each fenced by `offset 0`), as in
 * the relay's poll: as a plain join the planner hash-joined every counter and cursor.
 */
const UNPUBLISHED = `select coalesce(sum(n.total - r.published_seq), 0) from event_relay_pending p
  cross join lateral (select total from event_counts where organization_id = p.organization_id offset 0) n
  cross join lateral (
    select published_seq from event_relay_cursors where organization_id = p.organization_id offset 0
  ) r`;

/**
 * Figures for /metrics from counters kept as the work happens (migration 027): events published
 * (the relay's slots) plus the pending backlog. No scrape reads every organization.
 */
export const postgresEventFigures = (db: Database) => ({
  async recordedTotal(): Promise<number> {
    const rows = await db.all<{ n: string | number | null }>(
      `select (select coalesce(sum(total), 0) from event_relay_published) + (${UNPUBLISHED}) as n`,
    );
    return toNumber(rows[0]?.n ?? 0);
  },
  async unpublished(): Promise<number> {
    const rows = await db.all<{ n: string | number }>(`select (${UNPUBLISHED}) as n`);
    return toNumber(rows[0]?.n ?? 0);
  },
});
