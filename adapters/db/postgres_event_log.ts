import type { EventRecord } from "../../core/events/mod.ts";
import type { Em } from "./orm.ts";

/**
 * Appends events inside the caller's transaction (`em` is the transactional EntityManager), so an
 * event exists exactly when its change committed. Pass the same `em` down: PGlite has one
 * connection, and a query through another EntityManager inside a transaction would wait forever.
 */
export const appendEvents = async (em: Em, events: EventRecord[]): Promise<void> => {
  if (events.length === 0) return;
  const values: unknown[] = [];
  for (const e of events) values.push(e.id, e.organization_id, e.event_type, e.occurred_at, JSON.stringify(e.detail));
  const rows = events.map(() => "(?, ?, ?, ?, ?::jsonb)").join(", ");
  await em
    .getConnection()
    .execute(
      `insert into events (id, organization_id, event_type, occurred_at, detail) values ${rows}`,
      values,
      "run",
      em.getTransactionContext(),
    );
};
