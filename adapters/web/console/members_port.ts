import { byMember } from "../../../core/audit/mod.ts";
import type { Credential } from "../../../core/auth/mod.ts";
import type { OrganizationStore } from "../../../core/credentials/mod.ts";
import { allowed, type MemberStore, roleCeiling } from "../../../core/members/mod.ts";
import type { ConsoleDeps } from "./console_deps.ts";

/**
 * The console's view of memberships, from core's member store and role table. In the credential
 * use cases (applications, tokens) a member acts with its role's ceiling, shaped as the
 * organization's credential: an application or token it makes can never do more than the role.
 */
export const consoleMembers = (
  members: Pick<MemberStore, "membershipOf" | "organizationsOf">,
  organizations: Pick<OrganizationStore, "get">,
): Pick<ConsoleDeps, "membership" | "organizationsOf"> => ({
  async membership(accountId, organizationId) {
    const [record, org] = await Promise.all([
      members.membershipOf(accountId, organizationId),
      organizations.get(organizationId),
    ]);
    if (!record || !org) return null;
    const credential: Credential = {
      kind: "authorization_token",
      organizationId,
      tokenId: record.id,
      ...roleCeiling(record.role),
    };
    return {
      organizationId,
      organizationName: org.name,
      role: record.role,
      credential,
      allowed: (action) => allowed(record.role, action),
      actor: { kind: "member", accountId, organizationId, role: record.role },
      by: (clientAddress) => byMember(accountId, clientAddress),
    };
  },
  async organizationsOf(accountId) {
    return (await members.organizationsOf(accountId)).map((o) => ({
      id: o.organization.id,
      name: o.organization.name,
      role: o.role,
    }));
  },
});
