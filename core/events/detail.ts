import { type Static, Type } from "typebox";
import { BadgeStandardShapeSchema, BadgeTemplateJsonSchema } from "../badges/mod.ts";
import { isoMillis } from "../shared/mod.ts";
import { type Employment, EmploymentSchema, employmentSeenBy, ReducedEmploymentSchema } from "./employment.ts";
import type { EventRecord } from "./event_record.ts";
import {
  BADGE_EVENT_TYPES,
  BADGE_TEMPLATE_EVENT_TYPES,
  EMPLOYMENT_EVENT_TYPES,
  eventFamily,
  PENDING_NOTIFICATION_EVENT_TYPES,
  PUBLIC_BADGES_EVENT_TYPES,
} from "./event_types.ts";

export interface DetailOptions {
  /** Whether the organization is authorized for workforce data now, at read time. */
  workforceAuthorized: boolean;
}

const COMMON_KEYS = ["id", "organization_id", "event_type", "occurred_at"];

const reduced = (employment: unknown): Record<string, unknown> =>
  employmentSeenBy((typeof employment === "object" && employment !== null ? employment : {}) as Employment, false);

/**
 * The event detail: `id, organization_id, event_type, occurred_at` and the kind's
 * fields. For employment kinds, when the record is deleted or the organization has lost workforce
 * authorization, `employment` shrinks to `{id, email, external_id}` and the employee's `badge` /
 * `external_badge` are withheld too: they are workforce data as much as the employment itself.
 */
export const eventDetail = (record: EventRecord, options: DetailOptions): EventDetail => {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record.detail)) if (!COMMON_KEYS.includes(k)) extra[k] = v;
  if (
    eventFamily(record.event_type) === "employment" &&
    (record.event_type === "employment.deleted" || !options.workforceAuthorized)
  ) {
    extra.employment = reduced(extra.employment);
    delete extra.badge;
    delete extra.external_badge;
  }
  return {
    id: record.id,
    organization_id: record.organization_id,
    event_type: record.event_type,
    occurred_at: isoMillis(record.occurred_at),
    ...extra,
  } as EventDetail;
};

const Uuid = Type.String({ format: "uuid" });
/** What every event detail has, whatever its kind. */
export const eventDetailCommon = {
  id: Uuid,
  organization_id: Uuid,
  occurred_at: Type.String({ format: "date-time" }),
};
const common = eventDetailCommon;

export const BadgeEventDetailSchema = Type.Object({
  ...common,
  event_type: Type.Enum(BADGE_EVENT_TYPES),
  badge: BadgeStandardShapeSchema,
});
export const BadgeTemplateEventDetailSchema = Type.Object({
  ...common,
  event_type: Type.Enum(BADGE_TEMPLATE_EVENT_TYPES),
  badge_template: BadgeTemplateJsonSchema,
});
export const PendingNotificationEventDetailSchema = Type.Object({
  ...common,
  event_type: Type.Enum(PENDING_NOTIFICATION_EVENT_TYPES),
  badge: BadgeStandardShapeSchema,
  recipient_email: Type.String(),
});
export const AccountMergedEventDetailSchema = Type.Object({
  ...common,
  event_type: Type.Literal("user.account_merged"),
  source_user_id: Uuid,
  destination_user_id: Uuid,
});
export const ConnectAccessRemovedEventDetailSchema = Type.Object({
  ...common,
  event_type: Type.Literal("user.connect_access.removed"),
  user_id: Uuid,
});
export const PublicBadgesEventDetailSchema = Type.Object({
  ...common,
  event_type: Type.Enum(PUBLIC_BADGES_EVENT_TYPES),
  user_id: Uuid,
  badge: BadgeStandardShapeSchema,
});
export const EmploymentEventDetailSchema = Type.Object({
  ...common,
  event_type: Type.Enum(EMPLOYMENT_EVENT_TYPES),
  employment: Type.Union([EmploymentSchema, ReducedEmploymentSchema]),
  badge: Type.Optional(BadgeStandardShapeSchema),
  external_badge: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/**
 * The interface's kinds' details. Laurel's own kinds' details are defined beside what they are
 * about (core/endorsements `EndorsementEventDetailSchema`), which this folder does not import.
 */
export const EventDetailSchema = Type.Union([
  BadgeEventDetailSchema,
  BadgeTemplateEventDetailSchema,
  PendingNotificationEventDetailSchema,
  AccountMergedEventDetailSchema,
  ConnectAccessRemovedEventDetailSchema,
  PublicBadgesEventDetailSchema,
  EmploymentEventDetailSchema,
]);
export type EventDetail = Static<typeof EventDetailSchema>;
