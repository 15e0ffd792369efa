import type { EventRecord } from "../events/mod.ts";

/**
 * Whom an earner grants access: an organization's OAuth application, or a platform that
 * registered itself through the Open Badges API and belongs to no organization.
 */
export type GrantClient =
  | { kind: "application"; id: number; organizationId: string }
  | { kind: "platform"; id: number };

/** An earner's consent that a client may read (or change) what its scopes name. */
export interface GrantRecord {
  id: string;
  user_id: string;
  /** Set for an organization's application, null for a platform. */
  application_id: number | null;
  /** Set for a platform, null for an organization's application. */
  platform_id: number | null;
  /** The application's organization; null for a platform. */
  organization_id: string | null;
  /** Space-separated scopes: user scopes for an application, Open Badges scopes for a platform. */
  scopes: string;
  /** Whether the earner let a platform read the badges they keep off their public profile. */
  private_badges: boolean;
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
}

/** A grant as the earner's connections page lists it. */
export interface GrantListing extends GrantRecord {
  /** The application's or the platform's name. */
  application_name: string;
  /** Null for a platform. */
  organization_name: string | null;
}

/** A single-use authorization code, stored by its keyed digest only. */
export interface CodeRecord {
  digest: string;
  grant_id: string;
  user_id: string;
  application_id: number | null;
  platform_id: number | null;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  /** The token family its exchange started, revoked when the code comes back a second time. */
  session_id: string | null;
}

/** The tokens issued from one code exchange and their refreshes. */
export interface SessionRecord {
  id: string;
  grant_id: string;
  scopes: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface RefreshTokenRecord {
  digest: string;
  session_id: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface ConnectStore {
  activeGrant(userId: string, client: GrantClient): Promise<GrantRecord | null>;
  /** Inserts the grant, or widens the scopes of the earner's active grant to the client. */
  saveGrant(grant: GrantRecord): Promise<GrantRecord>;
  insertCode(code: CodeRecord): Promise<void>;
  /** Marks the code used by `sessionId`; answers the code as it stood ahead of that, null when unknown. */
  useCode(digest: string, now: Date, sessionId: string): Promise<CodeRecord | null>;
  insertSession(session: SessionRecord, refresh: RefreshTokenRecord): Promise<void>;
  revokeSession(id: string, now: Date): Promise<void>;
  /** Marks the refresh token used; answers it as it stood ahead of that, with its session, null when unknown. */
  useRefresh(digest: string, now: Date): Promise<{ refresh: RefreshTokenRecord; session: SessionRecord } | null>;
  insertRefresh(refresh: RefreshTokenRecord): Promise<void>;
  /** The family a refresh token belongs to, with its grant, whether or not either still stands. */
  refreshSession(digest: string): Promise<{ session: SessionRecord; grant: GrantRecord } | null>;
  /**
   * Revokes the grant and every token family issued under it, recording `events` with it; null
   * (and no events) when it was not active.
   */
  revokeGrant(id: string, now: Date, events?: EventRecord[]): Promise<GrantRecord | null>;
  /** The session and its grant when both are still active. */
  activeSession(sessionId: string): Promise<{ session: SessionRecord; grant: GrantRecord } | null>;
  grantsOf(userId: string): Promise<GrantListing[]>;
  /** Ids of the organizations holding an active grant from any of these earners. */
  connectedOrganizations(userIds: string[]): Promise<string[]>;
}
