export { buildAdminApp } from "./admin_app.ts";
export type { HttpLimits } from "./app.ts";
export { asCoreError, BODY_LIMIT, buildRestApp } from "./app.ts";
export type { Authenticated, Authenticator, AuthenticatorDeps, CredentialRef } from "./authenticator.ts";
export { cachingAuthenticator } from "./authenticator.ts";
export type { BadgeRestDeps, CredentialSigning } from "./badge_deps.ts";
export type { RestDeps } from "./deps.ts";
export { contextOf, urlsOf } from "./deps.ts";
export { Many, many, One, OrganizationParams, one, optionalBody, PageQuery, pageUrlFor } from "./envelope.ts";
export type { RestAnswer } from "./errors.ts";
export {
  codeForStatus,
  ErrorBody,
  errorBody,
  REST_FOR_CODE,
  RETRY_AFTER_SECONDS,
  restAnswer,
  UNAVAILABLE_MESSAGE,
} from "./errors.ts";
export type { FreshReads } from "./fresh_reads.ts";
export { freshReads, sendFreshBody } from "./fresh_reads.ts";
export { callerOf, guard } from "./guard.ts";
export type { ImageUploads } from "./image_uploads.ts";
export { decodeImageDataUri, storeImage } from "./image_uploads.ts";
export type { OAuthAnswer, OAuthErrorBody } from "./oauth_errors.ts";
export { OAUTH_FOR_CODE, oauthAnswer } from "./oauth_errors.ts";
export type {
  BadgeImageBaker,
  BadgeImageSource,
  BadgeRecords,
  BakedFormat,
  BakedReadError,
  BakedRecord,
  BakedRecordChoice,
  DataIntegrityCredentials,
  DataIntegritySigning,
  HostedBroadcast,
  HostedKind,
  HostedRecordCache,
  ImageType,
} from "./obi/mod.ts";
export {
  badgeImageBaker,
  badgeRecords,
  dataIntegrityCredentials,
  endorsementCredentials,
  hostedRecordCache,
  IMAGE_CONTENT_TYPE,
  invalidatingStore,
  readBaked,
  storedBadgeImages,
} from "./obi/mod.ts";
