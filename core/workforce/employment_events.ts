import { type Static, Type } from "typebox";
import { type BadgeStandardShape, BadgeStandardShapeSchema } from "../badges/mod.ts";
import { type FieldError, notFound, validationFailed } from "../errors/mod.ts";
import {
  EMPLOYMENT_EVENT_TYPES,
  type EmploymentBadgeEventType,
  EmploymentSchema,
  type EventContext,
  type EventDetail,
  type EventRecord,
  employmentBadgeEvent,
  employmentEvent,
  eventDetail,
} from "../events/mod.ts";

const Uuid = Type.String({ format: "uuid", pattern: "^[0-9a-fA-F-]{36}$" });

/**
 * What the workforce module (an internal tool) reports when an employee record changes: one
 * `employment.*` event for one organization. The spec shows no workforce endpoints, so this is
 * the only way such events enter Laurel; they are then listed, fetched and delivered like any other.
 */
export const RecordEmploymentEventInput = Type.Object(
  {
    organization_id: Uuid,
    event_type: Type.Enum(EMPLOYMENT_EVENT_TYPES),
    employment: EmploymentSchema,
    /** Required for employment.badges.added / removed (spec §6.4), refused for every other kind. */
    badge: Type.Optional(BadgeStandardShapeSchema),
    /** Only for employment.external_badges.*: the external badge object (shape not shown by the spec). */
    external_badge: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
export type RecordEmploymentEventInput = Static<typeof RecordEmploymentEventInput>;

const BADGE_KINDS: readonly string[] = ["employment.badges.added", "employment.badges.removed"];
const isBadgeKind = (kind: string): kind is EmploymentBadgeEventType => BADGE_KINDS.includes(kind);

/** The rules between fields that the schema cannot say; an empty list when the input is consistent. */
export const employmentEventErrors = (input: RecordEmploymentEventInput): FieldError[] => {
  const errors: FieldError[] = [];
  if (input.employment.employer.id.toLowerCase() !== input.organization_id.toLowerCase())
    errors.push({ field: "employment.employer.id", message: "must be the organization the event is recorded for" });
  if (isBadgeKind(input.event_type) && input.badge === undefined)
    errors.push({ field: "badge", message: `is required for ${input.event_type}` });
  if (!isBadgeKind(input.event_type) && input.badge !== undefined)
    errors.push({ field: "badge", message: `is only allowed for ${BADGE_KINDS.join(" and ")}` });
  if (!input.event_type.startsWith("employment.external_badges.") && input.external_badge !== undefined)
    errors.push({ field: "external_badge", message: "is only allowed for employment.external_badges.* kinds" });
  return errors;
};

/** The event record for a valid input (validate with `employmentEventErrors` first). */
export const employmentEventRecord = (input: RecordEmploymentEventInput, ctx: EventContext): EventRecord => {
  const kind = input.event_type;
  if (isBadgeKind(kind)) return employmentBadgeEvent(kind, input.employment, input.badge as BadgeStandardShape, ctx);
  return employmentEvent(
    kind as Exclude<typeof kind, EmploymentBadgeEventType>,
    input.employment,
    ctx,
    input.external_badge,
  );
};

/** The organization's workforce authorization (spec §6.4): read when details are built, set by operators. */
export interface WorkforceAuthorizationStore {
  /** null when the organization does not exist. */
  get(organizationId: string): Promise<boolean | null>;
  /** false when the organization does not exist. */
  set(organizationId: string, authorized: boolean): Promise<boolean>;
}

export interface WorkforceDeps {
  authorization: WorkforceAuthorizationStore;
  /** Appends in a transaction of its own; the event is listed and delivered once this resolves. */
  appendEvents(events: EventRecord[]): Promise<void>;
}

/** Records one employment event and returns its detail as the events API would show it now. */
export const recordEmploymentEvent = async (
  deps: WorkforceDeps,
  ctx: { now: Date; newEventId: () => string },
  input: RecordEmploymentEventInput,
): Promise<EventDetail> => {
  const errors = employmentEventErrors(input);
  if (errors.length > 0) throw validationFailed("The employment event is inconsistent", errors);
  const organizationId = input.organization_id.toLowerCase();
  const authorized = await deps.authorization.get(organizationId);
  if (authorized === null) throw notFound("Organization");
  const record = employmentEventRecord(
    { ...input, organization_id: organizationId },
    { id: ctx.newEventId(), organization_id: organizationId, occurred_at: ctx.now },
  );
  await deps.appendEvents([record]);
  return eventDetail(record, { workforceAuthorized: authorized });
};

/** Grants or withdraws workforce authorization; later reads of employment events follow it. */
export const setWorkforceAuthorization = async (
  deps: Pick<WorkforceDeps, "authorization">,
  organizationId: string,
  authorized: boolean,
): Promise<{ organization_id: string; workforce_authorized: boolean }> => {
  const id = organizationId.toLowerCase();
  if (!(await deps.authorization.set(id, authorized))) throw notFound("Organization");
  return { organization_id: id, workforce_authorized: authorized };
};
