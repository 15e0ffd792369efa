import { type CoreError, oauthError } from "../errors/mod.ts";
import { parseScopeParam, type Scope } from "./scopes.ts";

/** One generic description, so a caller cannot tell an unknown client from a wrong secret. */
export const invalidClient = (): CoreError => oauthError("invalid_client", "Client authentication failed");

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  scopes: Scope[];
}

/** Longer client credentials are refused before any look-up (issued ones are 43 characters). */
export const MAX_CLIENT_ID_LENGTH = 128;
export const MAX_CLIENT_SECRET_LENGTH = 256;

const ALLOWED_PARAMS = new Set(["grant_type", "scope", "client_id", "client_secret"]);

/** Client credentials sent with HTTP Basic, "malformed" where the header cannot be read, or null. */
export type BasicCredentials = { clientId: string; clientSecret: string } | "malformed" | null;

/**
 * Refuses a parameter given more than once or not as a string; with `allowed`, also a parameter
 * of another name that is too long to repeat in an answer.
 */
const checkParams = (params: Record<string, unknown>, allowed?: ReadonlySet<string>): void => {
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== "string") throw oauthError("invalid_request", `${key} must be given once, as a string`);
    if (allowed && !allowed.has(key) && key.length > 200)
      throw oauthError("invalid_request", "parameter name too long");
  }
};

/**
 * Reads a `client_credentials` token request: parameters from a form or JSON body,
 * client credentials in the body or in HTTP Basic (`basic`), not both.
 */
export const parseTokenRequest = (params: Record<string, unknown>, basic: BasicCredentials): TokenRequest => {
  checkParams(params, ALLOWED_PARAMS);
  const get = (k: string): string | undefined => params[k] as string | undefined;
  const grant = get("grant_type");
  if (!grant) throw oauthError("invalid_request", "grant_type is required");
  if (grant !== "client_credentials") {
    throw oauthError(
      "unsupported_grant_type",
      "Supported grants: client_credentials, authorization_code, refresh_token",
    );
  }
  const client = clientCredentials(params, basic);
  const scope = parseScopeParam(get("scope"));
  if (!scope.ok) throw oauthError("invalid_scope", scope.error);
  return { ...client, scopes: scope.value };
};

/** Client credentials in the body or in HTTP Basic (RFC 6749 §2.3.1), not both. */
export const clientCredentials = (
  params: Record<string, unknown>,
  basic: BasicCredentials,
): { clientId: string; clientSecret: string } => {
  const get = (k: string): string | undefined => (typeof params[k] === "string" ? params[k] : undefined);
  if (basic === "malformed") throw invalidClient();
  const bodyId = get("client_id");
  const bodySecret = get("client_secret");
  let clientId: string;
  let clientSecret: string;
  if (basic) {
    if (bodySecret !== undefined || (bodyId !== undefined && bodyId !== basic.clientId)) {
      throw oauthError("invalid_request", "Send client credentials either in the body or with HTTP Basic, not both");
    }
    ({ clientId, clientSecret } = basic);
  } else {
    if (!bodyId || !bodySecret) throw invalidClient();
    clientId = bodyId;
    clientSecret = bodySecret;
  }
  // No client has such credentials: refused like any unknown client, before any look-up.
  if (clientId.length > MAX_CLIENT_ID_LENGTH || clientSecret.length > MAX_CLIENT_SECRET_LENGTH) {
    throw invalidClient();
  }
  return { clientId, clientSecret };
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

export const parseUserGrantRequest = (params: Record<string, unknown>, basic: BasicCredentials): UserGrantRequest => {
  checkParams(params);
  const get = (k: string): string => (typeof params[k] === "string" ? params[k] : "");
  // The grant's own parameters first: a malformed request is invalid_request whoever sends it.
  if (get("grant_type") === "refresh_token") {
    const refreshToken = get("refresh_token");
    if (!refreshToken || refreshToken.length > 200) throw oauthError("invalid_request", "refresh_token is required");
    return { grant: "refresh_token", ...clientCredentials(params, basic), refreshToken };
  }
  const code = get("code");
  const redirectUri = get("redirect_uri");
  const codeVerifier = get("code_verifier");
  if (!code || code.length > 200) throw oauthError("invalid_request", "code is required");
  if (!redirectUri) throw oauthError("invalid_request", "redirect_uri is required");
  if (!codeVerifier) throw oauthError("invalid_request", "code_verifier is required (PKCE)");
  return { grant: "authorization_code", ...clientCredentials(params, basic), code, redirectUri, codeVerifier };
};
