import type { EventRecord } from "../events/mod.ts";

/** A notification mail of a badge still in the outbox: waiting for (another) attempt, or given up. */
export interface QueuedNotification {
  id: string;
  to: string;
  created_at: Date;
  attempts: number;
  last_error: string | null;
  failed_at: Date | null;
}

/** What the console's badge page reads besides the badge: its events and its mails not yet sent. */
export interface BadgeActivityStore {
  /** The organization's events about the badge, newest first, at most `limit`. */
  badgeEvents(organizationId: string, badgeId: string, limit: number): Promise<EventRecord[]>;
  /** The badge's notification mails still in the outbox, newest first. */
  queuedNotifications(organizationId: string, badgeId: string): Promise<QueuedNotification[]>;
}

export type DeliveryStatus =
  | { kind: "queued"; mail: QueuedNotification }
  | { kind: "failed"; mail: QueuedNotification }
  | { kind: "sent"; at: Date; to: string }
  | { kind: "none" };

export const BADGE_EVENTS_SHOWN = 50;

const SENT = /^pending_badge_notification\..*sent$/;

/**
 * Where the badge's latest notification stands: a mail still in the outbox is the latest (a sent
 * one leaves it); else the latest `pending_badge_notification.*` event says when it went; else none went.
 */
export const deliveryStatus = (
  events: readonly EventRecord[],
  queued: readonly QueuedNotification[],
): DeliveryStatus => {
  const mail = queued[0];
  if (mail) return mail.failed_at ? { kind: "failed", mail } : { kind: "queued", mail };
  const sent = events.find((e) => SENT.test(e.event_type));
  if (!sent) return { kind: "none" };
  const to = (sent.detail as { recipient_email?: unknown }).recipient_email;
  return { kind: "sent", at: sent.occurred_at, to: typeof to === "string" ? to : "" };
};

/** The badge's events and its notification's delivery status. */
export const badgeActivity = async (
  store: BadgeActivityStore,
  organizationId: string,
  badgeId: string,
): Promise<{ events: EventRecord[]; delivery: DeliveryStatus }> => {
  const [events, queued] = await Promise.all([
    store.badgeEvents(organizationId, badgeId, BADGE_EVENTS_SHOWN),
    store.queuedNotifications(organizationId, badgeId),
  ]);
  return { events, delivery: deliveryStatus(events, queued) };
};
