export { DEFAULT_BADGE_IMAGE_SVG } from "./default_badge_image.ts";
export type { HostedBroadcast, HostedEntry, HostedKind, HostedRecordCache } from "./hosted_cache.ts";
export { hostedRecordCache, invalidatingStore } from "./hosted_cache.ts";
export type { ObiMediaType } from "./negotiation.ts";
export { JSON_TYPE, LD_JSON, matchesIfNoneMatch, obiMediaType } from "./negotiation.ts";
