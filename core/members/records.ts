import type { AuditActor } from "../audit/mod.ts";
import type { Role } from "./roles.ts";

/** An earner account's place in an organization. */
export interface MembershipRecord {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  created_at: Date;
  updated_at: Date;
}

/** A membership with the account it belongs to, as lists show it. */
export interface MemberView {
  membership: MembershipRecord;
  first_name: string;
  last_name: string;
  /** The account's first address. */
  email: string | null;
}

/** An invitation waiting for its address to accept it; only its token's keyed digest is kept. */
export interface InvitationRecord {
  id: string;
  organization_id: string;
  /** As typed (trimmed), and its normalized key: one pending invitation per address. */
  email: string;
  email_key: string;
  role: Role;
  token_digest: string;
  invited_by: AuditActor;
  /** The inviter's name when the invitation was made, for the mail and the list. */
  invited_by_name: string;
  created_at: Date;
  expires_at: Date;
}
