export type { BusLog } from "./checked_messages.ts";
export type { EventMessageSeal, QueuedMessage, WebhookBusOptions, WorkQueueConsumer } from "./jetstream_webhooks.ts";
export {
  consumeWorkQueue,
  DEFAULT_BUS_OPTIONS,
  DISPATCH_QUEUE,
  DISPATCH_STREAM,
  DISPATCH_SUBJECTS,
  EVENTS_QUEUE,
  EVENTS_STREAM,
  EVENTS_SUBJECTS,
  ensureWebhookStreams,
  eventMessageSeal,
  eventSubject,
  jetstreamDispatchPublisher,
  jetstreamEventPublisher,
  WEBHOOK_CONSUMER,
} from "./jetstream_webhooks.ts";
export type { LocalNats } from "./local_nats_server.ts";
export { freePort, startLocalNats } from "./local_nats_server.ts";
export type { Channel, NatsConnection, NatsSecurity } from "./nats_connection.ts";
export { connectNats, natsConnectOptions, natsHealthy, watchReconnects } from "./nats_connection.ts";
export type { HostedInvalidation } from "./nats_hosted_invalidations.ts";
export {
  HOSTED_INVALIDATIONS,
  natsHostedInvalidations,
  subscribeHostedInvalidations,
} from "./nats_hosted_invalidations.ts";
export type { Revocation } from "./nats_revocations.ts";
export { natsRevocationBroadcast, REVOCATIONS, subscribeRevocations } from "./nats_revocations.ts";
export { natsSettingsChanges, subscribeSettingsChanges, WEBHOOK_SETTINGS_CHANGES } from "./nats_settings_changes.ts";
