import type { EventType } from "./event_types.ts";

/**
 * One row of the events table (the outbox). `detail` holds only the kind's own fields
 * (the content of its kind), as a JSON snapshot taken in the transaction of the change;
 * id, organization and time live in their columns and are merged back by `eventDetail`.
 */
export interface EventRecord {
  id: string;
  organization_id: string;
  event_type: EventType;
  occurred_at: Date;
  detail: Record<string, unknown>;
}

/** Passed in by the caller: a UUIDv7 id (time-ordered) and the transaction's clock. */
export interface EventContext {
  id: string;
  organization_id: string;
  occurred_at: Date;
}
