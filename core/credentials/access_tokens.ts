import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  type Credential,
  formatScopes,
  grantScopes,
  invalidClient,
  parseScopeParam,
  type TokenRequest,
} from "../auth/mod.ts";
import { oauthError } from "../errors/mod.ts";
import { applicationCeiling, applicationScopes } from "./oauth_applications.ts";
import type { AccessTokenClaims, AccessTokenSigner, Context, OAuthApplicationStore, SecretBox } from "./ports.ts";
import type { OAuthApplicationRecord } from "./records.ts";
import type { AccessToken } from "./shapes.ts";

export interface AccessTokenDeps {
  apps: Pick<OAuthApplicationStore, "findByUid">;
  secrets: SecretBox;
  signer: AccessTokenSigner;
  issuer: string;
  /** Told of each request that named an existing application, and whether it was granted a token. */
  recordUse(app: OAuthApplicationRecord, granted: boolean): void;
}

/** Sentinel digest compared when the client is unknown, so both failures cost the same. */
const NO_CLIENT_DIGEST = "-";

/**
 * The `client_credentials` grant (docs/interface.md, Authentication): checks the client secret in constant time
 * and signs a 7200-second access token for the application's organization, with the scopes asked
 * for when the application may be granted every one of them (`invalid_scope` otherwise).
 */
export const issueAccessToken = async (
  deps: AccessTokenDeps,
  ctx: Context,
  request: TokenRequest,
): Promise<AccessToken> => {
  const app = await deps.apps.findByUid(request.clientId);
  const presented = deps.secrets.digest(request.clientSecret);
  const matches = deps.secrets.equal(presented, app?.secret_digest ?? NO_CLIENT_DIGEST);
  if (!app || !matches) {
    if (app) deps.recordUse(app, false);
    throw invalidClient();
  }
  const granted = grantScopes(request.scopes, applicationScopes(app));
  if (!granted.ok) {
    deps.recordUse(app, false);
    throw oauthError("invalid_scope", `This application may not be granted: ${formatScopes(granted.error)}`);
  }
  const iat = Math.floor(ctx.now.getTime() / 1000);
  const scope = formatScopes(granted.value);
  const claims: AccessTokenClaims = {
    iss: deps.issuer,
    sub: app.organization_id,
    client_id: app.uid,
    scope,
    jti: ctx.newId(),
    iat,
    exp: iat + ACCESS_TOKEN_LIFETIME_SECONDS,
  };
  const access_token = await deps.signer.sign(claims);
  deps.recordUse(app, true);
  return { access_token, token_type: "Bearer", expires_in: ACCESS_TOKEN_LIFETIME_SECONDS, scope, created_at: iat };
};

/**
 * The caller behind verified access-token claims, or null when they are not ours. Its scopes are
 * those of the token that the application may still be granted, and its flags its ceiling's.
 */
export const accessTokenCredential = (
  claims: Partial<Record<keyof AccessTokenClaims, unknown>>,
  app: OAuthApplicationRecord,
): Credential | null => {
  if (typeof claims.scope !== "string" || typeof claims.jti !== "string") return null;
  // An earner's token (it names a token family) never acts for an organization.
  if (claims.sid !== undefined) return null;
  if (claims.sub !== app.organization_id || claims.client_id !== app.uid) return null;
  const scopes = parseScopeParam(claims.scope);
  if (!scopes.ok) return null;
  const allowed = applicationScopes(app);
  return {
    kind: "oauth",
    organizationId: app.organization_id,
    applicationId: app.id,
    clientId: app.uid,
    jti: claims.jti,
    scopes: scopes.value.filter((s) => allowed.includes(s)),
    ceiling: applicationCeiling(app).flags,
  };
};
