export { BODY_LIMIT, buildRestApp } from "./app.ts";
export { cachingAuthenticator } from "./authenticator.ts";
export type { Authenticated, Authenticator, AuthenticatorDeps, CredentialRef } from "./authenticator.ts";
export type { RestDeps } from "./deps.ts";
export { ErrorBody, errorBody, STATUS_FOR_CODE } from "./errors.ts";
export { guard, callerOf } from "./guard.ts";
export { Many, many, One, one, OrganizationParams, optionalBody, PageQuery, pageUrlFor } from "./envelope.ts";
export { contextOf, urlsOf } from "./deps.ts";
