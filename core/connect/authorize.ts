import { parseUserScopeParam, USER_SCOPES, type UserScope } from "../auth/mod.ts";
import type { OAuthApplicationRecord, SecretBox } from "../credentials/mod.ts";
import { redirectUriList, redirectUriRegistered } from "../credentials/mod.ts";
import type { Result } from "../errors/mod.ts";
import { addSeconds } from "../shared/mod.ts";
import type { ConnectStore, GrantClient, GrantRecord } from "./ports.ts";

/** How long an authorization code may wait for its exchange. */
export const CODE_LIFETIME_SECONDS = 60;

/** RFC 6749 §4.1.2.1 codes sent back to the client's redirect URI. */
export type AuthorizeErrorCode =
  | "invalid_request"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "server_error";

/** What a client registers: where it may be sent back to. */
export interface RedirectingClient {
  redirect_uris: string;
}

export interface AuthorizeRequest<A extends RedirectingClient = OAuthApplicationRecord, S extends string = UserScope> {
  app: A;
  redirectUri: string;
  scopes: S[];
  state: string | null;
  codeChallenge: string;
}

export type AuthorizeCheck<A extends RedirectingClient = OAuthApplicationRecord, S extends string = UserScope> =
  /** The client or its redirect URI cannot be trusted: shown on a page, never redirected to. */
  | { kind: "refuse"; reason: string }
  | { kind: "redirect_error"; location: string }
  | { kind: "ok"; request: AuthorizeRequest<A, S> };

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
): AuthorizeCheck => checkClientAuthorizeRequest(params, app, parseUserScopeParam);

/** {@link checkAuthorizeRequest} for any client, its `scope` read by `parseScopes`. */
export const checkClientAuthorizeRequest = <A extends RedirectingClient, S extends string>(
  params: Record<string, unknown>,
  app: A | null,
  parseScopes: (raw: string | undefined) => Result<S[], string>,
): AuthorizeCheck<A, S> => {
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
  const scopes = parseScopes((one("scope") as string | undefined) ?? undefined);
  if (!scopes.ok) return authorizeError(redirectUri, state, "invalid_scope", scopes.error);
  return {
    kind: "ok",
    request: { app, redirectUri, scopes: scopes.value, state, codeChallenge: challenge as string },
  };
};

/** True when the earner already granted this application every scope it asks for now. */
export const grantCovers = (grant: GrantRecord | null, scopes: readonly string[], privateBadges = false): boolean => {
  if (!grant || (privateBadges && !grant.private_badges)) return false;
  const held = new Set(grant.scopes.split(" "));
  return scopes.every((s) => held.has(s));
};

export interface ApproveDeps {
  store: ConnectStore;
  secrets: Pick<SecretBox, "newSecret" | "digest">;
}

/** What a consent grants, beyond the request's scopes: to whom, in what order its scopes are kept. */
export interface GrantTo {
  client: GrantClient;
  /** Every scope the client kind knows, in the order a grant lists them. */
  known: readonly string[];
  /** A platform may be let read the earner's private badges too; widening never narrows it. */
  privateBadges: boolean;
}

/** What an organization's application is granted. */
export const applicationGrant = (app: Pick<OAuthApplicationRecord, "id" | "organization_id">): GrantTo => ({
  client: { kind: "application", id: app.id, organizationId: app.organization_id },
  known: USER_SCOPES,
  privateBadges: false,
});

/** Records (or widens) the earner's grant and answers the redirect carrying a fresh code. */
export const approveAuthorization = async (
  deps: ApproveDeps,
  ctx: { now: Date; newId: () => string },
  userId: string,
  request: AuthorizeRequest<RedirectingClient, string>,
  to: GrantTo,
): Promise<string> => {
  const existing = await deps.store.activeGrant(userId, to.client);
  const held = new Set([...(existing?.scopes.split(" ") ?? []), ...request.scopes]);
  const application = to.client.kind === "application" ? to.client : null;
  const grant = await deps.store.saveGrant({
    id: existing?.id ?? ctx.newId(),
    user_id: userId,
    application_id: application?.id ?? null,
    platform_id: to.client.kind === "platform" ? to.client.id : null,
    organization_id: application?.organizationId ?? null,
    scopes: to.known.filter((s) => held.has(s)).join(" "),
    private_badges: (existing?.private_badges ?? false) || to.privateBadges,
    created_at: existing?.created_at ?? ctx.now,
    updated_at: ctx.now,
    revoked_at: null,
  });
  const code = deps.secrets.newSecret();
  await deps.store.insertCode({
    digest: deps.secrets.digest(code),
    grant_id: grant.id,
    user_id: userId,
    application_id: grant.application_id,
    platform_id: grant.platform_id,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    scopes: request.scopes.join(" "),
    created_at: ctx.now,
    expires_at: addSeconds(ctx.now, CODE_LIFETIME_SECONDS),
    used_at: null,
    session_id: null,
  });
  // RFC 6749 lets the server leave `scope` out when it granted what was asked; the Open Badges API
  // requires it in every authorization response.
  const scope = to.client.kind === "platform" ? request.scopes.join(" ") : null;
  return redirectWith(request.redirectUri, { code, scope, state: request.state });
};
