import type { PageRequest } from "../shared/mod.ts";
import type { EventListQuery } from "./event_list.ts";
import type { EventRecord } from "./event_record.ts";
import type { EventType } from "./event_types.ts";

/** Reads of the events table for the events API. */
export interface EventStore {
  /**
   * One page of an organization's events, newest first, and how many it has in all. Unfiltered,
   * it must cost the same for page 1 and page 1,000 (see the db adapter for how).
   */
  list(
    organizationId: string,
    query: EventListQuery,
    page: PageRequest,
  ): Promise<{ items: EventRecord[]; total: number }>;
  get(organizationId: string, id: string): Promise<EventRecord | null>;
  /** Whether the organization may see workforce data at read time; false unless recorded so. */
  workforceAuthorized(organizationId: string): Promise<boolean>;
}

/** What the relay puts on the bus for each event: enough to route it and to build the summary. */
export interface OutboxEvent {
  id: string;
  organization_id: string;
  event_type: EventType;
  occurred_at: Date;
}

/** The unpublished events of the events table (the outbox). */
export interface Outbox {
  /**
   * Takes up to `limit` unpublished events no other relay holds, hands them to `publish` (an
   * organization's in the order they were recorded), and marks them published only when `publish`
   * resolved. Returns how many were published. With `organizations`, only theirs are looked at.
   */
  relayBatch(
    limit: number,
    publish: (events: OutboxEvent[]) => Promise<void>,
    organizations?: readonly string[],
  ): Promise<number>;
}

/** Puts events on the bus; resolves once the bus has stored every one (msgID = event id). */
export interface EventPublisher {
  publish(events: readonly OutboxEvent[]): Promise<void>;
}
