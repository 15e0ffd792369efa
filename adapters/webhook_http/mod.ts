export { BlockedAddressError } from "./guarded_connector.ts";
export type { WebhookPoster, WebhookPosterOptions } from "./undici_poster.ts";
export { undiciWebhookPoster } from "./undici_poster.ts";
