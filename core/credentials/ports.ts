import type { AuditBy, AuditRecord } from "../audit/mod.ts";
import type { OrganizationRecord } from "../organizations/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import type { AuthorizationTokenRecord, OAuthApplicationRecord } from "./records.ts";

/** Secret handling, filled by the crypto adapter (HMAC-SHA-256 digests, AES-256-GCM sealing). */
export interface SecretBox {
  /** A fresh credential value: at least 256 random bits, base64url. */
  newSecret(): string;
  /** Keyed digest used to store and find a secret without keeping it. */
  digest(secret: string): string;
  seal(plain: string): string;
  open(sealed: string): string;
  /** Constant-time equality of two strings. */
  equal(a: string, b: string): boolean;
}

export interface Page<T> {
  items: T[];
  total: number;
}

export interface OrganizationStore {
  get(id: string): Promise<OrganizationRecord | null>;
  list(page: PageRequest): Promise<Page<OrganizationRecord>>;
  insert(org: OrganizationRecord): Promise<void>;
  /** How many organizations have no contact e-mail. */
  countWithoutEmail(): Promise<number>;
  /** Gives `email` to every organization without one; returns how many. */
  fillMissingEmail(email: string, now: Date): Promise<number>;
}

export interface OAuthApplicationStore {
  list(organizationId: string, page: PageRequest): Promise<Page<OAuthApplicationRecord>>;
  /**
   * The version of the organization's applications: it moves with every committed change to them
   * (any write, in its own commit), so while it reads the same, so does every page of `list`.
   */
  listVersion(organizationId: string): Promise<number>;
  get(organizationId: string, id: number): Promise<OAuthApplicationRecord | null>;
  findByUid(uid: string): Promise<OAuthApplicationRecord | null>;
  /** Each write records its audit row in its own transaction (`audit` gets the new application's id). */
  insert(app: Omit<OAuthApplicationRecord, "id">, audit: (id: number) => AuditRecord): Promise<OAuthApplicationRecord>;
  update(app: OAuthApplicationRecord, audit: AuditRecord): Promise<void>;
  remove(organizationId: string, id: number, audit: AuditRecord): Promise<boolean>;
}

export interface AuthorizationTokenStore {
  list(
    organizationId: string,
    page: PageRequest,
    filter: { readOnly: boolean },
  ): Promise<Page<AuthorizationTokenRecord>>;
  findByDigest(digest: string): Promise<AuthorizationTokenRecord | null>;
  /** One of the organization's tokens, revoked or not. */
  get(organizationId: string, id: string): Promise<AuthorizationTokenRecord | null>;
  /** Each write records its audit row in its own transaction. */
  insert(token: AuthorizationTokenRecord, audit: AuditRecord): Promise<void>;
  /** Atomically revokes `oldId` (if still unrevoked) and inserts `replacement`; false if it was already revoked. */
  rotate(oldId: string, replacement: AuthorizationTokenRecord, now: Date, audit: AuditRecord): Promise<boolean>;
  /** Revokes the organization's token `id`; null when there is no such unrevoked token, else its digest. */
  revoke(organizationId: string, id: string, now: Date, audit: AuditRecord): Promise<string | null>;
}

/** Claims of an access token. */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  client_id: string;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  /** Only on an earner's token: the token family it belongs to (see core/connect). */
  sid?: string;
}

export interface AccessTokenSigner {
  sign(claims: AccessTokenClaims): Promise<string>;
}

/** Tells every API process that a credential stopped working, so caches drop it at once. */
export interface RevocationBroadcast {
  applicationRevoked(clientId: string): Promise<void>;
  tokenRevoked(digest: string): Promise<void>;
}

/** The clock and the id source of a use case: core never reads them itself. */
export interface Context {
  now: Date;
  newId: () => string;
  /**
   * Who acts and from where, for the audit log: a member in the console, or the request's
   * credential and client address. Absent, a use case names the credential it was given.
   */
  by?: AuditBy;
}
