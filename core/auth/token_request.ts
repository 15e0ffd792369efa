import { parseScopeParam, type Scope } from "./scopes.ts";

/** RFC 6749 §5.2 error codes the token endpoint answers with. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "invalid_scope";

export interface OAuthError {
  error: OAuthErrorCode;
  error_description: string;
}

/** One generic description, so a caller cannot tell an unknown client from a wrong secret. */
export const INVALID_CLIENT: OAuthError = {
  error: "invalid_client",
  error_description: "Client authentication failed",
};

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  scopes: Scope[];
}

const oauthError = (error: OAuthErrorCode, error_description: string): { ok: false; error: OAuthError } => ({
  ok: false,
  error: { error, error_description },
});

/** Longer client credentials are refused before any look-up (issued ones are 43 characters). */
export const MAX_CLIENT_ID_LENGTH = 128;
export const MAX_CLIENT_SECRET_LENGTH = 256;

const ALLOWED_PARAMS = new Set(["grant_type", "scope", "client_id", "client_secret"]);

/**
 * Reads a `client_credentials` token request: parameters from a form or JSON body,
 * client credentials in the body or in HTTP Basic (`basic`), not both.
 */
export const parseTokenRequest = (
  params: Record<string, unknown>,
  basic: { clientId: string; clientSecret: string } | "malformed" | null,
): { ok: true; request: TokenRequest } | { ok: false; error: OAuthError } => {
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== "string") return oauthError("invalid_request", `${key} must be given once, as a string`);
    if (!ALLOWED_PARAMS.has(key) && key.length > 200) return oauthError("invalid_request", "parameter name too long");
  }
  const get = (k: string): string | undefined => params[k] as string | undefined;
  const grant = get("grant_type");
  if (!grant) return oauthError("invalid_request", "grant_type is required");
  if (grant !== "client_credentials") {
    return oauthError(
      "unsupported_grant_type",
      "Supported grants: client_credentials, authorization_code, refresh_token",
    );
  }
  const client = clientCredentials(params, basic);
  if (!client.ok) return client;
  const scope = parseScopeParam(get("scope"));
  if (!scope.ok) return oauthError("invalid_scope", scope.reason);
  return { ok: true, request: { ...client.client, scopes: scope.scopes } };
};

/** Client credentials in the body or in HTTP Basic (RFC 6749 §2.3.1), not both. */
export const clientCredentials = (
  params: Record<string, unknown>,
  basic: { clientId: string; clientSecret: string } | "malformed" | null,
): { ok: true; client: { clientId: string; clientSecret: string } } | { ok: false; error: OAuthError } => {
  const get = (k: string): string | undefined => (typeof params[k] === "string" ? params[k] : undefined);
  if (basic === "malformed") return { ok: false, error: INVALID_CLIENT };
  const bodyId = get("client_id");
  const bodySecret = get("client_secret");
  let clientId: string;
  let clientSecret: string;
  if (basic) {
    if (bodySecret !== undefined || (bodyId !== undefined && bodyId !== basic.clientId)) {
      return oauthError("invalid_request", "Send client credentials either in the body or with HTTP Basic, not both");
    }
    ({ clientId, clientSecret } = basic);
  } else {
    if (!bodyId || !bodySecret) return { ok: false, error: INVALID_CLIENT };
    clientId = bodyId;
    clientSecret = bodySecret;
  }
  // No client has such credentials: refused like any unknown client, before any look-up.
  if (clientId.length > MAX_CLIENT_ID_LENGTH || clientSecret.length > MAX_CLIENT_SECRET_LENGTH) {
    return { ok: false, error: INVALID_CLIENT };
  }
  return { ok: true, client: { clientId, clientSecret } };
};

/** An `authorization_code` or `refresh_token` request (RFC 6749 §4.1.3, §6; RFC 7636 §4.5). */
export type UserGrantRequest =
  | {
      grant: "authorization_code";
      clientId: string;
      clientSecret: string;
      code: string;
      redirectUri: string;
      codeVerifier: string;
    }
  | { grant: "refresh_token"; clientId: string; clientSecret: string; refreshToken: string };

export const isUserGrant = (params: Record<string, unknown>): boolean =>
  params.grant_type === "authorization_code" || params.grant_type === "refresh_token";

export const parseUserGrantRequest = (
  params: Record<string, unknown>,
  basic: { clientId: string; clientSecret: string } | "malformed" | null,
): { ok: true; request: UserGrantRequest } | { ok: false; error: OAuthError } => {
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== "string") return oauthError("invalid_request", `${key} must be given once, as a string`);
  }
  const get = (k: string): string => (typeof params[k] === "string" ? params[k] : "");
  // The grant's own parameters first: a malformed request is invalid_request whoever sends it.
  if (get("grant_type") === "refresh_token") {
    const refreshToken = get("refresh_token");
    if (!refreshToken || refreshToken.length > 200) return oauthError("invalid_request", "refresh_token is required");
    const client = clientCredentials(params, basic);
    if (!client.ok) return client;
    return { ok: true, request: { grant: "refresh_token", ...client.client, refreshToken } };
  }
  const code = get("code");
  const redirectUri = get("redirect_uri");
  const codeVerifier = get("code_verifier");
  if (!code || code.length > 200) return oauthError("invalid_request", "code is required");
  if (!redirectUri) return oauthError("invalid_request", "redirect_uri is required");
  if (!codeVerifier) return oauthError("invalid_request", "code_verifier is required (PKCE)");
  const client = clientCredentials(params, basic);
  if (!client.ok) return client;
  return { ok: true, request: { grant: "authorization_code", ...client.client, code, redirectUri, codeVerifier } };
};

/** The status each error answers with (RFC 6749 §5.2). */
export const oauthErrorStatus = (code: OAuthErrorCode): 400 | 401 => (code === "invalid_client" ? 401 : 400);
