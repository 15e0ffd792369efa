import { forbidden, notFound, validationFailed } from "../errors/mod.ts";
import type { EndorsementRecord, EndorsementState } from "./records.ts";

/** What can be done to an endorsement, and by which side. */
export type EndorsementAction = "accept" | "reject" | "withdraw";

/** Action × side: the endorsed organization accepts or rejects; the endorser withdraws. */
export const ACTION_SIDE = {
  accept: "endorsed",
  reject: "endorsed",
  withdraw: "endorser",
} as const satisfies Record<EndorsementAction, "endorser" | "endorsed">;

/**
 * State × action: the state an action leads to, or none. The endorsed side may reject an accepted
 * endorsement too (it stops publishing it); the endorser withdraws it while pending or accepted.
 */
export const TRANSITIONS: Record<EndorsementState, Partial<Record<EndorsementAction, EndorsementState>>> = {
  pending: { accept: "accepted", reject: "rejected", withdraw: "withdrawn" },
  accepted: { reject: "rejected", withdraw: "withdrawn" },
  rejected: {},
  withdrawn: {},
};

/** An organization cannot endorse itself or something of its own. */
export const mayEndorse = (endorserId: string, targetOwnerId: string): void => {
  if (endorserId === targetOwnerId)
    throw validationFailed("An organization cannot endorse itself or its own badge templates", [
      { field: "target_id", message: "belongs to the endorsing organization" },
    ]);
};

/**
 * The state `organizationId` takes `record` to with `action`. An organization that is neither
 * side does not see the endorsement (404); the wrong side is refused (403); an action the state
 * does not allow is refused with the state named (422).
 */
export const transition = (
  record: EndorsementRecord,
  organizationId: string,
  action: EndorsementAction,
): EndorsementState => {
  const side =
    record.endorser_id === organizationId ? "endorser" : record.endorsed_id === organizationId ? "endorsed" : null;
  if (side === null) throw notFound("Endorsement");
  if (ACTION_SIDE[action] !== side)
    throw forbidden(
      ACTION_SIDE[action] === "endorsed"
        ? `Only the endorsed organization may ${action} an endorsement`
        : "Only the endorsing organization may withdraw an endorsement",
    );
  const next = TRANSITIONS[record.state][action];
  if (!next)
    throw validationFailed(
      `An endorsement that is ${record.state} cannot be ${action === "withdraw" ? "withdrawn" : `${action}ed`}`,
      [{ field: "state", message: `is ${record.state}` }],
    );
  return next;
};
