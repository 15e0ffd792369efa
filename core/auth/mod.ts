export type { FlagRequest } from "./authorization_tokens.ts";
export {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  AUTHORIZATION_TOKEN_LIFETIME_SECONDS,
  authorizationTokenExpiry,
  basicTokenValue,
  isReadOnly,
  newTokenFlags,
  rotationCaller,
  seesOnlyReadOnlyTokens,
  tokenUsable,
} from "./authorization_tokens.ts";
export type { Ceiling } from "./ceiling.ts";
export { allowedScopes, ceilingOf, checkScopeList, FULL_CEILING, grantScopes, scopesWithinCeiling } from "./ceiling.ts";
export type { Action, Credential, Flags } from "./permissions.ts";
export { ALL_FLAGS, actionForMethod, authorize, flagsOf } from "./permissions.ts";
export type { Scope } from "./scopes.ts";
export { formatScopes, isScope, parseScopeParam, parseScopeWords, SCOPES } from "./scopes.ts";
export type { TokenRequest, UserGrantRequest } from "./token_request.ts";
export {
  clientCredentials,
  invalidClient,
  isUserGrant,
  MAX_CLIENT_ID_LENGTH,
  MAX_CLIENT_SECRET_LENGTH,
  parseTokenRequest,
  parseUserGrantRequest,
} from "./token_request.ts";
export type { UserScope } from "./user_scopes.ts";
export { isUserScope, parseUserScopeParam, USER_SCOPES } from "./user_scopes.ts";
