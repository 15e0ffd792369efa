import type { Credential } from "../auth/mod.ts";
import { type CoreError, forbidden, resultOf, validationFailed } from "../errors/mod.ts";
import { allowed, type MemberAction, ROLES, type Role } from "./roles.ts";

/**
 * Who asks: a member signed in to the console (with their role in the organization at hand), a
 * credential of the API (it acts as the organization, not as a member), or an operator's tool.
 */
export type MemberActor =
  | { kind: "member"; accountId: string; organizationId: string; role: Role }
  | { kind: "credential"; credential: Credential }
  | { kind: "operator" };

/**
 * A credential may do what an admin may: everything but ownership changes, so a leaked token
 * cannot make its holder an owner or lock the owners out. An operator may do everything.
 */
const CREDENTIAL_ROLE: Role = "admin";

const roleOf = (actor: MemberActor): Role => {
  switch (actor.kind) {
    case "member":
      return actor.role;
    case "credential":
      return CREDENTIAL_ROLE;
    case "operator":
      return "owner";
  }
};

/** May `actor` do `action` in `organizationId`? Throws 403 if not, as for a member or credential of another organization. */
export const actorMay = (actor: MemberActor, organizationId: string, action: MemberAction): void => {
  if (actor.kind === "member" && actor.organizationId !== organizationId)
    throw forbidden("You are not a member of this organization", { name: "other_organization" });
  if (actor.kind === "credential" && actor.credential.organizationId !== organizationId)
    throw forbidden("This credential belongs to another organization", { name: "other_organization" });
  if (allowed(roleOf(actor), action)) return;
  if (action === "ownership.change")
    throw forbidden(
      actor.kind === "credential"
        ? "Owners are made, changed and removed only by an owner in the console"
        : "Only an owner may make, change or remove owners",
      { name: "ownership_change" },
    );
  throw forbidden(`Your role does not allow ${action}`);
};

export const LAST_OWNER_MESSAGE = "The last owner cannot leave or be demoted; make another member owner first";

const lastOwner = (): CoreError =>
  validationFailed(LAST_OWNER_MESSAGE, [{ field: "role", message: "the organization needs an owner" }], {
    name: "last_owner",
  });

/** Inviting an address with `role`: an owner's invitation needs ownership rights. */
export const mayInvite = (actor: MemberActor, organizationId: string, role: Role): void =>
  actorMay(actor, organizationId, role === "owner" ? "ownership.change" : "members.invite");

/** Changing a member's role from `from` to `to`, with `owners` owners in the organization now. */
export const mayChangeRole = (
  actor: MemberActor,
  organizationId: string,
  change: { from: Role; to: Role; owners: number },
): void => {
  actorMay(
    actor,
    organizationId,
    change.from === "owner" || change.to === "owner" ? "ownership.change" : "members.change_role",
  );
  if (change.from === "owner" && change.to !== "owner" && change.owners <= 1) throw lastOwner();
};

/**
 * Removing the membership of `target` (of role `role`). A member may always leave, save the last
 * owner; removing someone else needs `members.remove`, or ownership rights for an owner.
 */
export const mayRemove = (
  actor: MemberActor,
  organizationId: string,
  target: { accountId: string; role: Role; owners: number },
): void => {
  const leaving = actor.kind === "member" && actor.accountId === target.accountId;
  if (!leaving) {
    actorMay(actor, organizationId, target.role === "owner" ? "ownership.change" : "members.remove");
  } else if (actor.organizationId !== organizationId) {
    throw forbidden("You are not a member of this organization");
  }
  if (target.role === "owner" && target.owners <= 1) throw lastOwner();
};

/**
 * What `actor` may do to one member (`target`), by the same rules a change is checked with: whether
 * it may remove them (or, for the actor itself, leave), and the roles it may give them. A page
 * offers only these, so an admin is never offered a change that only an owner may make.
 */
export const memberOffers = (
  actor: MemberActor,
  organizationId: string,
  target: { accountId: string; role: Role; owners: number },
): { remove: boolean; roles: Role[] } => {
  const remove = resultOf(() => mayRemove(actor, organizationId, target)).ok;
  const roles = ROLES.filter(
    (to) =>
      to !== target.role &&
      resultOf(() => mayChangeRole(actor, organizationId, { from: target.role, to, owners: target.owners })).ok,
  );
  return { remove, roles };
};
