export {
  accountMergedEvent,
  badgeEvent,
  badgeTemplateEvent,
  connectAccessRemovedEvent,
  employmentBadgeEvent,
  employmentEvent,
  eventRecord,
  pendingBadgeNotificationEvent,
  publicBadgesEvent,
} from "./builders.ts";
export type { DetailOptions, EventDetail } from "./detail.ts";
export {
  AccountMergedEventDetailSchema,
  BadgeEventDetailSchema,
  BadgeTemplateEventDetailSchema,
  ConnectAccessRemovedEventDetailSchema,
  EmploymentEventDetailSchema,
  EventDetailSchema,
  eventDetail,
  eventDetailCommon,
  PendingNotificationEventDetailSchema,
  PublicBadgesEventDetailSchema,
} from "./detail.ts";
export type { Employment, ReducedEmployment } from "./employment.ts";
export { EmploymentSchema, employmentSeenBy, ReducedEmploymentSchema, reduceEmployment } from "./employment.ts";
export type { EventListQuery } from "./event_list.ts";
export { EVENT_LIST } from "./event_list.ts";
export type { EventContext, EventRecord } from "./event_record.ts";
export type {
  BadgeEventType,
  BadgeTemplateEventType,
  EmploymentBadgeEventType,
  EmploymentEventType,
  EndorsementEventType,
  EventFamily,
  EventType,
  PendingNotificationEventType,
  PublicBadgesEventType,
} from "./event_types.ts";
export {
  BADGE_EVENT_TYPES,
  BADGE_TEMPLATE_EVENT_TYPES,
  EMPLOYMENT_EVENT_TYPES,
  ENDORSEMENT_EVENT_TYPES,
  EVENT_FAMILIES,
  EVENT_TYPES,
  eventFamily,
  isEventType,
  LAUREL_EVENT_TYPES,
  PENDING_NOTIFICATION_EVENT_TYPES,
  PUBLIC_BADGES_EVENT_TYPES,
} from "./event_types.ts";
export type { EventPublisher, EventStore, Outbox, OutboxEvent } from "./ports.ts";
export { getEvent, listEvents } from "./queries.ts";
export type { WebhookSummary } from "./webhook_summary.ts";
export { WebhookSummarySchema, webhookSummary } from "./webhook_summary.ts";
