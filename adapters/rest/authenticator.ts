import { type Credential, tokenUsable } from "../../core/auth/mod.ts";
import {
  type AccessTokenClaims,
  type AuthorizationTokenRecord,
  type AuthorizationTokenStore,
  accessTokenCredential,
  type OAuthApplicationRecord,
  type OAuthApplicationStore,
  type SecretBox,
  tokenCredential,
} from "../../core/credentials/mod.ts";
import type { Revocation } from "../bus/mod.ts";

export type CredentialRef = { kind: "oauth"; id: number } | { kind: "authorization_token"; id: string };

export interface Authenticated {
  credential: Credential;
  ref: CredentialRef;
  /** The stored authorization token, for rotation. */
  token?: AuthorizationTokenRecord;
}

export interface Authenticator {
  /** The caller behind an `Authorization` header, or null when it is missing, unknown or no longer valid. */
  authenticate(header: string | undefined, now: Date): Promise<Authenticated | null>;
  /** Drops cached credentials that a revocation names; called for local and remote revocations. */
  revoke(r: Revocation): void;
  /** Records use of a credential, at most once a minute per credential and kind of use. */
  recordUse(ref: CredentialRef, allowed: boolean, now: Date): void;
  /** The application behind a client id, cached like the rest (the token endpoint's hot path). */
  application(clientId: string): Promise<OAuthApplicationRecord | null>;
}

export interface AuthenticatorDeps {
  tokens: Pick<AuthorizationTokenStore, "findByDigest">;
  apps: Pick<OAuthApplicationStore, "findByUid">;
  secrets: SecretBox;
  verifyAccessToken(token: string): Promise<Partial<AccessTokenClaims> | null>;
  writeUse(ref: CredentialRef, at: Date, allowed: boolean): Promise<void>;
  onWriteError(err: unknown): void;
  /** How long a looked-up credential is trusted before the database is asked again. */
  cacheMs?: number;
  maxEntries?: number;
}

interface Cached<T> {
  value: T;
  until: number;
}

/**
 * Caches what the database said about a credential for a short while (the hot path of every
 * request). Revocations arrive over NATS and evict at once; the database stays the source of truth.
 */
export const cachingAuthenticator = (deps: AuthenticatorDeps): Authenticator => {
  const ttl = deps.cacheMs ?? 30_000;
  const max = deps.maxEntries ?? 50_000;
  const tokensByDigest = new Map<string, Cached<AuthorizationTokenRecord | null>>();
  const appsByClientId = new Map<string, Cached<OAuthApplicationRecord | null>>();
  const bearer = new Map<string, Cached<Partial<AccessTokenClaims>>>();
  const lastWrite = new Map<string, number>();

  const put = <T>(map: Map<string, Cached<T>>, key: string, value: T, until: number): void => {
    if (map.size >= max) map.clear();
    map.set(key, { value, until });
  };

  const application = async (clientId: string, nowMs = Date.now()): Promise<OAuthApplicationRecord | null> => {
    const hit = appsByClientId.get(clientId);
    if (hit && hit.until > nowMs) return hit.value;
    const app = await deps.apps.findByUid(clientId);
    put(appsByClientId, clientId, app, nowMs + ttl);
    return app;
  };

  const basic = async (header: string, now: Date): Promise<Authenticated | null> => {
    let decoded: string;
    try {
      decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
    } catch {
      return null;
    }
    const colon = decoded.indexOf(":");
    const value = colon === -1 ? decoded : decoded.slice(0, colon);
    if (value.length === 0 || value.length > 512) return null;
    const digest = deps.secrets.digest(value);
    const nowMs = now.getTime();
    let hit = tokensByDigest.get(digest);
    if (!hit || hit.until <= nowMs) {
      const token = await deps.tokens.findByDigest(digest);
      hit = { value: token, until: nowMs + ttl };
      put(tokensByDigest, digest, token, hit.until);
    }
    const token = hit.value;
    if (!token || !tokenUsable(token, now)) return null;
    return { credential: tokenCredential(token), ref: { kind: "authorization_token", id: token.id }, token };
  };

  const bearerAuth = async (header: string, now: Date): Promise<Authenticated | null> => {
    const jwt = header.slice(7).trim();
    if (jwt.length === 0 || jwt.length > 4096) return null;
    const nowMs = now.getTime();
    let claims = bearer.get(jwt);
    if (!claims || claims.until <= nowMs) {
      const verified = await deps.verifyAccessToken(jwt);
      if (!verified || typeof verified.exp !== "number") return null;
      claims = { value: verified, until: Math.min(verified.exp * 1000, nowMs + ttl) };
      put(bearer, jwt, verified, claims.until);
    }
    if ((claims.value.exp ?? 0) * 1000 <= nowMs) return null;
    const clientId = claims.value.client_id;
    if (typeof clientId !== "string") return null;
    const app = await application(clientId, nowMs);
    if (!app) return null;
    const credential = accessTokenCredential(claims.value, app);
    return credential ? { credential, ref: { kind: "oauth", id: app.id } } : null;
  };

  return {
    application: (clientId) => application(clientId),
    async authenticate(header, now) {
      if (!header) return null;
      const scheme = header.slice(0, 7).toLowerCase();
      if (scheme.startsWith("basic ")) return basic(header, now);
      if (scheme === "bearer ") return bearerAuth(header, now);
      return null;
    },
    revoke(r) {
      if (r.kind === "token") {
        tokensByDigest.delete(r.digest);
      } else {
        appsByClientId.set(r.clientId, { value: null, until: Number.POSITIVE_INFINITY });
        for (const [jwt, entry] of bearer) if (entry.value.client_id === r.clientId) bearer.delete(jwt);
      }
    },
    recordUse(ref, allowed, now) {
      const key = `${ref.kind}:${ref.id}:${allowed ? "ok" : "used"}`;
      const last = lastWrite.get(key) ?? 0;
      if (now.getTime() - last < 60_000) return;
      if (lastWrite.size >= max) lastWrite.clear();
      lastWrite.set(key, now.getTime());
      deps.writeUse(ref, now, allowed).catch(deps.onWriteError);
    },
  };
};
