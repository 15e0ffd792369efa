import type { EmployeeRecord } from "../../core/workforce/mod.ts";
import { NULLABLE_FIELDS, TEXT_FIELDS } from "../../core/workforce/mod.ts";
import type { EmployeeRow } from "./rows.ts";
import { toJson } from "./sql.ts";

/** Every column of `employees` (migration 011); each is the record field of the same name. */
export const COLUMNS = [
  "id",
  "organization_id",
  "email",
  "email_key",
  "first_name",
  "last_name",
  "external_id",
  ...TEXT_FIELDS,
  ...NULLABLE_FIELDS,
  "employment_histories",
  "employee_state",
  "employee_state_updated_at",
  "last_invitation_sent_at",
  "user_id",
  "created_at",
  "last_updated_by_organization_at",
] as const satisfies ReadonlyArray<keyof EmployeeRecord>;
export const SELECT = COLUMNS.map((c) => `e.${c}`).join(", ");
/** The columns an update writes: all but the keys. */
export const UPDATED = COLUMNS.filter((c) => c !== "id" && c !== "organization_id");

/** What `select ${SELECT}` reads. */
export type EmployeeFields = Pick<EmployeeRow, (typeof COLUMNS)[number]>;

export const recordOf = (r: EmployeeFields): EmployeeRecord => ({
  ...r,
  employment_histories: toJson(r.employment_histories),
});
