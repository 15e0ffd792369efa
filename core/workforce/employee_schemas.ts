import { type Static, Type } from "typebox";
import { Nullable } from "../badges/mod.ts";
import { defineList, type ListQuery } from "../listing/mod.ts";
import { EMPLOYEE_BATCH_MAX } from "./employee_fields.ts";

/**
 * REST inputs of employee records (the employment's fields an organization supplies). Unknown keys
 * are refused so a misspelt column is a 422, not silently lost. Limits are ours: roomy for HR data,
 * small enough for one row.
 */
const TEXT = 255;
const Text = Type.String({ maxLength: TEXT });
const Required = Type.String({ minLength: 1, maxLength: TEXT });

export const EMPLOYEE_STATES = ["created", "pending", "accepted", "rejected"] as const;
export type EmployeeState = (typeof EMPLOYEE_STATES)[number];

export const EMPLOYEE_SORT_KEYS = ["email", "created_at", "first_name", "last_name"] as const;
export type EmployeeSortKey = (typeof EMPLOYEE_SORT_KEYS)[number];

export const EmploymentHistoryInput = Type.Object(
  {
    current: Type.Boolean(),
    employer_job_title: Required,
    vendor_occupation: Type.Optional(Nullable(Text)),
    occupation_name: Type.Optional(Nullable(Text)),
    model_version: Type.Optional(Nullable(Text)),
    confidence_rating: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    state: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type EmploymentHistoryInput = Static<typeof EmploymentHistoryInput>;

const optionalFields = {
  position_title: Type.Optional(Text),
  manager_external_id: Type.Optional(Text),
  department: Type.Optional(Text),
  job_family: Type.Optional(Text),
  organization_level_1: Type.Optional(Text),
  organization_level_2: Type.Optional(Text),
  organization_level_3: Type.Optional(Text),
  team: Type.Optional(Nullable(Text)),
  manager_first_name: Type.Optional(Nullable(Text)),
  manager_last_name: Type.Optional(Nullable(Text)),
  country: Type.Optional(Nullable(Text)),
  zip_code: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
  state_or_province: Type.Optional(Nullable(Text)),
  level: Type.Optional(Nullable(Text)),
  employment_histories: Type.Optional(Type.Array(EmploymentHistoryInput, { maxItems: 50 })),
};

const Email = Type.String({ format: "email", maxLength: 254 });

/** A new employee record: e-mail, names and the HR system's `external_id` are required. */
export const EmployeeCreateBody = Type.Object(
  { email: Email, first_name: Required, last_name: Required, external_id: Required, ...optionalFields },
  { additionalProperties: false },
);
export type EmployeeCreateBody = Static<typeof EmployeeCreateBody>;

/** PUT: absent fields are kept; `null` clears a nullable field. */
export const EmployeeUpdateBody = Type.Object(
  {
    email: Type.Optional(Email),
    first_name: Type.Optional(Required),
    last_name: Type.Optional(Required),
    external_id: Type.Optional(Required),
    ...optionalFields,
  },
  { additionalProperties: false },
);
export type EmployeeUpdateBody = Static<typeof EmployeeUpdateBody>;

/** The documented batch body (OpenAPI): each item is an upsert keyed by `external_id`. */
export const EmployeeBatchBody = Type.Object(
  { employees: Type.Array(EmployeeCreateBody, { minItems: 1, maxItems: EMPLOYEE_BATCH_MAX }) },
  { additionalProperties: false },
);
/** As the route validates it: items are checked one by one, so one bad row does not refuse the rest. */
export const EmployeeBatchEnvelope = Type.Object(
  { employees: Type.Array(Type.Unknown(), { minItems: 1, maxItems: EMPLOYEE_BATCH_MAX }) },
  { additionalProperties: false },
);
export type EmployeeBatchEnvelope = Static<typeof EmployeeBatchEnvelope>;

/** The employee list's filters and sorts (newest first unless sorted), in the list grammar of core/listing. */
export const EMPLOYEE_LIST = defineList({
  filters: {
    /** "first last" or the e-mail. */
    name_or_email: { kind: "search" },
    employee_state: { kind: "enum", values: EMPLOYEE_STATES },
    team: { kind: "text" },
    department: { kind: "text" },
    /** Exact, case included (the HR system's key). */
    external_id: { kind: "text" },
  },
  sorts: EMPLOYEE_SORT_KEYS,
  defaultSort: [{ key: "created_at", desc: true }],
  // As a published client library spells them.
  aliases: { state: "employee_state", names_or_email: "name_or_email" },
});
export type EmployeeListQuery = ListQuery<keyof typeof EMPLOYEE_LIST.filters, EmployeeSortKey>;

/** Either the listed employees or every employee still in state `created`. */
export const SendInvitationsBody = Type.Union([
  Type.Object(
    { employee_ids: Type.Array(Type.String({ format: "uuid" }), { minItems: 1, maxItems: EMPLOYEE_BATCH_MAX }) },
    { additionalProperties: false },
  ),
  Type.Object({ all: Type.Literal(true) }, { additionalProperties: false }),
]);
export type SendInvitationsBody = Static<typeof SendInvitationsBody>;
