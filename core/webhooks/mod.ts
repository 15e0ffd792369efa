export {
  ADDRESS_BLOCK_REASONS,
  addressBlockReason,
  addressInCidr,
  formatCidr,
  isForbiddenAddress,
  parseAllowedNetworks,
  parseCidr,
  parseIp,
} from "./addresses.ts";
export type { AddressBlockReason, Cidr, IpAddress } from "./addresses.ts";
export {
  ATTEMPT_OUTCOMES,
  DELIVERY_STATUSES,
  DELIVERY_TRANSITIONS,
  afterAttempt,
  canTransition,
  classifyResponse,
  newDeliveryProgress,
} from "./delivery.ts";
export type {
  AttemptClassification,
  AttemptOutcome,
  AttemptRecordInput,
  AttemptResult,
  DeliveryProgress,
  DeliveryStatus,
} from "./delivery.ts";
export { RESPONSE_EXCERPT_BYTES, responseExcerpt } from "./excerpt.ts";
export {
  DEFAULT_SCHEDULE,
  RETRY_WINDOW_SECONDS,
  nextAttemptAt,
  parseRetryAfter,
  retryDelaySeconds,
} from "./retry_schedule.ts";
export type { NextAttemptInput, RetrySchedule } from "./retry_schedule.ts";
export {
  AttemptOutcomeSchema,
  DeliveryStatusSchema,
  EventTypeSelectionSchema,
  WebhookAttempt,
  WebhookDelivery,
  WebhookSecret,
  WebhookSettings,
  WebhookSettingsInput,
} from "./shapes.ts";
export {
  SECRET_ROTATION_OVERLAP_SECONDS,
  WEBHOOK_SECRET_BYTES,
  WEBHOOK_SECRET_PREFIX,
  activeSecrets,
  formatSignatureHeader,
  formatWebhookSecret,
  parseWebhookSecret,
  rotateSecrets,
  signingInput,
  webhookHeaders,
  webhookTimestamp,
} from "./signing.ts";
export type { SigningSecrets } from "./signing.ts";
export {
  NOT_DELIVERED_REASONS,
  normalizeEventTypes,
  notDeliveredReason,
  parseEventTypeList,
  shouldDeliver,
} from "./subscription.ts";
export type { DeliveryRuleInput, EventTypeSelection, NotDeliveredReason } from "./subscription.ts";
export {
  DEFAULT_MAX_CONCURRENT_PER_DESTINATION,
  WEBHOOK_URL_MAX_LENGTH,
  assertWebhookUrl,
  destinationKey,
  parseWebhookUrl,
  validateWebhookUrl,
} from "./url.ts";
export type { WebhookUrlParts } from "./url.ts";
