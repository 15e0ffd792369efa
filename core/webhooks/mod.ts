export type { AddressBlockReason, Cidr, IpAddress } from "./addresses.ts";
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
export type { AttemptRequest, PostResult } from "./attempt.ts";
export {
  ATTEMPT_ERROR_MAX_LENGTH,
  buildAttemptRequest,
  concludeAttempt,
  webhookAttemptJson,
  webhookDeliveryJson,
} from "./attempt.ts";
export type {
  AttemptClassification,
  AttemptOutcome,
  AttemptRecordInput,
  AttemptResult,
  DeliveryProgress,
  DeliveryStatus,
} from "./delivery.ts";
export {
  ATTEMPT_OUTCOMES,
  afterAttempt,
  canTransition,
  classifyResponse,
  DELIVERY_STATUSES,
  DELIVERY_TRANSITIONS,
  newDeliveryProgress,
} from "./delivery.ts";
export { DESTINATION_POLICY, type DestinationPolicy, destinationIsFailing, putOffSeconds } from "./destination.ts";
export { RESPONSE_EXCERPT_BYTES, responseExcerpt } from "./excerpt.ts";
export type { DeliveryLogEntry, OperatorDeps } from "./operator.ts";
export {
  deliveryLog,
  listAttempts,
  listDeliveries,
  redeliverEvent,
  redeliverFailed,
  sendTestEvent,
} from "./operator.ts";
export type { PartitionPlan, RetentionDays, WebhookLogPartitions } from "./partitions.ts";
export {
  DEFAULT_WEBHOOK_LOG_RETENTION_DAYS,
  PARTITION_WEEKS_AHEAD,
  partitionPlan,
  partitionWeekEnd,
  weekStart,
} from "./partitions.ts";
export type {
  ClaimedDelivery,
  DeliveryAdminStore,
  DeliveryClaim,
  DeliveryFilter,
  DeliveryStore,
  DeliveryTargets,
  DispatchPublisher,
  DueDelivery,
  EventRef,
  RecordedAttempt,
  RecordedFirstAttempt,
  StoredDeliveryTarget,
  WebhookCrypto,
  WebhookSettingsStore,
} from "./ports.ts";
export type { DeliveryEvent, WebhookAttemptRecord, WebhookDeliveryRecord, WebhookSettingsRecord } from "./records.ts";
export type { NextAttemptInput, RetrySchedule } from "./retry_schedule.ts";
export {
  DEFAULT_SCHEDULE,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_WINDOW_SECONDS,
  retryDelaySeconds,
} from "./retry_schedule.ts";
export type { WebhookSettingsDeps } from "./settings.ts";
export {
  getWebhookSettings,
  openSecrets,
  setDataServices,
  updateWebhookSettings,
  webhookSecret,
  webhookSettingsJson,
} from "./settings.ts";
export {
  AttemptOutcomeSchema,
  DataServicesSetting,
  DeliveryStatusSchema,
  EventTypeSelectionSchema,
  WebhookAttempt,
  WebhookDelivery,
  WebhookSecret,
  WebhookSettings,
  WebhookSettingsInput,
} from "./shapes.ts";
export type { SigningSecrets } from "./signing.ts";
export {
  activeSecrets,
  formatSignatureHeader,
  formatWebhookSecret,
  parseWebhookSecret,
  rotateSecrets,
  SECRET_ROTATION_OVERLAP_SECONDS,
  signingInput,
  WEBHOOK_SECRET_BYTES,
  WEBHOOK_SECRET_PREFIX,
  webhookHeaders,
  webhookTimestamp,
} from "./signing.ts";
export type { DeliveryRuleInput, EventTypeSelection, NotDeliveredReason } from "./subscription.ts";
export {
  deliveryOutlook,
  NOT_DELIVERED_REASONS,
  normalizeEventTypes,
  notDeliveredReason,
  parseEventTypeList,
  shouldDeliver,
  TEST_EVENT_TYPE,
} from "./subscription.ts";
export type { WebhookUrlParts } from "./url.ts";
export {
  assertWebhookUrl,
  DEFAULT_MAX_CONCURRENT_PER_DESTINATION,
  destinationKey,
  parseWebhookUrl,
  validateWebhookUrl,
  WEBHOOK_URL_MAX_LENGTH,
} from "./url.ts";
