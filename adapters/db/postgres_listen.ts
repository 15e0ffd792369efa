import type { Database } from "./database.ts";
import { EVENTS_CHANNEL } from "./postgres_event_log.ts";
import { EXPORTS_CHANNEL } from "./postgres_export_store.ts";
import type { Listening } from "./sql.ts";

export type EventsListener = Listening;

/**
 * LISTENs for `appendEvents`' notifications, so the relay wakes as soon as events commit; the
 * payload names the organization whose events committed. Null when listening failed (the relay
 * then polls).
 */
export const listenForEvents = (
  db: Database,
  onNotify: (organizationId?: string) => void,
  onError: (err: unknown) => void,
): Promise<EventsListener | null> => db.listen(EVENTS_CHANNEL, (payload) => onNotify(payload || undefined), onError);

/** Notified by a trigger whenever a statement queues mail (docs/architecture.md, mail). */
export const MAIL_CHANNEL = "laurel_mail";

/** LISTENs for queued mail, so the mail sender wakes at once; null when listening failed. */
export const listenForMail = (
  db: Database,
  onNotify: () => void,
  onError: (err: unknown) => void,
): Promise<EventsListener | null> => db.listen(MAIL_CHANNEL, () => onNotify(), onError);

/** LISTENs for requested exports, so an idle exporter wakes at once; null when listening failed. */
export const listenForExports = (
  db: Database,
  onNotify: () => void,
  onError: (err: unknown) => void,
): Promise<EventsListener | null> => db.listen(EXPORTS_CHANNEL, () => onNotify(), onError);
