export type {
  PlatformRecord,
  PlatformStore,
  RegisterDeps,
  RegistrationError,
  RegistrationErrorCode,
  RegistrationRequest,
} from "./platforms.ts";
export {
  checkPlatformAuthorizeRequest,
  DEFAULT_MAX_PLATFORMS,
  MAX_CONTACTS,
  MAX_REDIRECT_URIS,
  platformClient,
  platformGrant,
  platformListing,
  platformScopes,
  readRegistration,
  registerPlatform,
  registrationResponse,
  removePlatform,
} from "./platforms.ts";
export type { CredentialQuery, PageRelation } from "./resources.ts";
export {
  credentialPage,
  DEFAULT_CREDENTIALS_LIMIT,
  earnerProfile,
  MAX_CREDENTIALS_LIMIT,
  pageRelations,
  profileNameOf,
  readCredentialQuery,
  visibleToPlatform,
} from "./resources.ts";
export type { ObScope } from "./scopes.ts";
export { OB_SCOPE, OB_SCOPE_DESCRIPTIONS, OB_SCOPE_PLAIN, OB_SCOPES, parseObScopeParam } from "./scopes.ts";
export { upsertCredential } from "./upsert.ts";
