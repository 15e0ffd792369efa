import { parseUserScopeParam, type UserScope } from "../auth/mod.ts";
import type { OAuthApplicationRecord, SecretBox } from "../credentials/mod.ts";
import { redirectUriList, redirectUriRegistered } from "../credentials/mod.ts";
import { addSeconds } from "../shared/mod.ts";
import type { ConnectStore, GrantRecord } from "./ports.ts";

/** How long an authorization code may wait for its exchange. */
export const CODE_LIFETIME_SECONDS = 60;

/** RFC 6749 §4.1.2.1 codes sent back to the client's redirect URI. */
export type AuthorizeErrorCode =
  | "invalid_request"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "server_error";

export interface AuthorizeRequest {
  app: OAuthApplicationRecord;
  redirectUri: string;
  scopes: UserScope[];
  state: string | null;
  codeChallenge: string;
}

export type AuthorizeCheck =
  /** The client or its redirect URI cannot be trusted: shown on a page, never redirected to. */
  | { kind: "refuse"; reason: string }
  | { kind: "redirect_error"; location: string }
  | { kind: "ok"; request: AuthorizeRequest };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The redirect URI with these parameters added to its query (RFC 6749 §4.1.2). */
export const redirectWith = (uri: string, params: Record<string, string | null>): string => {
  const query = Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== null)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join("&");
  return `${uri}${uri.includes("?") ? "&" : "?"}${query}`;
};

export const authorizeError = (
  uri: string,
  state: string | null,
  error: AuthorizeErrorCode,
  description: string,
): { kind: "redirect_error"; location: string } => ({
  kind: "redirect_error",
  location: redirectWith(uri, { error, error_description: description, state }),
});

/**
 * Reads an authorization request (RFC 6749 §4.1.1 with RFC 7636 PKCE, S256 only). The client and
 * its redirect URI are checked first: until both are known good nothing is redirected anywhere.
 */
export const checkAuthorizeRequest = (
  params: Record<string, unknown>,
  app: OAuthApplicationRecord | null,
): AuthorizeCheck => {
  const one = (k: string): string | null | "many" => {
    const v = params[k];
    if (v === undefined) return null;
    return typeof v === "string" ? v : "many";
  };
  const clientId = one("client_id");
  const redirectUri = one("redirect_uri");
  if (clientId === null || clientId === "many") return { kind: "refuse", reason: "client_id is missing" };
  if (!app) return { kind: "refuse", reason: "This application is not known to Laurel." };
  if (redirectUri === null || redirectUri === "many") return { kind: "refuse", reason: "redirect_uri is missing" };
  if (!redirectUriRegistered(redirectUriList(app.redirect_uris), redirectUri)) {
    return { kind: "refuse", reason: "This redirect URI is not registered for the application." };
  }
  const stateRaw = one("state");
  if (stateRaw === "many") return authorizeError(redirectUri, null, "invalid_request", "state given more than once");
  const state = stateRaw;
  for (const k of ["response_type", "scope", "code_challenge", "code_challenge_method"]) {
    if (one(k) === "many") return authorizeError(redirectUri, state, "invalid_request", `${k} given more than once`);
  }
  if (one("response_type") !== "code") {
    return authorizeError(redirectUri, state, "unsupported_response_type", "Only response_type=code is supported");
  }
  const challenge = one("code_challenge");
  if (challenge === null) return authorizeError(redirectUri, state, "invalid_request", "code_challenge is required");
  if (one("code_challenge_method") !== "S256") {
    return authorizeError(redirectUri, state, "invalid_request", "code_challenge_method must be S256");
  }
  if (!CHALLENGE.test(challenge as string)) {
    return authorizeError(redirectUri, state, "invalid_request", "code_challenge must be 43 base64url characters");
  }
  const scopes = parseUserScopeParam((one("scope") as string | undefined) ?? undefined);
  if (!scopes.ok) return authorizeError(redirectUri, state, "invalid_scope", scopes.error);
  return {
    kind: "ok",
    request: { app, redirectUri, scopes: scopes.value, state, codeChallenge: challenge as string },
  };
};

/** True when the earner already granted this application every scope it asks for now. */
export const grantCovers = (grant: GrantRecord | null, scopes: readonly UserScope[]): boolean => {
  if (!grant) return false;
  const held = new Set(grant.scopes.split(" "));
  return scopes.every((s) => held.has(s));
};

export interface ApproveDeps {
  store: ConnectStore;
  secrets: Pick<SecretBox, "newSecret" | "digest">;
}

/** Records (or widens) the earner's grant and answers the redirect carrying a fresh code. */
export const approveAuthorization = async (
  deps: ApproveDeps,
  ctx: { now: Date; newId: () => string },
  userId: string,
  request: AuthorizeRequest,
): Promise<string> => {
  const existing = await deps.store.activeGrant(userId, request.app.id);
  const held = new Set([...(existing?.scopes.split(" ") ?? []), ...request.scopes]);
  const grant = await deps.store.saveGrant({
    id: existing?.id ?? ctx.newId(),
    user_id: userId,
    application_id: request.app.id,
    organization_id: request.app.organization_id,
    scopes: ["profile", "public_badges"].filter((s) => held.has(s)).join(" "),
    created_at: existing?.created_at ?? ctx.now,
    updated_at: ctx.now,
    revoked_at: null,
  });
  const code = deps.secrets.newSecret();
  await deps.store.insertCode({
    digest: deps.secrets.digest(code),
    grant_id: grant.id,
    user_id: userId,
    application_id: request.app.id,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    scopes: request.scopes.join(" "),
    created_at: ctx.now,
    expires_at: addSeconds(ctx.now, CODE_LIFETIME_SECONDS),
    used_at: null,
    session_id: null,
  });
  return redirectWith(request.redirectUri, { code, state: request.state });
};
