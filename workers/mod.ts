export type { EarnerExporter } from "./earner_exporter.ts";
export { startEarnerExporter } from "./earner_exporter.ts";
export type { ExternalReverifier, ExternalReverifierOptions } from "./external_reverifier.ts";
export { startExternalReverifier } from "./external_reverifier.ts";
export type { ImportWorkerDeps, ImportWorkerOptions } from "./import_worker.ts";
export { startImportWorker } from "./import_worker.ts";
export type { MailSender, MailSenderDeps, MailSenderOptions } from "./mail_sender.ts";
export { startMailSender } from "./mail_sender.ts";
export type { OutboxRelay, OutboxRelayDeps, OutboxRelayOptions } from "./outbox_relay.ts";
export { DEFAULT_RELAY_OPTIONS, startOutboxRelay } from "./outbox_relay.ts";
export type { RetentionDeps, RetentionOptions } from "./retention.ts";
export { startRetention } from "./retention.ts";
export type { RetryScheduler, RetrySchedulerDeps, RetrySchedulerOptions } from "./retry_scheduler.ts";
export { startRetryScheduler } from "./retry_scheduler.ts";
export type { Log, PipelineMetrics } from "./runtime.ts";
export { NO_METRICS, semaphore } from "./runtime.ts";
export type {
  Subscribe,
  WebhookWorker,
  WebhookWorkerDeps,
  WebhookWorkerOptions,
  WorkMessage,
} from "./webhook_worker.ts";
export { startWebhookWorker } from "./webhook_worker.ts";
