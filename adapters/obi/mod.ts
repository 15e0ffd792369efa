export type {
  BadgeImage,
  BadgeImageBaker,
  BadgeImageSource,
  BakedRecordChoice,
  ImageType,
} from "./badge_image_baker.ts";
export { BAKED_CACHE, badgeImageBaker, IMAGE_CONTENT_TYPE, storedBadgeImages } from "./badge_image_baker.ts";
export type { BadgeRecords } from "./badge_records.ts";
export { badgeRecords } from "./badge_records.ts";
export type { BakedFormat, BakedReadError, BakedRecord } from "./baked_images.ts";
export { bakePng, bakeSvg, PNG_KEYWORD, readBaked } from "./baked_images.ts";
export type { DataIntegrityCredentials, DataIntegritySigning, MultikeyDocument } from "./data_integrity_credentials.ts";
export { DATA_INTEGRITY_CACHE, dataIntegrityCredentials } from "./data_integrity_credentials.ts";
export { DEFAULT_BADGE_IMAGE_PNG, DEFAULT_BADGE_IMAGE_SVG } from "./default_badge_image.ts";
export type { EndorsementCredentials } from "./endorsement_credentials.ts";
export { endorsementCredentials } from "./endorsement_credentials.ts";
export type { HostedBroadcast, HostedEntry, HostedKind, HostedRecordCache } from "./hosted_cache.ts";
export { hostedRecordCache, invalidatingStore } from "./hosted_cache.ts";
export type { ImageUploads } from "./image_uploads.ts";
export { decodeImageDataUri, storeImage } from "./image_uploads.ts";
export type { ObiMediaType } from "./negotiation.ts";
export { JSON_TYPE, LD_JSON, matchesIfNoneMatch, obiMediaType, prefersLinkedData } from "./negotiation.ts";
