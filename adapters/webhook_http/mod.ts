export { BlockedAddressError } from "./guarded_connector.ts";
export type { GuardedFetchOptions } from "./guarded_fetch.ts";
export { guardedDocuments } from "./guarded_fetch.ts";
export type { WebhookPoster, WebhookPosterOptions } from "./undici_poster.ts";
export { undiciWebhookPoster } from "./undici_poster.ts";
