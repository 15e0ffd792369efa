export type { MemberDeps, OrganizationSignup } from "./members.ts";
export {
  acceptInvitation,
  auditByOf,
  cancelInvitation,
  changeRole,
  createOrganizationByOperator,
  createOrganizationBySignup,
  getInvitation,
  getMember,
  INVITATION_TTL_MS,
  invitationContent,
  invitationForToken,
  invitationUrl,
  invite,
  listInvitations,
  listMembers,
  membershipOf,
  organizationsOf,
  removeMember,
} from "./members.ts";
export type { OrganizationResourceDeps, OrganizationResourceUrls } from "./organization_resource.ts";
export {
  getOrganizationResource,
  OrganizationResource,
  organizationResourceJson,
  UpdateOrganizationResourceInput,
  updateOrganizationResource,
} from "./organization_resource.ts";
export type { MemberAccount, MemberStore, MemberTx } from "./ports.ts";
export { UpdateOrganizationInput, updateOrganizationProfile } from "./profile.ts";
export type { InvitationRecord, MembershipRecord, MemberView } from "./records.ts";
export type { MemberAction, Role } from "./roles.ts";
export { allowed, isRole, MEMBER_ACTIONS, PERMISSIONS, ROLES, roleCeiling, withinRoleCeiling } from "./roles.ts";
export type { MemberActor } from "./rules.ts";
export { actorMay, LAST_OWNER_MESSAGE, mayChangeRole, mayInvite, mayRemove, memberOffers } from "./rules.ts";
export {
  CreateInvitationInput,
  Invitation,
  invitationJson,
  Membership,
  membershipJson,
  RoleSchema,
  UpdateMembershipInput,
} from "./shapes.ts";
