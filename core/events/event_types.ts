/**
 * Every kind the service records, in the order of docs/interface.md, Events and webhooks: the
 * interface's 30, then Laurel's own (`LAUREL_EVENT_TYPES`), for what the interface has no kind of.
 */
export const EVENT_TYPES = [
  "badge.created",
  "badge.deleted",
  "badge.privacy.changed",
  "badge.state.changed",
  "badge_template.created",
  "badge_template.changed",
  "badge_template.deleted",
  "pending_badge_notification.sent",
  "pending_badge_notification.no_user.sent",
  "pending_badge_notification.unconfirmed_email.sent",
  "user.account_merged",
  "user.connect_access.removed",
  "user.public_badges.changed",
  "user.public_badges.added",
  "user.public_badges.removed",
  "employment.badges.added",
  "employment.badges.removed",
  "employment.badges.state_changed",
  "employment.badges.privacy_changed",
  "employment.external_badges.added",
  "employment.external_badges.removed",
  "employment.external_badges.verification_status_changed",
  "employment.created",
  "employment.updated",
  "employment.deleted",
  "employment.connection.pending",
  "employment.connection.accepted",
  "employment.connection.rejected",
  "employment.user_account.associated",
  "employment.user_account.disassociated",
  "endorsement.created",
  "endorsement.state.changed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

type Prefixed<P extends string> = Extract<EventType, `${P}.${string}`>;
export type BadgeEventType = Prefixed<"badge">;
export type BadgeTemplateEventType = Prefixed<"badge_template">;
export type PendingNotificationEventType = Prefixed<"pending_badge_notification">;
export type PublicBadgesEventType = Prefixed<"user.public_badges">;
export type EmploymentEventType = Prefixed<"employment">;
export type EndorsementEventType = Prefixed<"endorsement">;
/** Employment kinds whose detail also carries the `badge` that came or went. */
export type EmploymentBadgeEventType = "employment.badges.added" | "employment.badges.removed";

/** Families group kinds that share one detail shape (docs/interface.md, Events and webhooks). */
export const EVENT_FAMILIES = [
  "badge",
  "badge_template",
  "pending_badge_notification",
  "user.account_merged",
  "user.connect_access.removed",
  "user.public_badges",
  "employment",
  "endorsement",
] as const;
export type EventFamily = (typeof EVENT_FAMILIES)[number];

export const eventFamily = (type: EventType): EventFamily => {
  if (type === "user.account_merged" || type === "user.connect_access.removed") return type;
  if (type.startsWith("user.public_badges.")) return "user.public_badges";
  // The first segment of every other kind is its family.
  return type.slice(0, type.indexOf(".")) as EventFamily;
};

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

const ofFamily = <T extends EventType>(family: EventFamily) =>
  EVENT_TYPES.filter((t) => eventFamily(t) === family) as T[];

export const BADGE_EVENT_TYPES: readonly BadgeEventType[] = ofFamily<BadgeEventType>("badge");
export const BADGE_TEMPLATE_EVENT_TYPES: readonly BadgeTemplateEventType[] =
  ofFamily<BadgeTemplateEventType>("badge_template");
export const PENDING_NOTIFICATION_EVENT_TYPES: readonly PendingNotificationEventType[] =
  ofFamily<PendingNotificationEventType>("pending_badge_notification");
export const PUBLIC_BADGES_EVENT_TYPES: readonly PublicBadgesEventType[] =
  ofFamily<PublicBadgesEventType>("user.public_badges");
export const EMPLOYMENT_EVENT_TYPES: readonly EmploymentEventType[] = ofFamily<EmploymentEventType>("employment");
/**
 * Laurel's own kinds, beyond the interface's: an endorsement between organizations (OB 3.0) was
 * given, or was accepted, rejected or withdrawn. Recorded for both organizations; a webhook gets
 * them when it chose them or chose every kind.
 */
export const ENDORSEMENT_EVENT_TYPES: readonly EndorsementEventType[] = ofFamily<EndorsementEventType>("endorsement");
export const LAUREL_EVENT_TYPES: readonly EventType[] = ENDORSEMENT_EVENT_TYPES;
