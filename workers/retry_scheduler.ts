import type { DeliveryStore, DispatchPublisher } from "../core/webhooks/mod.ts";
import { type Log, type PipelineMetrics, pollLoop } from "./runtime.ts";

export interface RetrySchedulerDeps {
  deliveries: Pick<DeliveryStore, "dispatchDue">;
  publisher: DispatchPublisher;
  clock: () => Date;
  metrics: PipelineMetrics;
  log: Log;
}

export interface RetrySchedulerOptions {
  intervalMs: number;
  /** The longest wait while nothing is due (an idle process then asks the database rarely). */
  idleMaxMs?: number;
  batch: number;
  /** A dispatched delivery that is still due this much later is dispatched again (lost message). */
  redispatchAfterMs: number;
}

export interface RetryScheduler {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Long waits live in PostgreSQL, not in JetStream: every interval this puts a message
 * on the dispatch stream for each delivery whose `due_at` has come (a retry, a redelivery, a
 * deferred delivery, or one whose worker died). Safe in any number of processes: rows another
 * scheduler holds are skipped, and a duplicate message only finds its delivery already claimed.
 */
export const startRetryScheduler = (deps: RetrySchedulerDeps, options: RetrySchedulerOptions): RetryScheduler =>
  pollLoop(
    async () => {
      const now = deps.clock();
      const n = await deps.deliveries.dispatchDue(
        now,
        options.batch,
        new Date(now.getTime() + options.redispatchAfterMs),
        (due) => deps.publisher.publish(due),
      );
      if (n > 0) deps.metrics.dispatched(n);
      return { full: n >= options.batch, found: n > 0 };
    },
    options,
    (err) => deps.log.warn({ err }, "retry scheduler could not dispatch; retrying"),
  );
