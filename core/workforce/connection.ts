import type { BadgeStandardShape } from "../badges/mod.ts";
import { type CoreError, validationFailed } from "../errors/mod.ts";
import type { EmploymentEventType } from "../events/mod.ts";
import type { EmployeeRecord } from "./employee_records.ts";
import type { EmployeeState } from "./employee_schemas.ts";

/**
 * The connection between an employee record and an earner account, as plain rules the earner
 * pages call. A record is associated with the account owning a confirmed address equal to its
 * e-mail; the associated earner is then prompted (`pending`), accepts or rejects, and may later
 * disconnect, which leaves the record `rejected` (the employer stops seeing the badges, and the
 * earner can accept again).
 */
export const CONNECTION_ACTIONS = ["associate", "disassociate", "prompt", "accept", "reject", "disconnect"] as const;
export type ConnectionAction = (typeof CONNECTION_ACTIONS)[number];

export type ConnectionFields = Pick<EmployeeRecord, "employee_state" | "user_id">;

export interface ConnectionChange {
  employee_state: EmployeeState;
  user_id: string | null;
  /** Recorded in the transaction of the change, in this order. */
  events: EmploymentEventType[];
}

const refused = (action: ConnectionAction, from: ConnectionFields): CoreError =>
  validationFailed(`Cannot ${action} a connection that is ${from.employee_state}`, [
    { field: "employee_state", message: `is ${from.employee_state}${from.user_id ? "" : " and not associated"}` },
  ]);

/**
 * The next connection fields and the events of one action. `userId` is the account of
 * `associate` (ignored otherwise). Losing the association (the address removed, the account
 * merged away) ends any connection: the record goes back to `created`.
 *
 * The organization is told of an association only when the person is shown its prompt
 * (`employment.user_account.associated` then `.connection.pending`): told when it happens, any
 * organization could learn whether an address has an account by creating a record for it. So
 * `associate` records nothing, and `disassociate` records something only when the association
 * had been told (the record is past `created`).
 */
export const transitionConnection = (
  from: ConnectionFields,
  action: ConnectionAction,
  userId: string | null = null,
): ConnectionChange => {
  const s = from.employee_state;
  switch (action) {
    case "associate":
      if (from.user_id !== null || userId === null) throw refused(action, from);
      return { employee_state: s, user_id: userId, events: [] };
    case "disassociate":
      if (from.user_id === null) throw refused(action, from);
      return {
        employee_state: "created",
        user_id: null,
        events: s === "created" ? [] : ["employment.user_account.disassociated"],
      };
    case "prompt":
      if (from.user_id === null || s !== "created") throw refused(action, from);
      return {
        employee_state: "pending",
        user_id: from.user_id,
        events: ["employment.user_account.associated", "employment.connection.pending"],
      };
    case "accept":
      if (from.user_id === null || (s !== "pending" && s !== "rejected")) throw refused(action, from);
      return { employee_state: "accepted", user_id: from.user_id, events: ["employment.connection.accepted"] };
    case "reject":
      if (from.user_id === null || s !== "pending") throw refused(action, from);
      return { employee_state: "rejected", user_id: from.user_id, events: ["employment.connection.rejected"] };
    case "disconnect":
      if (from.user_id === null || s !== "accepted") throw refused(action, from);
      return { employee_state: "rejected", user_id: from.user_id, events: ["employment.connection.rejected"] };
  }
};

/** Whether a record should be associated with an account having these confirmed addresses (normalized). */
export const associatesWith = (record: Pick<EmployeeRecord, "email_key" | "user_id">, confirmedKeys: string[]) =>
  record.user_id === null && confirmedKeys.includes(record.email_key);

/** The employer sees the employee's badges only on an accepted connection. */
export const employerSeesBadges = (record: ConnectionFields): boolean =>
  record.employee_state === "accepted" && record.user_id !== null;

/** The badges of the connected employee that the employer may see: accepted and public ones. */
export const visibleBadges = (record: ConnectionFields, badges: BadgeStandardShape[]): BadgeStandardShape[] =>
  employerSeesBadges(record) ? badges.filter((b) => b.state === "accepted" && b.public) : [];
