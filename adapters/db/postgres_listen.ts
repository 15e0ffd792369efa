import type { Database } from "./database.ts";
import { EVENTS_CHANNEL } from "./postgres_event_log.ts";
import type { Listening } from "./sql.ts";

export type EventsListener = Listening;

/**
 * LISTENs for `appendEvents`' notifications on a connection of its own, so the relay wakes as soon
 * as events commit; the payload names the organization whose events committed. Null on PGlite,
 * which the relay polls instead.
 */
export const listenForEvents = (
  db: Database,
  onNotify: (organizationId?: string) => void,
  onError: (err: unknown) => void,
): Promise<EventsListener | null> => db.listen(EVENTS_CHANNEL, (payload) => onNotify(payload || undefined), onError);
