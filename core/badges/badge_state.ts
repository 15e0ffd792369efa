import { validationFailed } from "../errors/mod.ts";

/** `pending` until the earner accepts or rejects (`rejected`: the earner's no); `revoked`, `replaced`: the issuer. */
export const BADGE_STATES = ["pending", "accepted", "rejected", "revoked", "replaced"] as const;
export type BadgeState = (typeof BADGE_STATES)[number];

export const BADGE_ACTIONS = ["accept", "reject", "revoke", "replace"] as const;
export type BadgeActionName = (typeof BADGE_ACTIONS)[number];

export type BadgeAction =
  | { type: "accept" }
  | { type: "reject" }
  | { type: "revoke"; reason: string }
  | { type: "replace" };

export const REVOCATION_REASON_MAX = 1000;

const TARGET: Record<BadgeActionName, BadgeState> = {
  accept: "accepted",
  reject: "rejected",
  revoke: "revoked",
  replace: "replaced",
};

const ALLOWED_FROM: Record<BadgeActionName, readonly BadgeState[]> = {
  accept: ["pending"],
  reject: ["pending"],
  revoke: ["pending", "accepted"],
  replace: ["pending", "accepted"],
};

/**
 * A badge is "live" while it still stands for an award: the duplicate rule counts only these,
 * so a recipient whose badge was revoked, rejected or replaced can be issued the same template again.
 */
export const LIVE_BADGE_STATES: readonly BadgeState[] = ["pending", "accepted"];
export const isLiveBadgeState = (state: BadgeState): boolean => LIVE_BADGE_STATES.includes(state);

/** The next state; throws a 422 naming the state and action; a revoke needs a non-blank reason. */
export const transitionBadge = (state: BadgeState, action: BadgeAction): BadgeState => {
  if (!ALLOWED_FROM[action.type].includes(state)) {
    throw validationFailed(`Cannot ${action.type} a badge that is ${state}`, [
      { field: "state", message: `a ${state} badge cannot be ${TARGET[action.type]}` },
    ]);
  }
  if (action.type === "revoke") {
    const reason = action.reason.trim();
    if (reason === "")
      throw validationFailed("A revocation reason is required", [{ field: "reason", message: "is required" }]);
    if (reason.length > REVOCATION_REASON_MAX) {
      throw validationFailed("The revocation reason is too long", [
        { field: "reason", message: `must be at most ${REVOCATION_REASON_MAX} characters` },
      ]);
    }
  }
  return TARGET[action.type];
};
