import type { BadgeState, OrganizationRef } from "../badges/mod.ts";
import type { EventRecord } from "../events/mod.ts";
import type { BadgeView, TemplateView, UserRecord } from "../issuing/mod.ts";
import type { ConnectionTx } from "../workforce/mod.ts";

/** What a mailed link lets its holder do once. */
export type LinkPurpose = "sign_in" | "add_email" | "merge";

/** A mailed, single-use link; only the hash of its token is kept. */
export interface EarnerLink {
  token_hash: string;
  purpose: LinkPurpose;
  /** The address the link was mailed to (as typed, trimmed) and its normalized key. */
  email: string;
  email_key: string;
  /** The account that asked for it (adding an address, merging); null for a sign-in. */
  user_id: string | null;
  /** Where to go after a sign-in: a path inside Laurel, checked with `safeNext`. */
  next_path: string | null;
  /** Digest of the requesting client's address (the per-client limit), when known. */
  client_key: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface EarnerSession {
  token_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** An earner account with its web settings. */
export interface EarnerAccount {
  user: UserRecord;
  public_profile: boolean;
  vanity_name: string | null;
  closed_at: Date | null;
}

/** A mailed link, used once; a closed account's links end. */
export interface LinkChanges {
  lockLink(tokenHash: string): Promise<EarnerLink | null>;
  markLinkUsed(tokenHash: string, now: Date): Promise<void>;
  /** Ends the account's links not used yet: nothing may act for an account once it is closed. */
  endLinks(userId: string, now: Date): Promise<void>;
}

/** A pending-badge mail's link, used to sign its recipient in. */
export interface BadgeLinkChanges {
  /** The badge a notification link names, its row locked: its state, recipient and link digest. */
  lockBadgeLink(
    badgeId: string,
  ): Promise<{ state: BadgeState; recipient_email: string; accept_token_digest: string | null } | null>;
  /** The link has signed its recipient in: it names the badge no more (a resent mail makes a new one). */
  endBadgeLink(badgeId: string): Promise<void>;
}

/** Accounts and their addresses: who owns one, a new account, a confirmed or removed address. */
export interface AddressChanges {
  /** The account owning a normalized address, and whether that address is confirmed. */
  ownerOf(emailKey: string): Promise<{ user_id: string; confirmed: boolean } | null>;
  insertUser(user: UserRecord, emailKeys: string[]): Promise<"inserted" | "email_taken">;
  /** Adds a confirmed address to the account, or confirms it when it is already the account's. */
  confirmEmail(userId: string, email: string, emailKey: string, now: Date): Promise<void>;
  /** Removes an address of the account; its badges stay with the account. */
  removeEmail(userId: string, emailKey: string): Promise<void>;
  /** Links badges sent to these addresses (and not linked yet) to the account. */
  linkBadges(userId: string, emailKeys: string[], now: Date): Promise<number>;
  /** The name the latest badge sent to the address was issued to (a new account takes it). */
  latestRecipientName(emailKey: string): Promise<{ first_name: string; last_name: string } | null>;
}

/** Sessions opened by a link, revoked together. */
export interface SessionChanges {
  insertSession(session: EarnerSession): Promise<void>;
  revokeSessions(userId: string, now: Date): Promise<void>;
}

/** Merging one account into another, and who must hear of it. */
export interface AccountMerge {
  /**
   * Locks the accounts' rows until the transaction ends, always in id order (two transactions
   * locking the same accounts queue rather than deadlock), and answers those that exist.
   */
  lockAccounts(userIds: string[]): Promise<Array<{ id: string; closed_at: Date | null }>>;
  /** Moves the source account's addresses and badges to the destination and closes the source. */
  mergeAccounts(sourceId: string, destinationId: string, now: Date): Promise<void>;
  /** Ids of the organizations that issued a badge held by any of these accounts. */
  organizationsHoldingBadges(userIds: string[]): Promise<string[]>;
  /** Ids of the organizations holding an active connect grant from any of these accounts. */
  connectedOrganizations(userIds: string[]): Promise<string[]>;
  /** Revokes the account's active connect grants and every token family issued under them. */
  endGrants(userId: string, now: Date): Promise<void>;
}

/**
 * One transaction over accounts, links, sessions and the badges they own. It combines the ports
 * above because redeeming one link may use all of them at once (a merge link confirms, merges,
 * ends links, grants and sessions, and records its events in one commit).
 */
export interface EarnerTx extends LinkChanges, BadgeLinkChanges, AddressChanges, SessionChanges, AccountMerge {
  appendEvents(events: EventRecord[]): Promise<void>;
  /** Employee records follow the account's confirmed addresses in the same transaction. */
  connections: ConnectionTx;
}

/** Mailed links asked for, and the sessions they opened. */
export interface SignInStore {
  insertLink(link: EarnerLink): Promise<void>;
  /** Links made since `since` for this address and for this client (null: not counted). */
  recentLinks(emailKey: string, clientKey: string | null, since: Date): Promise<{ address: number; client: number }>;
  getSession(tokenHash: string): Promise<EarnerSession | null>;
  revokeSession(tokenHash: string, now: Date): Promise<void>;
  revokeSessions(userId: string, now: Date): Promise<void>;
}

/** The account's own settings. */
export interface AccountStore {
  getAccount(userId: string): Promise<EarnerAccount | null>;
  /** By vanity name, case-insensitively. */
  accountByVanity(name: string): Promise<EarnerAccount | null>;
  updateName(userId: string, firstName: string, lastName: string, now: Date): Promise<void>;
  updateProfile(userId: string, publicProfile: boolean, vanity: string | null, now: Date): Promise<"updated" | "taken">;
}

/** What the wallet and the public pages read. */
export interface EarnerPageReads {
  /** Every badge linked to the account, newest first. */
  userBadges(userId: string): Promise<BadgeView[]>;
  getIssuer(organizationId: string): Promise<OrganizationRef | null>;
  /** The organization's active public templates with how many badges each has issued. */
  issuerTemplates(organizationId: string): Promise<TemplateView[]>;
}

/**
 * The earner side's storage (accounts, links, sessions) and the reads its pages need: one store
 * on one database serves the ports it combines.
 */
export interface EarnerStore extends SignInStore, AccountStore, EarnerPageReads {
  transaction<T>(work: (tx: EarnerTx) => Promise<T>): Promise<T>;
}
