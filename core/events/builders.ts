import type { BadgeStandardShape, BadgeTemplateJson } from "../badges/mod.ts";
import type { Employment } from "./employment.ts";
import type { EventContext, EventRecord } from "./event_record.ts";
import type {
  BadgeEventType,
  BadgeTemplateEventType,
  EmploymentBadgeEventType,
  EmploymentEventType,
  EventType,
  PendingNotificationEventType,
  PublicBadgesEventType,
} from "./event_types.ts";

/**
 * A JSON round trip: the stored detail is exactly what a later read returns, and later changes to
 * the caller's objects cannot leak into an event already recorded.
 */
const snapshot = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The record of one event: the builders below, and a module whose detail core/events cannot name
 * without importing it (core/endorsements builds its own kinds' detail with this).
 */
export const eventRecord = (
  event_type: EventType,
  detail: Record<string, unknown>,
  ctx: EventContext,
): EventRecord => ({
  id: ctx.id,
  organization_id: ctx.organization_id,
  event_type,
  occurred_at: ctx.occurred_at,
  detail: snapshot(detail),
});

/** badge.*: the badge in the standard shape as it is after the change. */
export const badgeEvent = (kind: BadgeEventType, badge: BadgeStandardShape, ctx: EventContext): EventRecord =>
  eventRecord(kind, { badge }, ctx);

/** badge_template.*: the template as its REST JSON, our "standard badge template shape". */
export const badgeTemplateEvent = (
  kind: BadgeTemplateEventType,
  badgeTemplate: BadgeTemplateJson,
  ctx: EventContext,
): EventRecord => eventRecord(kind, { badge_template: badgeTemplate }, ctx);

/**
 * pending_badge_notification.*: the badge and the address
 * the notification went to, since the receiver's likely use is to follow up with that recipient
 * (and for `.no_user.sent` there is no user id to give).
 */
export const pendingBadgeNotificationEvent = (
  kind: PendingNotificationEventType,
  badge: BadgeStandardShape,
  recipientEmail: string,
  ctx: EventContext,
): EventRecord => eventRecord(kind, { badge, recipient_email: recipientEmail }, ctx);

export const accountMergedEvent = (
  users: { source_user_id: string; destination_user_id: string },
  ctx: EventContext,
): EventRecord =>
  eventRecord(
    "user.account_merged",
    { source_user_id: users.source_user_id, destination_user_id: users.destination_user_id },
    ctx,
  );

export const connectAccessRemovedEvent = (userId: string, ctx: EventContext): EventRecord =>
  eventRecord("user.connect_access.removed", { user_id: userId }, ctx);

export const publicBadgesEvent = (
  kind: PublicBadgesEventType,
  userId: string,
  badge: BadgeStandardShape,
  ctx: EventContext,
): EventRecord => eventRecord(kind, { user_id: userId, badge }, ctx);

/**
 * employment.* (other than badges.added/removed): the full employment is stored even for
 * `employment.deleted`; the reduction to `{id, email, external_id}` is applied when read (`eventDetail`), because
 * the organization's workforce authorization may change between recording and reading.
 * `externalBadge`: the workforce module's object, passed through as `external_badge` (its shape:
 * docs/interface.md, Events and webhooks).
 */
export const employmentEvent = (
  kind: Exclude<EmploymentEventType, EmploymentBadgeEventType>,
  employment: Employment,
  ctx: EventContext,
  externalBadge?: Record<string, unknown>,
): EventRecord =>
  eventRecord(kind, externalBadge === undefined ? { employment } : { employment, external_badge: externalBadge }, ctx);

/** employment.badges.added / removed: the employment plus the badge that came or went. */
export const employmentBadgeEvent = (
  kind: EmploymentBadgeEventType,
  employment: Employment,
  badge: BadgeStandardShape,
  ctx: EventContext,
): EventRecord => eventRecord(kind, { employment, badge }, ctx);
