import { basicTokenValue, type Credential, MAX_CLIENT_ID_LENGTH, tokenUsable } from "../../core/auth/mod.ts";
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
import { boundedCache, type CacheLimits, keyBytes } from "../cache/mod.ts";

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
  /**
   * Drops every cached credential (deny markers stay): for a process that was cut off from the
   * revocations, such as one reconnecting to NATS.
   */
  forgetAll(): void;
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
  /** Monotonic milliseconds for the caches' ages (tests move it by hand). */
  now?: () => number;
  /** Bounds of each cache; unset ones keep `AUTHENTICATOR_CACHES`. */
  caches?: Partial<typeof AUTHENTICATOR_CACHES>;
}

/**
 * What the authenticator keeps. Looked-up credentials are trusted for 30 s (revocations evict at
 * once); misses apart and briefly, so a flood of unknown credentials evicts only other misses;
 * deny markers of revoked applications outlive every access token they issued (7200 s).
 */
export const AUTHENTICATOR_CACHES = {
  tokens: { maxEntries: 50_000, maxBytes: 32 * 1024 * 1024, ttlMs: 30_000 },
  applications: { maxEntries: 20_000, maxBytes: 16 * 1024 * 1024, ttlMs: 30_000 },
  bearer: { maxEntries: 50_000, maxBytes: 64 * 1024 * 1024, ttlMs: 30_000 },
  misses: { maxEntries: 10_000, maxBytes: 2 * 1024 * 1024, ttlMs: 5_000 },
  denied: { maxEntries: 10_000, maxBytes: 2 * 1024 * 1024, ttlMs: 7_200_000 },
  uses: { maxEntries: 100_000, maxBytes: 16 * 1024 * 1024, ttlMs: 60_000 },
} satisfies Record<string, CacheLimits>;

/** Longest credential accepted before any look-up: a token value, an access token. */
export const MAX_TOKEN_LENGTH = 512;
export const MAX_ACCESS_TOKEN_LENGTH = 4096;

const MISS = "miss";
const recordBytes = (value: unknown, key: string): number => keyBytes(key) + JSON.stringify(value).length * 2;

/**
 * Caches what the database said about a credential for a short while (the hot path of every
 * request). Revocations arrive over NATS and evict at once; the database stays the source of truth.
 *
 * A look-up that a revocation overtook (the revocation arrived while the database was being asked)
 * may hold the credential as it stood ahead of the revocation: it is asked again, and never cached, so a revoked
 * credential cannot come back into the cache.
 */
export const cachingAuthenticator = (deps: AuthenticatorDeps): Authenticator => {
  const limits = { ...AUTHENTICATOR_CACHES, ...deps.caches };
  const clock = deps.now ? { now: deps.now } : {};
  const tokensByDigest = boundedCache<AuthorizationTokenRecord>(limits.tokens, { ...clock, sizeOf: recordBytes });
  const appsByClientId = boundedCache<OAuthApplicationRecord>(limits.applications, { ...clock, sizeOf: recordBytes });
  const bearer = boundedCache<Partial<AccessTokenClaims>>(limits.bearer, { ...clock, sizeOf: recordBytes });
  const misses = boundedCache<typeof MISS>(limits.misses, clock);
  const denied = boundedCache<true>(limits.denied, clock);
  const uses = boundedCache<true>(limits.uses, clock);
  /** Counts revocations and cache drops; a look-up that saw it change was overtaken by one. */
  let generation = 0;

  /** `read()`, asked again when a revocation arrived meanwhile; `settled`: no revocation overtook it. */
  const lookUp = async <T>(read: () => Promise<T>): Promise<{ value: T; settled: boolean }> => {
    for (let attempt = 1; ; attempt++) {
      const started = generation;
      const value = await read();
      if (generation === started) return { value, settled: true };
      if (attempt === 3) return { value, settled: false };
    }
  };

  const application = async (clientId: string): Promise<OAuthApplicationRecord | null> => {
    // No issued client id is that long or holds NUL, which PostgreSQL refuses in text.
    if (clientId.length === 0 || clientId.length > MAX_CLIENT_ID_LENGTH || clientId.includes("\u0000")) return null;
    if (denied.get(`a:${clientId}`)) return null;
    const hit = appsByClientId.get(clientId);
    if (hit) return hit;
    if (misses.get(`a:${clientId}`)) return null;
    const { value: app, settled } = await lookUp(() => deps.apps.findByUid(clientId));
    if (denied.get(`a:${clientId}`)) return null;
    if (!settled) return app;
    if (app) appsByClientId.set(clientId, app);
    else misses.set(`a:${clientId}`, MISS);
    return app;
  };

  const storedToken = async (digest: string): Promise<AuthorizationTokenRecord | null> => {
    const hit = tokensByDigest.get(digest);
    if (hit) return hit;
    if (misses.get(`t:${digest}`)) return null;
    const { value: token, settled } = await lookUp(() => deps.tokens.findByDigest(digest));
    if (!settled) return token;
    if (token) tokensByDigest.set(digest, token);
    else misses.set(`t:${digest}`, MISS);
    return token;
  };

  const basic = async (header: string, now: Date): Promise<Authenticated | null> => {
    const encoded = header.slice(6).trim();
    // base64 of the longest token value, a colon and a short password.
    if (encoded.length > (MAX_TOKEN_LENGTH * 4) / 3 + 16) return null;
    const value = basicTokenValue(Buffer.from(encoded, "base64").toString("utf8"));
    if (value === null || value.length > MAX_TOKEN_LENGTH) return null;
    const token = await storedToken(deps.secrets.digest(value));
    if (!token || !tokenUsable(token, now)) return null;
    return { credential: tokenCredential(token), ref: { kind: "authorization_token", id: token.id }, token };
  };

  const bearerAuth = async (header: string, now: Date): Promise<Authenticated | null> => {
    const jwt = header.slice(7).trim();
    if (jwt.length === 0 || jwt.length > MAX_ACCESS_TOKEN_LENGTH) return null;
    const nowMs = now.getTime();
    let claims = bearer.get(jwt);
    if (!claims) {
      const verified = await deps.verifyAccessToken(jwt);
      if (!verified || typeof verified.exp !== "number") return null;
      claims = verified;
      const left = verified.exp * 1000 - nowMs;
      if (left > 0) bearer.set(jwt, verified, Math.min(left, limits.bearer.ttlMs));
    }
    if ((claims.exp ?? 0) * 1000 <= nowMs) return null;
    const clientId = claims.client_id;
    if (typeof clientId !== "string") return null;
    const app = await application(clientId);
    if (!app) return null;
    const credential = accessTokenCredential(claims, app);
    return credential ? { credential, ref: { kind: "oauth", id: app.id } } : null;
  };

  return {
    application,
    async authenticate(header, now) {
      if (!header) return null;
      const scheme = header.slice(0, 7).toLowerCase();
      if (scheme.startsWith("basic ")) return basic(header, now);
      if (scheme === "bearer ") return bearerAuth(header, now);
      return null;
    },
    revoke(r) {
      generation++;
      if (r.kind === "token") {
        tokensByDigest.delete(r.digest);
        misses.delete(`t:${r.digest}`);
      } else {
        denied.set(`a:${r.clientId}`, true);
        appsByClientId.delete(r.clientId);
        const issued = [...bearer.entries()].filter(([, claims]) => claims.client_id === r.clientId);
        for (const [jwt] of issued) bearer.delete(jwt);
      }
    },
    forgetAll() {
      generation++;
      tokensByDigest.clear();
      appsByClientId.clear();
      bearer.clear();
      misses.clear();
    },
    recordUse(ref, allowed, now) {
      const key = `${ref.kind}:${ref.id}:${allowed ? "ok" : "used"}`;
      if (uses.get(key)) return;
      uses.set(key, true);
      deps.writeUse(ref, now, allowed).catch(deps.onWriteError);
    },
  };
};
