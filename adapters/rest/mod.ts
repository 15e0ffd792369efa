export { BODY_LIMIT, buildRestApp } from "./app.ts";
export type { Authenticated, Authenticator, AuthenticatorDeps, CredentialRef } from "./authenticator.ts";
export { cachingAuthenticator } from "./authenticator.ts";
export type { RestDeps } from "./deps.ts";
export { contextOf, urlsOf } from "./deps.ts";
export { Many, many, One, OrganizationParams, one, optionalBody, PageQuery, pageUrlFor } from "./envelope.ts";
export { ErrorBody, errorBody, STATUS_FOR_CODE } from "./errors.ts";
export { callerOf, guard } from "./guard.ts";
