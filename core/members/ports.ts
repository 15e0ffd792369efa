import type { AuditRecord } from "../audit/mod.ts";
import type { Page } from "../credentials/mod.ts";
import type { OutboxMail } from "../mail/mod.ts";
import type { OrganizationRecord } from "../organizations/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import type { InvitationRecord, MembershipRecord, MemberView } from "./records.ts";
import type { Role } from "./roles.ts";

/** An account as the member rules need it. */
export interface MemberAccount {
  id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  closed: boolean;
}

/** The organization's row inside a member transaction. */
export interface OrganizationRows {
  /** Locks the row until the transaction ends (owner counts stay true); false: no such organization. */
  lock(organizationId: string): Promise<boolean>;
  get(id: string): Promise<OrganizationRecord | null>;
  insert(org: OrganizationRecord): Promise<void>;
  update(org: OrganizationRecord): Promise<void>;
}

export interface MembershipRows {
  countOwners(organizationId: string): Promise<number>;
  get(organizationId: string, id: string): Promise<MembershipRecord | null>;
  of(accountId: string, organizationId: string): Promise<MembershipRecord | null>;
  insert(membership: MembershipRecord): Promise<void>;
  setRole(id: string, role: Role, now: Date): Promise<void>;
  delete(id: string): Promise<void>;
}

export interface InvitationRows {
  /** Writes the invitation, replacing any other one of the same organization and address. */
  put(invitation: InvitationRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<InvitationRecord | null>;
  delete(id: string): Promise<void>;
}

/** One transaction over the organization, its memberships and invitations, their mails and the audit rows of each change. */
export interface MemberTx {
  organizations: OrganizationRows;
  memberships: MembershipRows;
  invitations: InvitationRows;
  enqueueMail(mail: OutboxMail): Promise<void>;
  appendAudit(entry: AuditRecord): Promise<void>;
}

export interface MemberStore {
  transaction<T>(work: (tx: MemberTx) => Promise<T>): Promise<T>;
  organization(id: string): Promise<OrganizationRecord | null>;
  /** Members by when they joined, oldest first (the first owner heads the list). */
  listMembers(organizationId: string, page: PageRequest): Promise<Page<MemberView>>;
  getMember(organizationId: string, membershipId: string): Promise<MemberView | null>;
  membershipOf(accountId: string, organizationId: string): Promise<MembershipRecord | null>;
  /** The organizations the account belongs to, by name. */
  organizationsOf(accountId: string): Promise<Array<{ organization: OrganizationRecord; role: Role }>>;
  /** Invitations not expired at `now`, newest first. */
  listInvitations(organizationId: string, page: PageRequest, now: Date): Promise<Page<InvitationRecord>>;
  getInvitation(organizationId: string, id: string): Promise<InvitationRecord | null>;
  invitationByDigest(digest: string): Promise<InvitationRecord | null>;
  account(accountId: string): Promise<MemberAccount | null>;
  /** The account owning a normalized address, and whether that address is confirmed. */
  addressOwner(emailKey: string): Promise<{ user_id: string; confirmed: boolean } | null>;
  /** Removes invitations that expired before `before` (at most `limit`); answers how many. */
  pruneInvitations(before: Date, limit: number): Promise<number>;
}
