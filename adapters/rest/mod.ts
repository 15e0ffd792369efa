export { buildAdminApp } from "./admin_app.ts";
export type { HttpLimits } from "./app.ts";
export { BODY_LIMIT, buildRestApp } from "./app.ts";
export type { Authenticated, Authenticator, AuthenticatorDeps, CredentialRef } from "./authenticator.ts";
export { cachingAuthenticator } from "./authenticator.ts";
export type { BadgeRestDeps, CredentialSigning } from "./badge_deps.ts";
export type { RestDeps } from "./deps.ts";
export { contextOf, urlsOf } from "./deps.ts";
export { Many, many, One, OrganizationParams, one, optionalBody, PageQuery, pageUrlFor } from "./envelope.ts";
export { ErrorBody, errorBody, RETRY_AFTER_SECONDS, STATUS_FOR_CODE, UNAVAILABLE_MESSAGE } from "./errors.ts";
export type { FreshReads } from "./fresh_reads.ts";
export { freshReads, sendFreshBody } from "./fresh_reads.ts";
export { callerOf, guard } from "./guard.ts";
export type { ImageUploads, MultipartForm } from "./image_uploads.ts";
export { decodeImageDataUri, readMultipart, storeImage } from "./image_uploads.ts";
export type {
  BadgeImageBaker,
  BadgeImageSource,
  BadgeRecords,
  BakedFormat,
  BakedReadError,
  BakedRecord,
  HostedBroadcast,
  HostedKind,
  HostedRecordCache,
  ImageType,
} from "./obi/mod.ts";
export {
  badgeImageBaker,
  badgeRecords,
  hostedRecordCache,
  IMAGE_CONTENT_TYPE,
  invalidatingStore,
  readBaked,
  storedBadgeImages,
} from "./obi/mod.ts";
