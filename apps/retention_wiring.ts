import {
  type Database,
  postgresAuditLog,
  postgresMemberStore,
  postgresWebhookLogPartitions,
} from "../adapters/db/mod.ts";
import { type Log, startRetention } from "../workers/mod.ts";

/**
 * Audit rows past 400 days and expired invitations go, hourly, in every process that runs workers;
 * the weekly partitions of the webhook log and of the events are created ahead and dropped past
 * `webhookLogRetentionDays` and `eventRetentionDays` (0: events are kept for good).
 */
export const startRetentionJob = (
  db: Database,
  log: Log,
  webhookLogRetentionDays: number,
  eventRetentionDays: number,
): { stop(): Promise<void> } =>
  startRetention(
    {
      audit: postgresAuditLog(db),
      invitations: postgresMemberStore(db),
      webhookLog: postgresWebhookLogPartitions(db),
      clock: () => new Date(),
      log,
    },
    { intervalMs: 3_600_000, batch: 1000, webhookLogRetentionDays, eventRetentionDays },
  );
