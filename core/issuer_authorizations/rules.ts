import { forbidden, notFound, validationFailed } from "../errors/mod.ts";
import type { AuthorizationSide, AuthorizationState, IssuerAuthorizationRecord } from "./records.ts";

/** What can be done to an authorization once granted, and by which side. */
export type AuthorizationAction = "accept" | "end";

/** Action × side: only the issuer accepts; either side ends. */
export const ACTION_SIDES = {
  accept: ["issuer"],
  end: ["grantor", "issuer"],
} as const satisfies Record<AuthorizationAction, readonly AuthorizationSide[]>;

/** State × action: the state an action leads to, or none. An ended authorization stays ended. */
export const TRANSITIONS: Record<AuthorizationState, Partial<Record<AuthorizationAction, AuthorizationState>>> = {
  pending: { accept: "accepted", end: "ended" },
  accepted: { end: "ended" },
  ended: {},
};

/** An organization cannot authorize itself: it issues its own templates already. */
export const mayGrant = (grantorId: string, issuerId: string): void => {
  if (grantorId === issuerId)
    throw validationFailed("An organization cannot authorize itself to issue its own badge templates", [
      { field: "issuer_organization_id", message: "is this organization" },
    ]);
};

/** Which side `organizationId` is of `record`; null when neither. */
export const sideOf = (record: IssuerAuthorizationRecord, organizationId: string): AuthorizationSide | null =>
  record.grantor_id === organizationId ? "grantor" : record.issuer_id === organizationId ? "issuer" : null;

/**
 * The state `organizationId`, acting as `side` (the path it came by), takes `record` to with
 * `action`. Another organization's authorization, or one seen by the wrong path, is 404; the wrong
 * side for the action is 403; an action the state does not allow is 422 naming the state.
 */
export const transition = (
  record: IssuerAuthorizationRecord,
  organizationId: string,
  side: AuthorizationSide,
  action: AuthorizationAction,
): AuthorizationState => {
  if (sideOf(record, organizationId) !== side) throw notFound("Issuer authorization");
  if (!(ACTION_SIDES[action] as readonly AuthorizationSide[]).includes(side))
    throw forbidden("Only the authorized issuer may accept an authorization");
  const next = TRANSITIONS[record.state][action];
  if (!next)
    throw validationFailed(
      `An authorization that is ${record.state} cannot be ${action === "end" ? "ended" : "accepted"}`,
      [{ field: "state", message: `is ${record.state}` }],
    );
  return next;
};

/** Whether an authorization lets its issuer issue `templateId` now: accepted, and covering it. */
export const covers = (
  record: Pick<IssuerAuthorizationRecord, "state" | "all_templates" | "badge_template_ids">,
  templateId: string,
): boolean =>
  record.state === "accepted" && (record.all_templates || record.badge_template_ids.includes(templateId.toLowerCase()));
