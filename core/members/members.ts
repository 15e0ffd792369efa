import { type AuditAction, type AuditBy, auditRecord, byCredential, byMember, OPERATOR } from "../audit/mod.ts";
import { normalizeEmail } from "../badges/mod.ts";
import type { Context, Page, SecretBox } from "../credentials/mod.ts";
import { CoreError, forbidden, notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import type { MailContent } from "../mail/mod.ts";
import { type CreateOrganizationInput, newOrganization, type OrganizationRecord } from "../organizations/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { isEmailAddress } from "../shared/mod.ts";
import { type InvitationBudget, takeInvitations } from "../workforce/mod.ts";
import type { MemberStore, MemberTx } from "./ports.ts";
import type { InvitationRecord, MembershipRecord, MemberView } from "./records.ts";
import type { Role } from "./roles.ts";
import { actorMay, type MemberActor, mayChangeRole, mayInvite, mayRemove } from "./rules.ts";
import type { CreateInvitationInput } from "./shapes.ts";

export interface MemberDeps {
  members: MemberStore;
  secrets: SecretBox;
  /** `PUBLIC_URL`: the invitation link points into its console. */
  publicUrl: string;
  /** Invitation mails an organization may send per window (shared with employee invitations); absent: no limit. */
  budget?: InvitationBudget;
}

/** An invitation is good for seven days. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** Who the audit log names for an actor, with the client's address when the transport knows it. */
export const auditByOf = (actor: MemberActor, clientAddress: string | null): AuditBy => {
  switch (actor.kind) {
    case "member":
      return byMember(actor.accountId, clientAddress);
    case "credential":
      return byCredential(actor.credential, clientAddress);
    case "operator":
      return { ...OPERATOR, client_address: clientAddress };
  }
};

export const invitationUrl = (publicUrl: string, token: string): string =>
  `${publicUrl.replace(/\/+$/, "")}/console/invitations/${encodeURIComponent(token)}`;

const fullName = (a: { first_name: string; last_name: string }): string => `${a.first_name} ${a.last_name}`.trim();

/** The role of the account in the organization, or null when it is no member. */
export const membershipOf = async (
  deps: Pick<MemberDeps, "members">,
  accountId: string,
  organizationId: string,
): Promise<Role | null> => (await deps.members.membershipOf(accountId, organizationId))?.role ?? null;

export const organizationsOf = (deps: Pick<MemberDeps, "members">, accountId: string) =>
  deps.members.organizationsOf(accountId);

export const listMembers = (
  deps: Pick<MemberDeps, "members">,
  actor: MemberActor,
  organizationId: string,
  page: PageRequest,
): Promise<Page<MemberView>> => {
  actorMay(actor, organizationId, "members.read");
  return deps.members.listMembers(organizationId, page);
};

export const getMember = async (
  deps: Pick<MemberDeps, "members">,
  actor: MemberActor,
  organizationId: string,
  membershipId: string,
): Promise<MemberView> => {
  actorMay(actor, organizationId, "members.read");
  return orNotFound(await deps.members.getMember(organizationId, membershipId), "Membership");
};

/** Takes the organization's lock for the rest of the transaction; 404 when there is no such organization. */
const lockOrganization = async (tx: MemberTx, organizationId: string): Promise<void> => {
  if (!(await tx.organizations.lock(organizationId))) throw notFound("Organization");
};

/**
 * A membership and its organization's owner count, read under the organization's lock, so the
 * count a rule checks cannot change before the write.
 */
const lockedMembership = async (tx: MemberTx, organizationId: string, membershipId: string) => {
  await lockOrganization(tx, organizationId);
  const membership = orNotFound(await tx.memberships.get(organizationId, membershipId), "Membership");
  return { m: membership, owners: await tx.memberships.countOwners(organizationId) };
};

/** A new membership of the account in the organization. */
const newMembership = (ctx: Context, organizationId: string, accountId: string, role: Role): MembershipRecord => ({
  id: ctx.newId(),
  organization_id: organizationId,
  user_id: accountId,
  role,
  created_at: ctx.now,
  updated_at: ctx.now,
});

type AppendAudit = (action: AuditAction, target: string, details: Record<string, unknown>) => Promise<void>;

/**
 * A change to the organization's people by `actor`, in one transaction, with the audit row it
 * appends (by the actor, from `clientAddress`); only an actor who may see the members gets this
 * far, and `change` checks the right it needs.
 */
const peopleChange = (
  deps: Pick<MemberDeps, "members">,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  change: (tx: MemberTx, audit: AppendAudit) => Promise<void>,
): Promise<void> => {
  actorMay(actor, organizationId, "members.read");
  const by = auditByOf(actor, clientAddress);
  return deps.members.transaction((tx) =>
    change(tx, (action, target, details) =>
      tx.appendAudit(auditRecord(ctx, by, organizationId, action, target, details)),
    ),
  );
};

/** Gives a member another role; owners are made and unmade only with ownership rights, and one always stays. */
export const changeRole = async (
  deps: Pick<MemberDeps, "members">,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  membershipId: string,
  role: Role,
): Promise<MemberView> => {
  await peopleChange(deps, ctx, actor, clientAddress, organizationId, async (tx, audit) => {
    const { m, owners } = await lockedMembership(tx, organizationId, membershipId);
    mayChangeRole(actor, organizationId, { from: m.role, to: role, owners });
    if (m.role === role) return;
    await tx.memberships.setRole(m.id, role, ctx.now);
    await audit("membership.role_changed", `membership:${m.id}`, { user_id: m.user_id, from: m.role, to: role });
  });
  return getMember(deps, actor, organizationId, membershipId);
};

/** Ends a membership (a member leaving, or removed); the last owner stays. */
export const removeMember = async (
  deps: Pick<MemberDeps, "members">,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  membershipId: string,
): Promise<void> => {
  await peopleChange(deps, ctx, actor, clientAddress, organizationId, async (tx, audit) => {
    const { m, owners } = await lockedMembership(tx, organizationId, membershipId);
    mayRemove(actor, organizationId, { accountId: m.user_id, role: m.role, owners });
    await tx.memberships.delete(m.id);
    await audit("membership.removed", `membership:${m.id}`, { user_id: m.user_id, role: m.role });
  });
};

const inviterName = async (
  deps: Pick<MemberDeps, "members">,
  actor: MemberActor,
  org: OrganizationRecord,
): Promise<string> => {
  switch (actor.kind) {
    case "member": {
      const a = await deps.members.account(actor.accountId);
      return a ? `${fullName(a)}${a.email ? ` <${a.email}>` : ""}` : "A member";
    }
    case "credential":
      return `An application of ${org.name}`;
    case "operator":
      return "The Laurel operator";
  }
};

/** What the invitation mail says: who invites, to which organization, with which role, and the link to accept. */
export const invitationContent = (
  invitation: InvitationRecord,
  org: OrganizationRecord,
  link: string,
): MailContent => ({
  template: "member_invitation",
  to: invitation.email,
  invited_by: invitation.invited_by_name,
  organization_name: org.name,
  role: invitation.role,
  link,
  expires_at: invitation.expires_at.toISOString(),
});

/**
 * Invites an address with a role: a fresh 256-bit token of which only the keyed digest is kept,
 * mailed in the invitation's transaction. Inviting the same address again replaces the pending
 * invitation (the old link stops working).
 */
export const invite = async (
  deps: MemberDeps,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  input: CreateInvitationInput,
): Promise<{ invitation: InvitationRecord; token: string }> => {
  mayInvite(actor, organizationId, input.role);
  const org = orNotFound(await deps.members.organization(organizationId), "Organization");
  const email = input.email.trim();
  if (!isEmailAddress(email))
    throw validationFailed("Invalid invitation", [{ field: "email", message: "must be an e-mail address" }]);
  const emailKey = normalizeEmail(email);
  const owner = await deps.members.addressOwner(emailKey);
  if (owner?.confirmed && (await deps.members.membershipOf(owner.user_id, organizationId))) {
    throw validationFailed("This address belongs to a member already", [
      { field: "email", message: "is already a member's address" },
    ]);
  }
  if (deps.budget && !takeInvitations(deps.budget, organizationId, 1, ctx.now))
    throw new CoreError("rate_limited", "Too many invitations for this organization; try again later");
  const token = deps.secrets.newSecret();
  const invitation: InvitationRecord = {
    id: ctx.newId(),
    organization_id: organizationId,
    email,
    email_key: emailKey,
    role: input.role,
    token_digest: deps.secrets.digest(token),
    invited_by: auditByOf(actor, null).actor,
    invited_by_name: await inviterName(deps, actor, org),
    created_at: ctx.now,
    expires_at: new Date(ctx.now.getTime() + INVITATION_TTL_MS),
  };
  await deps.members.transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    await tx.invitations.put(invitation);
    await tx.enqueueMail({
      id: ctx.newId(),
      kind: "member_invitation",
      organization_id: organizationId,
      content: invitationContent(invitation, org, invitationUrl(deps.publicUrl, token)),
      sent_event: null,
      created_at: ctx.now,
    });
    await tx.appendAudit(
      auditRecord(
        ctx,
        auditByOf(actor, clientAddress),
        organizationId,
        "invitation.created",
        `invitation:${invitation.id}`,
        {
          email,
          role: input.role,
        },
      ),
    );
  });
  return { invitation, token };
};

export const listInvitations = (
  deps: Pick<MemberDeps, "members">,
  ctx: Pick<Context, "now">,
  actor: MemberActor,
  organizationId: string,
  page: PageRequest,
): Promise<Page<InvitationRecord>> => {
  actorMay(actor, organizationId, "members.read");
  return deps.members.listInvitations(organizationId, page, ctx.now);
};

export const getInvitation = async (
  deps: Pick<MemberDeps, "members">,
  ctx: Pick<Context, "now">,
  actor: MemberActor,
  organizationId: string,
  id: string,
): Promise<InvitationRecord> => {
  actorMay(actor, organizationId, "members.read");
  const found = await deps.members.getInvitation(organizationId, id);
  if (!found || found.expires_at <= ctx.now) throw notFound("Invitation");
  return found;
};

/** Cancels a pending invitation; an owner's invitation is cancelled only with ownership rights. */
export const cancelInvitation = async (
  deps: Pick<MemberDeps, "members">,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
): Promise<void> => {
  await peopleChange(deps, ctx, actor, clientAddress, organizationId, async (tx, audit) => {
    const inv = orNotFound(await tx.invitations.get(organizationId, id), "Invitation");
    mayInvite(actor, organizationId, inv.role);
    await tx.invitations.delete(inv.id);
    await audit("invitation.cancelled", `invitation:${inv.id}`, { email: inv.email, role: inv.role });
  });
};

/** The pending invitation a mailed token stands for, with its organization; null when unknown or expired. */
export const invitationForToken = async (
  deps: Pick<MemberDeps, "members" | "secrets">,
  token: string,
  now: Date,
): Promise<{ invitation: InvitationRecord; organization: OrganizationRecord } | null> => {
  if (token.length === 0 || token.length > 200) return null;
  const digest = deps.secrets.digest(token);
  const inv = await deps.members.invitationByDigest(digest);
  if (!inv || !deps.secrets.equal(inv.token_digest, digest) || inv.expires_at <= now) return null;
  const organization = await deps.members.organization(inv.organization_id);
  return organization ? { invitation: inv, organization } : null;
};

/**
 * Accepts an invitation for the signed-in account, which must hold the invited address confirmed.
 * An account that is a member already keeps its role; the invitation is used up either way.
 */
export const acceptInvitation = async (
  deps: Pick<MemberDeps, "members" | "secrets">,
  ctx: Context,
  accountId: string,
  token: string,
  clientAddress: string | null,
): Promise<{ membership: MembershipRecord; organization: OrganizationRecord }> => {
  const found = orNotFound(await invitationForToken(deps, token, ctx.now), "Invitation");
  const { invitation, organization } = found;
  const owner = await deps.members.addressOwner(invitation.email_key);
  if (!owner || owner.user_id !== accountId || !owner.confirmed) {
    throw forbidden(`This invitation is for ${invitation.email}: sign in with that address, confirmed, to accept it`);
  }
  const by = byMember(accountId, clientAddress);
  const membership = await deps.members.transaction(async (tx) => {
    await lockOrganization(tx, organization.id);
    const current = await tx.invitations.get(organization.id, invitation.id);
    if (!current || current.token_digest !== invitation.token_digest) throw notFound("Invitation");
    await tx.invitations.delete(invitation.id);
    const existing = await tx.memberships.of(accountId, organization.id);
    if (existing) return existing;
    const m = newMembership(ctx, organization.id, accountId, invitation.role);
    await tx.memberships.insert(m);
    await tx.appendAudit(
      auditRecord(ctx, by, organization.id, "invitation.accepted", `membership:${m.id}`, {
        invitation_id: invitation.id,
        email: invitation.email,
        role: invitation.role,
        invited_by: invitation.invited_by,
      }),
    );
    return m;
  });
  return { membership, organization };
};

/** Whether signed-in users may create organizations themselves (`ORGANIZATION_SIGNUP`). */
export type OrganizationSignup = "open" | "closed";

/**
 * A signed-in account creates an organization and becomes its owner, when signup is open. The
 * contact address must be one the account has confirmed: an organization's issuer address is
 * then as proven as a sign-in address.
 */
export const createOrganizationBySignup = async (
  deps: Pick<MemberDeps, "members">,
  ctx: Context,
  signup: OrganizationSignup,
  accountId: string,
  clientAddress: string | null,
  input: CreateOrganizationInput,
): Promise<{ organization: OrganizationRecord; membership: MembershipRecord }> => {
  if (signup !== "open") throw forbidden("Organizations are created by the operator of this Laurel");
  const account = await deps.members.account(accountId);
  if (!account || account.closed) throw forbidden("Sign in to create an organization");
  const owner = await deps.members.addressOwner(normalizeEmail(input.email));
  if (!owner || owner.user_id !== accountId || !owner.confirmed) {
    throw validationFailed("The contact e-mail must be a confirmed address of your account", [
      { field: "email", message: "is not a confirmed address of your account" },
    ]);
  }
  const organization = newOrganization(input, ctx.newId(), ctx.now);
  const membership = newMembership(ctx, organization.id, accountId, "owner");
  const by = byMember(accountId, clientAddress);
  await deps.members.transaction(async (tx) => {
    await tx.organizations.insert(organization);
    await tx.memberships.insert(membership);
    await tx.appendAudit(
      auditRecord(ctx, by, organization.id, "organization.created", null, { name: organization.name }),
    );
    await tx.appendAudit(
      auditRecord(ctx, by, organization.id, "membership.created", `membership:${membership.id}`, {
        user_id: accountId,
        role: "owner",
      }),
    );
  });
  return { organization, membership };
};

/**
 * An operator creates an organization (the admin tool); with `ownerEmail`, the first owner's
 * invitation goes out in the same step.
 */
export const createOrganizationByOperator = async (
  deps: MemberDeps,
  ctx: Context,
  input: CreateOrganizationInput,
  ownerEmail: string | null,
): Promise<{ organization: OrganizationRecord; invitation: InvitationRecord | null }> => {
  const organization = newOrganization(input, ctx.newId(), ctx.now);
  await deps.members.transaction(async (tx) => {
    await tx.organizations.insert(organization);
    await tx.appendAudit(
      auditRecord(ctx, OPERATOR, organization.id, "organization.created", null, { name: organization.name }),
    );
  });
  if (ownerEmail === null) return { organization, invitation: null };
  const { invitation } = await invite(deps, ctx, { kind: "operator" }, null, organization.id, {
    email: ownerEmail,
    role: "owner",
  });
  return { organization, invitation };
};
