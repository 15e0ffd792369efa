import type { EventRecord } from "../events/mod.ts";

/** An earner's consent that an organization's application may read what its scopes name. */
export interface GrantRecord {
  id: string;
  user_id: string;
  application_id: number;
  organization_id: string;
  /** Space-separated user scopes. */
  scopes: string;
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
}

/** A grant as the earner's connections page lists it. */
export interface GrantListing extends GrantRecord {
  application_name: string;
  organization_name: string;
}

/** A single-use authorization code, stored by its keyed digest only. */
export interface CodeRecord {
  digest: string;
  grant_id: string;
  user_id: string;
  application_id: number;
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
  activeGrant(userId: string, applicationId: number): Promise<GrantRecord | null>;
  /** Inserts the grant, or widens the scopes of the earner's active grant to the application. */
  saveGrant(grant: GrantRecord): Promise<GrantRecord>;
  insertCode(code: CodeRecord): Promise<void>;
  /** Marks the code used by `sessionId`; answers the code as it stood ahead of that, null when unknown. */
  useCode(digest: string, now: Date, sessionId: string): Promise<CodeRecord | null>;
  insertSession(session: SessionRecord, refresh: RefreshTokenRecord): Promise<void>;
  revokeSession(id: string, now: Date): Promise<void>;
  /** Marks the refresh token used; answers it as it stood ahead of that, with its session, null when unknown. */
  useRefresh(digest: string, now: Date): Promise<{ refresh: RefreshTokenRecord; session: SessionRecord } | null>;
  insertRefresh(refresh: RefreshTokenRecord): Promise<void>;
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
