export type { EventMessage, QueuedMessage, WebhookBusOptions, WorkQueueConsumer } from "./jetstream_webhooks.ts";
export {
  consumeWorkQueue,
  DEFAULT_BUS_OPTIONS,
  DISPATCH_STREAM,
  DISPATCH_SUBJECTS,
  EVENTS_STREAM,
  EVENTS_SUBJECTS,
  ensureWebhookStreams,
  eventSubject,
  jetstreamDispatchPublisher,
  jetstreamEventPublisher,
  WEBHOOK_CONSUMER,
} from "./jetstream_webhooks.ts";
export type { LocalNats } from "./local_nats_server.ts";
export { freePort, startLocalNats } from "./local_nats_server.ts";
export type { NatsConnection, NatsSecurity } from "./nats_connection.ts";
export { connectNats, natsConnectOptions, natsHealthy, watchReconnects } from "./nats_connection.ts";
export type { HostedInvalidation } from "./nats_hosted_invalidations.ts";
export {
  HOSTED_INVALIDATIONS_SUBJECT,
  natsHostedInvalidations,
  subscribeHostedInvalidations,
} from "./nats_hosted_invalidations.ts";
export type { Revocation } from "./nats_revocations.ts";
export { natsRevocationBroadcast, REVOCATIONS_SUBJECT, subscribeRevocations } from "./nats_revocations.ts";
export { natsSettingsChanges, subscribeSettingsChanges, WEBHOOK_SETTINGS_SUBJECT } from "./nats_settings_changes.ts";
