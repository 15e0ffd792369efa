import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  invalidClient,
  parseUserScopeParam,
  type UserGrantRequest,
  type UserScope,
} from "../auth/mod.ts";
import type {
  AccessTokenClaims,
  AccessTokenSigner,
  OAuthApplicationRecord,
  OAuthApplicationStore,
  SecretBox,
} from "../credentials/mod.ts";
import { type CoreError, oauthError, type Result } from "../errors/mod.ts";
import { addSeconds, DAY_SECONDS } from "../shared/mod.ts";
import type { ConnectStore, GrantClient, GrantRecord, SessionRecord } from "./ports.ts";

/** A refresh token is rotated on each use; unused, it lapses after this long. */
export const REFRESH_TOKEN_LIFETIME_SECONDS = 90 * DAY_SECONDS;

export interface UserTokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
}

/** A client that authenticates at the token endpoint: an organization's application or a platform. */
export interface ConnectClient {
  key: GrantClient;
  uid: string;
  secret_digest: string;
}

/** An organization's application as a client of the authorization code flow. */
export const applicationClient = (app: OAuthApplicationRecord): ConnectClient => ({
  key: { kind: "application", id: app.id, organizationId: app.organization_id },
  uid: app.uid,
  secret_digest: app.secret_digest,
});

/** True when the grant (or code) was given to this client. */
export const grantedTo = (
  grant: Pick<GrantRecord, "application_id" | "platform_id">,
  client: Pick<ConnectClient, "key">,
): boolean =>
  client.key.kind === "application" ? grant.application_id === client.key.id : grant.platform_id === client.key.id;

export interface ConnectTokenDeps {
  store: ConnectStore;
  clients: { findByUid(uid: string): Promise<ConnectClient | null> };
  secrets: SecretBox;
  signer: AccessTokenSigner;
  issuer: string;
  /** BASE64URL(SHA-256(ASCII(verifier))), RFC 7636 §4.2. */
  s256(verifier: string): string;
  /** Told of each request whose client authenticated, and whether it was granted tokens. */
  recordUse(client: ConnectClient, granted: boolean): void;
}

const NO_CLIENT_DIGEST = "-";
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const invalidGrant = (deps: ConnectTokenDeps, app: ConnectClient, description: string): CoreError => {
  deps.recordUse(app, false);
  return oauthError("invalid_grant", description);
};

const granted = (deps: ConnectTokenDeps, app: ConnectClient, token: UserTokenResponse): UserTokenResponse => {
  deps.recordUse(app, true);
  return token;
};

const authenticateClient = async (
  deps: Pick<ConnectTokenDeps, "clients" | "secrets">,
  request: Pick<UserGrantRequest, "clientId" | "clientSecret">,
): Promise<ConnectClient | null> => {
  const app = await deps.clients.findByUid(request.clientId);
  const presented = deps.secrets.digest(request.clientSecret);
  const matches = deps.secrets.equal(presented, app?.secret_digest ?? NO_CLIENT_DIGEST);
  return app && matches ? app : null;
};

const tokens = async (
  deps: ConnectTokenDeps,
  ctx: { now: Date; newId: () => string },
  app: ConnectClient,
  userId: string,
  session: SessionRecord,
  refresh: string,
): Promise<UserTokenResponse> => {
  const iat = Math.floor(ctx.now.getTime() / 1000);
  const claims: AccessTokenClaims = {
    iss: deps.issuer,
    sub: userId,
    client_id: app.uid,
    scope: session.scopes,
    jti: ctx.newId(),
    iat,
    exp: iat + ACCESS_TOKEN_LIFETIME_SECONDS,
    sid: session.id,
  };
  return {
    access_token: await deps.signer.sign(claims),
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
    refresh_token: refresh,
    scope: session.scopes,
    created_at: iat,
  };
};

const newRefresh = (deps: ConnectTokenDeps, now: Date, sessionId: string) => {
  const value = deps.secrets.newSecret();
  return {
    value,
    record: {
      digest: deps.secrets.digest(value),
      session_id: sessionId,
      created_at: now,
      expires_at: addSeconds(now, REFRESH_TOKEN_LIFETIME_SECONDS),
      used_at: null,
    },
  };
};

/**
 * The `authorization_code` and `refresh_token` grants. A code is single-use: the second exchange
 * revokes the tokens the first one issued (RFC 6749 §4.1.2). A refresh token is rotated on each
 * use, and one presented again revokes the whole grant (RFC 9700 §4.14.2).
 */
export const exchangeUserGrant = async (
  deps: ConnectTokenDeps,
  ctx: { now: Date; newId: () => string },
  request: UserGrantRequest,
): Promise<UserTokenResponse> => {
  const app = await authenticateClient(deps, request);
  if (!app) throw invalidClient();
  const now = ctx.now;
  if (request.grant === "refresh_token") {
    const found = await deps.store.useRefresh(deps.secrets.digest(request.refreshToken), now);
    if (!found) throw invalidGrant(deps, app, "Unknown refresh token");
    const active = await deps.store.activeSession(found.session.id);
    if (found.refresh.used_at !== null) {
      await deps.store.revokeGrant(found.session.grant_id, now);
      throw invalidGrant(deps, app, "Refresh token already used: the grant is revoked");
    }
    if (!active || !grantedTo(active.grant, app)) throw invalidGrant(deps, app, "Unknown refresh token");
    if (found.refresh.expires_at.getTime() <= now.getTime()) throw invalidGrant(deps, app, "Refresh token expired");
    const next = newRefresh(deps, now, found.session.id);
    await deps.store.insertRefresh(next.record);
    return granted(deps, app, await tokens(deps, ctx, app, active.grant.user_id, found.session, next.value));
  }
  const sessionId = ctx.newId();
  const code = await deps.store.useCode(deps.secrets.digest(request.code), now, sessionId);
  if (!code || !grantedTo(code, app)) throw invalidGrant(deps, app, "Unknown authorization code");
  if (code.used_at !== null) {
    if (code.session_id) await deps.store.revokeSession(code.session_id, now);
    throw invalidGrant(deps, app, "Authorization code already used: the tokens it gave are revoked");
  }
  if (code.expires_at.getTime() <= now.getTime()) throw invalidGrant(deps, app, "Authorization code expired");
  if (code.redirect_uri !== request.redirectUri)
    throw invalidGrant(deps, app, "redirect_uri differs from the authorization request");
  if (
    !VERIFIER.test(request.codeVerifier) ||
    !deps.secrets.equal(deps.s256(request.codeVerifier), code.code_challenge)
  ) {
    throw invalidGrant(deps, app, "code_verifier does not match the code_challenge");
  }
  const session: SessionRecord = {
    id: sessionId,
    grant_id: code.grant_id,
    scopes: code.scopes,
    created_at: now,
    revoked_at: null,
  };
  const refresh = newRefresh(deps, now, sessionId);
  await deps.store.insertSession(session, refresh.record);
  // The grant may have been removed while the code waited.
  if (!(await deps.store.activeSession(sessionId))) throw invalidGrant(deps, app, "The earner removed this access");
  return granted(deps, app, await tokens(deps, ctx, app, code.user_id, session, refresh.value));
};

/** The earner behind an earner-granted access token, while its family and grant stand. */
export interface GrantCaller<S extends string> {
  userId: string;
  scopes: S[];
  grant: GrantRecord;
  client: ConnectClient;
}

export type UserCaller = GrantCaller<UserScope>;

/**
 * Who a token's claims name, when its family, its grant and its client all still stand and its
 * scopes are all of the kind `parseScopes` knows: a token of another kind of client opens nothing.
 */
export const grantCaller = async <S extends string>(
  deps: Pick<ConnectTokenDeps, "store" | "clients">,
  claims: Partial<Record<keyof AccessTokenClaims, unknown>>,
  parseScopes: (raw: string) => Result<S[], string>,
): Promise<GrantCaller<S> | null> => {
  if (typeof claims.sid !== "string" || typeof claims.sub !== "string" || typeof claims.client_id !== "string") {
    return null;
  }
  const scopes = parseScopes(typeof claims.scope === "string" ? claims.scope : "");
  if (!scopes.ok) return null;
  const active = await deps.store.activeSession(claims.sid);
  if (!active || active.grant.user_id !== claims.sub) return null;
  const client = await deps.clients.findByUid(claims.client_id);
  if (!client || !grantedTo(active.grant, client)) return null;
  return { userId: claims.sub, scopes: scopes.value, grant: active.grant, client };
};

/** The earner behind a token an organization's application holds (the user API). */
export const userCaller = (
  deps: Pick<ConnectTokenDeps, "store"> & { apps: Pick<OAuthApplicationStore, "findByUid"> },
  claims: Partial<Record<keyof AccessTokenClaims, unknown>>,
): Promise<UserCaller | null> => {
  const clients = {
    findByUid: async (uid: string) => {
      const app = await deps.apps.findByUid(uid);
      return app ? applicationClient(app) : null;
    },
  };
  return grantCaller({ store: deps.store, clients }, claims, parseUserScopeParam);
};

/** A token revocation request (RFC 7009 §2.1), its client authenticated as at the token endpoint. */
export interface RevocationRequest {
  clientId: string;
  clientSecret: string;
  token: string;
}

/**
 * Revokes the token family a refresh token or an access token belongs to (RFC 7009): every token
 * of that family stops working at once, since each call reads the family. A token that is unknown,
 * already revoked or another client's is answered the same way, with nothing done (RFC 7009 §2.2).
 */
export const revokeUserToken = async (
  deps: Pick<ConnectTokenDeps, "store" | "clients" | "secrets">,
  ctx: { now: Date },
  request: RevocationRequest,
  /** The `sid` of an access token whose signature and expiry check out, else null. */
  accessTokenFamily: (token: string) => Promise<string | null>,
): Promise<void> => {
  const client = await authenticateClient(deps, request);
  if (!client) throw invalidClient();
  const byRefresh = await deps.store.refreshSession(deps.secrets.digest(request.token));
  const family = byRefresh ?? (await familyOfAccessToken(deps, request.token, accessTokenFamily));
  if (family && grantedTo(family.grant, client)) await deps.store.revokeSession(family.session.id, ctx.now);
};

const familyOfAccessToken = async (
  deps: Pick<ConnectTokenDeps, "store">,
  token: string,
  accessTokenFamily: (token: string) => Promise<string | null>,
) => {
  const sid = await accessTokenFamily(token);
  return sid === null ? null : deps.store.activeSession(sid);
};
