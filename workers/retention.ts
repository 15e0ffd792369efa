import { type AuditLog, pruneAuditLog } from "../core/audit/mod.ts";
import type { MemberStore } from "../core/members/mod.ts";
import { partitionPlan, type WebhookLogPartitions } from "../core/webhooks/mod.ts";
import { type Log, pollLoop } from "./runtime.ts";

export interface RetentionOptions {
  /** How often old rows are looked for: they age by the day, so rarely. */
  intervalMs: number;
  /** Rows removed per statement: small batches keep each transaction short. */
  batch: number;
  /** Finished webhook deliveries and attempts are kept this long, then dropped by whole partitions. */
  webhookLogRetentionDays: number;
  /** Published events are kept this long, then dropped by whole partitions; unset or 0: for good. */
  eventRetentionDays?: number;
}

export interface RetentionDeps {
  audit: Pick<AuditLog, "prune">;
  invitations: Pick<MemberStore, "pruneInvitations">;
  webhookLog: WebhookLogPartitions;
  clock: () => Date;
  log: Log;
}

/**
 * Removes audit rows past their retention and expired invitations, in small batches by an index
 * on their age, in any number of worker processes (each skips rows another is removing). A round
 * that filled a batch runs again at once; otherwise the next waits `intervalMs`. Each round also
 * keeps the weekly partitions of the webhook log and of the events: the next weeks' are created
 * ahead, and weeks past their retention window are dropped whole (never a bulk DELETE): the log's
 * once all their deliveries have finished, the events' once all their events are published.
 */
export const startRetention = (
  deps: RetentionDeps,
  options: RetentionOptions,
): { wake(): void; stop(): Promise<void> } =>
  pollLoop(
    async () => {
      const now = deps.clock();
      const plan = partitionPlan(now, {
        webhookLog: options.webhookLogRetentionDays,
        events: options.eventRetentionDays ?? 0,
      });
      const created = await deps.webhookLog.ensure(plan.ensure);
      let dropped = await deps.webhookLog.dropFinished(plan.dropEndingBy);
      if (plan.dropEventsEndingBy) dropped += await deps.webhookLog.dropPublishedEvents(plan.dropEventsEndingBy);
      if (created + dropped > 0) deps.log.info({ created, dropped }, "webhook log and event partitions kept");
      const audits = await pruneAuditLog(deps.audit, now, options.batch);
      const invitations = await deps.invitations.pruneInvitations(now, options.batch);
      const full = audits >= options.batch || invitations >= options.batch;
      return { full, found: audits + invitations + created + dropped > 0 };
    },
    { intervalMs: options.intervalMs },
    (err) =>
      deps.log.warn(
        { err },
        "removing old audit rows and invitations, or keeping the webhook log's and the events' partitions, failed; retrying",
      ),
  );
