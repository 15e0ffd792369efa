import type { EventRecord, EventStore, EventType, Outbox, OutboxEvent } from "../../core/events/mod.ts";
import type { Database } from "./orm.ts";
import { rawTransaction, sqlAll, toDate, toJson, toNumber } from "./sql.ts";

interface EventRow {
  id: string;
  organization_id: string;
  event_type: string;
  occurred_at: Date;
  detail: unknown;
}

const record = (r: EventRow): EventRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  event_type: r.event_type as EventType,
  occurred_at: toDate(r.occurred_at),
  detail: toJson<Record<string, unknown>>(r.detail),
});

/**
 * The events API's reads. A page is a seek on `(organization_id, seq desc)` just below
 * `total - offset`, with the total from `event_counts` in the same statement: page 1,000 costs what
 * page 1 does, and no request counts the history (migration 004).
 */
export const postgresEventStore = (db: Database): EventStore => ({
  async list(organizationId, page) {
    const rows = await sqlAll<EventRow & { total: string | number }>(
      db.em(),
      `select c.total, e.id, e.organization_id, e.event_type, e.occurred_at, e.detail
       from (select coalesce((select total from event_counts where organization_id = ?::uuid), 0) as total) c
       left join lateral (
         select id, organization_id, event_type, occurred_at, detail, seq from events
         where organization_id = ?::uuid and seq <= c.total - ?::bigint
         order by seq desc limit ?::int
       ) e on true
       order by e.seq desc`,
      [organizationId, organizationId, page.offset, page.per],
    );
    const total = rows.length > 0 ? toNumber(rows[0]?.total) : 0;
    return { items: rows.filter((r) => r.id !== null).map(record), total };
  },
  async get(organizationId, id) {
    const rows = await sqlAll<EventRow>(
      db.em(),
      "select id, organization_id, event_type, occurred_at, detail from events where id = ?::uuid and organization_id = ?::uuid",
      [id, organizationId],
    );
    return rows[0] ? record(rows[0]) : null;
  },
  async workforceAuthorized(organizationId) {
    const rows = await sqlAll<{ workforce_authorized: boolean }>(
      db.em(),
      "select workforce_authorized from organizations where id = ?::uuid",
      [organizationId],
    );
    return rows[0]?.workforce_authorized === true;
  },
});

/**
 * The relay's side of the outbox: `for update skip locked` lets several relays take disjoint
 * batches; rows are marked in the transaction that publishes them, which commits only after the bus
 * stored them, so a crash in between publishes them again (the bus drops the duplicate by msgID within its window, and a later
 * copy finds its delivery already made).
 */
export const postgresOutbox = (db: Database): Outbox => ({
  relayBatch: (limit, publish, now) =>
    rawTransaction(db.em(), async (tx) => {
      // Taken and marked in one statement; the mark only commits once the bus stored them all.
      const rows = await tx.all<OutboxEvent>(
        `update events e set published_at = ?
         from (select id from events where published_at is null order by id limit ?::int for update skip locked) b
         where e.id = b.id
         returning e.id, e.organization_id, e.event_type, e.occurred_at`,
        [now, limit],
      );
      if (rows.length === 0) return 0;
      const events = rows
        .map((r) => ({ ...r, occurred_at: toDate(r.occurred_at) }))
        .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      await publish(events);
      return events.length;
    }),
});

/** Figures for /metrics that only the database knows, each one cheap (no scan of the history). */
export const postgresEventFigures = (db: Database) => ({
  async recordedTotal(): Promise<number> {
    const rows = await sqlAll<{ n: string | number | null }>(db.em(), "select sum(total) as n from event_counts");
    return toNumber(rows[0]?.n ?? 0);
  },
  async unpublished(): Promise<number> {
    const rows = await sqlAll<{ n: string | number }>(
      db.em(),
      "select count(*) as n from events where published_at is null",
    );
    return toNumber(rows[0]?.n ?? 0);
  },
});
