import { type Static, Type } from "typebox";
import { BadgeStandardShapeSchema, Nullable } from "../badges/mod.ts";

const Timestamp = Type.String({ format: "date-time" });
const Uuid = Type.String({ format: "uuid" });

/** The employee record as it appears in `employment.*` event details and the employees API. */
export const EmploymentSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  created_at: Timestamp,
  last_updated_by_organization_at: Timestamp,
  employee_state: Type.String(),
  employee_state_updated_at: Timestamp,
  last_invitation_sent_at: Nullable(Timestamp),
  first_name: Type.String(),
  last_name: Type.String(),
  full_name: Type.String(),
  photo_url: Nullable(Type.String()),
  team: Nullable(Type.String()),
  external_id: Type.String(),
  position_title: Type.String(),
  manager_first_name: Nullable(Type.String()),
  manager_last_name: Nullable(Type.String()),
  manager_external_id: Type.String(),
  country: Nullable(Type.String()),
  zip_code: Nullable(Type.String()),
  state_or_province: Nullable(Type.String()),
  department: Type.String(),
  job_family: Type.String(),
  level: Nullable(Type.String()),
  organization_level_1: Type.String(),
  organization_level_2: Type.String(),
  organization_level_3: Type.String(),
  employer: Type.Object({ id: Uuid, name: Type.String(), bio: Type.String(), industry: Type.String() }),
  badges: Type.Array(BadgeStandardShapeSchema),
  employment_histories: Type.Array(
    Type.Object({
      id: Uuid,
      current: Type.Boolean(),
      employer_job_title: Type.String(),
      vendor_occupation: Nullable(Type.String()),
      occupation_name: Nullable(Type.String()),
      model_version: Nullable(Type.String()),
      confidence_rating: Nullable(Type.Number()),
      state: Type.String(),
    }),
  ),
});
export type Employment = Static<typeof EmploymentSchema>;

/** What is left when the organization may not see workforce data, or the record is gone. */
export const ReducedEmploymentSchema = Type.Object({ id: Uuid, email: Type.String(), external_id: Type.String() });
export type ReducedEmployment = Static<typeof ReducedEmploymentSchema>;

export const reduceEmployment = (e: Pick<Employment, "id" | "email" | "external_id">): ReducedEmployment => ({
  id: e.id,
  email: e.email,
  external_id: e.external_id,
});

/**
 * What an organization sees of an employment, by whether it is authorized for workforce data now:
 * in full, or only what it gave itself to name the record. Every door (REST, event details, and
 * so webhooks, which carry no detail) asks this one rule; see `docs/decisions.md`.
 */
export const employmentSeenBy = (
  employment: Employment,
  workforceAuthorized: boolean,
): Employment | ReducedEmployment => (workforceAuthorized ? employment : reduceEmployment(employment));
