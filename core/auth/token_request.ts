import { parseScopeParam, type Scope } from "./scopes.ts";

/** RFC 6749 §5.2 error codes the token endpoint answers with. */
export type OAuthErrorCode = "invalid_request" | "invalid_client" | "unsupported_grant_type" | "invalid_scope";

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
 * Reads a `client_credentials` token request (DESIGN §3): parameters from a form or JSON body,
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
    return oauthError("unsupported_grant_type", "Only the client_credentials grant is supported");
  }
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
  const scope = parseScopeParam(get("scope"));
  if (!scope.ok) return oauthError("invalid_scope", scope.reason);
  return { ok: true, request: { clientId, clientSecret, scopes: scope.scopes } };
};

/** The status each error answers with (RFC 6749 §5.2). */
export const oauthErrorStatus = (code: OAuthErrorCode): 400 | 401 => (code === "invalid_client" ? 401 : 400);
