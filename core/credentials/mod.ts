export type { AccessTokenDeps } from "./access_tokens.ts";
export { accessTokenCredential, issueAccessToken } from "./access_tokens.ts";
export type { AuthorizationTokenDeps } from "./authorization_tokens.ts";
export {
  authorizationTokenJson,
  createAuthorizationToken,
  createInitialAuthorizationToken,
  findUsableToken,
  listAuthorizationTokens,
  manageableToken,
  replaceAuthorizationToken,
  revokeAuthorizationToken,
  rotateAuthorizationToken,
  tokenCredential,
} from "./authorization_tokens.ts";
export type { OAuthApplicationDeps } from "./oauth_applications.ts";
export {
  applicationCeiling,
  applicationScopes,
  auditByOf,
  createOAuthApplication,
  deleteOAuthApplication,
  getOAuthApplication,
  listOAuthApplications,
  oauthApplicationJson,
  updateOAuthApplication,
} from "./oauth_applications.ts";
export type {
  AccessTokenClaims,
  AccessTokenSigner,
  AuthorizationTokenStore,
  Context,
  OAuthApplicationStore,
  OrganizationStore,
  Page,
  RevocationBroadcast,
  SecretBox,
} from "./ports.ts";
export type { AuthorizationTokenRecord, OAuthApplicationRecord } from "./records.ts";
export {
  checkRedirectUris,
  redirectUriList,
  redirectUriProblem,
  redirectUriRegistered,
  uriHost,
} from "./redirect_uris.ts";
export {
  AccessToken,
  AuthorizationToken,
  CreateAuthorizationTokenInput,
  CreateOAuthApplicationInput,
  OAuthApplication,
  RotateAuthorizationTokenInput,
  UpdateOAuthApplicationInput,
} from "./shapes.ts";
