import { type BadgeStandardShape, normalizeEmail } from "../badges/mod.ts";
import type { Employment } from "../events/mod.ts";
import { isoMillis, isoMillisOrNull } from "../shared/mod.ts";
import { NULLABLE_FIELDS, TEXT_FIELDS } from "./employee_fields.ts";
import type {
  EmployeeCreateBody,
  EmployeeListQuery,
  EmployeeState,
  EmployeeUpdateBody,
  EmploymentHistoryInput,
} from "./employee_schemas.ts";

export interface EmploymentHistory {
  id: string;
  current: boolean;
  employer_job_title: string;
  vendor_occupation: string | null;
  occupation_name: string | null;
  model_version: string | null;
  confidence_rating: number | null;
  state: string;
}

type TextField = (typeof TEXT_FIELDS)[number];
type NullableField = (typeof NULLABLE_FIELDS)[number];

/** One employee record as stored: what the organization supplied and what Laurel keeps. */
export type EmployeeRecord = {
  id: string;
  organization_id: string;
  email: string;
  /** The normalized address (`normalizeEmail`): what an earner account's confirmed address is matched on. */
  email_key: string;
  first_name: string;
  last_name: string;
  external_id: string;
  employment_histories: EmploymentHistory[];
  employee_state: EmployeeState;
  employee_state_updated_at: Date;
  last_invitation_sent_at: Date | null;
  /** The earner account the record is associated with, if any. */
  user_id: string | null;
  created_at: Date;
  last_updated_by_organization_at: Date;
} & Record<TextField, string> &
  Record<NullableField, string | null>;

/** The employment's `employer`. Laurel keeps no industry code for organizations: it is "". */
export interface Employer {
  id: string;
  name: string;
  bio: string;
  industry: string;
}

const histories = (
  input: EmploymentHistoryInput[] | undefined,
  previous: EmploymentHistory[],
  newId: () => string,
): EmploymentHistory[] =>
  (input ?? []).map((h, i) => {
    const item = {
      current: h.current,
      employer_job_title: h.employer_job_title.trim(),
      vendor_occupation: h.vendor_occupation ?? null,
      occupation_name: h.occupation_name ?? null,
      model_version: h.model_version ?? null,
      confidence_rating: h.confidence_rating ?? null,
      state: h.state ?? "unmapped",
    };
    // The same entry at the same place keeps its id, so sending a record again changes nothing.
    const old = previous[i];
    const same = old !== undefined && sameHistory(old, item);
    return { id: same ? old.id : newId(), ...item };
  });

const sameHistory = (a: Omit<EmploymentHistory, "id">, b: Omit<EmploymentHistory, "id">): boolean =>
  a.current === b.current &&
  a.employer_job_title === b.employer_job_title &&
  a.vendor_occupation === b.vendor_occupation &&
  a.occupation_name === b.occupation_name &&
  a.model_version === b.model_version &&
  a.confidence_rating === b.confidence_rating &&
  a.state === b.state;

const trimOrNull = (v: string | null | undefined): string | null => {
  if (v === undefined || v === null) return null;
  const t = v.trim();
  return t === "" ? null : t;
};

/** The organization-supplied fields of `body` over `base` (absent fields keep `base`'s value). */
const supplied = (
  base: EmployeeRecord,
  body: EmployeeUpdateBody,
  newId: () => string,
): Omit<EmployeeRecord, "id" | "organization_id" | "employee_state" | "employee_state_updated_at"> => {
  const out = { ...base };
  if (body.email !== undefined) {
    out.email = body.email.trim();
    out.email_key = normalizeEmail(body.email);
  }
  if (body.first_name !== undefined) out.first_name = body.first_name.trim();
  if (body.last_name !== undefined) out.last_name = body.last_name.trim();
  if (body.external_id !== undefined) out.external_id = body.external_id.trim();
  for (const f of TEXT_FIELDS) if (body[f] !== undefined) out[f] = (body[f] as string).trim();
  for (const f of NULLABLE_FIELDS) if (body[f] !== undefined) out[f] = trimOrNull(body[f]);
  if (body.employment_histories !== undefined)
    out.employment_histories = histories(body.employment_histories, base.employment_histories, newId);
  return out;
};

/** A new record in state `created`. */
export const newEmployeeRecord = (
  body: EmployeeCreateBody,
  ctx: { id: string; organization_id: string; now: Date; newId: () => string },
): EmployeeRecord => {
  const empty = {
    id: ctx.id,
    organization_id: ctx.organization_id,
    email: "",
    email_key: "",
    first_name: "",
    last_name: "",
    external_id: "",
    employment_histories: [],
    employee_state: "created",
    employee_state_updated_at: ctx.now,
    last_invitation_sent_at: null,
    user_id: null,
    created_at: ctx.now,
    last_updated_by_organization_at: ctx.now,
    ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, ""])),
    ...Object.fromEntries(NULLABLE_FIELDS.map((f) => [f, null])),
  } as unknown as EmployeeRecord;
  return { ...empty, ...supplied(empty, body, ctx.newId) };
};

const ORGANIZATION_FIELDS = [
  "email",
  "first_name",
  "last_name",
  "external_id",
  ...TEXT_FIELDS,
  ...NULLABLE_FIELDS,
] as const;

/** Whether an update changed anything the organization supplies. */
export const employeeChanged = (before: EmployeeRecord, after: EmployeeRecord): boolean =>
  ORGANIZATION_FIELDS.some((f) => before[f] !== after[f]) ||
  before.employment_histories.length !== after.employment_histories.length ||
  before.employment_histories.some((h, i) => h.id !== after.employment_histories[i]?.id);

/** `current` with `body` applied; `last_updated_by_organization_at` moves only when something changed. */
export const applyEmployeeUpdate = (
  current: EmployeeRecord,
  body: EmployeeUpdateBody,
  ctx: { now: Date; newId: () => string },
): EmployeeRecord => {
  const next = { ...current, ...supplied(current, body, ctx.newId) };
  return employeeChanged(current, next) ? { ...next, last_updated_by_organization_at: ctx.now } : current;
};

/**
 * The employment, as REST returns it and as `employment.*` events carry it. `badges`:
 * the employee's badges the employer may see (`visibleBadges`); `photoUrl` comes from the
 * associated earner account.
 */
export const employmentShape = (
  r: EmployeeRecord,
  employer: Employer,
  badges: BadgeStandardShape[] = [],
  photoUrl: string | null = null,
): Employment => ({
  id: r.id,
  email: r.email,
  created_at: isoMillis(r.created_at),
  last_updated_by_organization_at: isoMillis(r.last_updated_by_organization_at),
  employee_state: r.employee_state,
  employee_state_updated_at: isoMillis(r.employee_state_updated_at),
  last_invitation_sent_at: isoMillisOrNull(r.last_invitation_sent_at),
  first_name: r.first_name,
  last_name: r.last_name,
  full_name: [r.first_name, r.last_name].filter((s) => s !== "").join(" "),
  photo_url: photoUrl,
  team: r.team,
  external_id: r.external_id,
  position_title: r.position_title,
  manager_first_name: r.manager_first_name,
  manager_last_name: r.manager_last_name,
  manager_external_id: r.manager_external_id,
  country: r.country,
  zip_code: r.zip_code,
  state_or_province: r.state_or_province,
  department: r.department,
  job_family: r.job_family,
  level: r.level,
  organization_level_1: r.organization_level_1,
  organization_level_2: r.organization_level_2,
  organization_level_3: r.organization_level_3,
  employer,
  badges,
  employment_histories: r.employment_histories.map((h) => ({ ...h })),
});

/** The filters and sort of an employee list. */
export type EmployeeFilter = Pick<EmployeeListQuery, "filters" | "sort">;
