import type { EventPublisher, Outbox } from "../core/events/mod.ts";
import {
  failureLog,
  idleBackoff,
  keptListener,
  type Listener,
  type Log,
  type PipelineMetrics,
  wakeableSleep,
} from "./runtime.ts";

export interface OutboxRelayDeps {
  outbox: Outbox;
  publisher: EventPublisher;
  metrics: PipelineMetrics;
  log: Log;
  /**
   * Starts listening for "events committed" (PostgreSQL NOTIFY, with the organization's id when
   * the notification names one); returns whether the listener is alive, or null when listening
   * failed: the relay then polls faster.
   */
  listen?: (onNotify: (organizationId?: string) => void) => Promise<Listener | null>;
}

export interface OutboxRelayOptions {
  batch: number;
  /**
   * Poll interval while a NOTIFY listener is alive (a safety net only): then the relay looks at
   * every organization; between polls, only at those the notifications named.
   */
  pollMs: number;
  /** The longest poll interval, reached by doubling while polls find nothing (an idle process). */
  idlePollMs: number;
  /** Poll interval without one. */
  fastPollMs: number;
  /** How often a lost listener (its connection broke, say a database restart) is set up again. */
  relistenMs: number;
}

export const DEFAULT_RELAY_OPTIONS: OutboxRelayOptions = {
  batch: 500,
  pollMs: 1_000,
  idlePollMs: 10_000,
  fastPollMs: 50,
  relistenMs: 5_000,
};

export interface OutboxRelay {
  /** Look for events now (a hint; the relay also wakes on NOTIFY and by polling). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Publishes unpublished events to JetStream and marks them, batch after batch; any number of relays
 * may run (each takes organizations the others have not locked). When the bus is down nothing is
 * marked and the relay retries, so an event is never lost and never needs more than its msgID to be
 * recognized. A notification names the organization whose events committed, and the relay then
 * looks at the organizations named since its last batch only; it looks at all of them when it
 * starts, at every poll, when woken without a name, and whenever it has no live listener, so an
 * event whose notification was lost (or taken by a relay that then crashed) waits one poll at most.
 */
export const startOutboxRelay = async (
  deps: OutboxRelayDeps,
  options: OutboxRelayOptions = DEFAULT_RELAY_OPTIONS,
): Promise<OutboxRelay> => {
  const { sleep, wake } = wakeableSleep();
  let stopped = false;
  /** Organizations named by notifications since the last batch. */
  const named = new Set<string>();
  /** Look at every organization next (start, poll, a wake without a name). */
  let everyone = true;
  let scannedAt = performance.now();
  const backoff = idleBackoff(options.pollMs, options.idlePollMs);
  /** The wait from the last look at every organization to the next. */
  let pollWaitMs = options.pollMs;
  const onNotify = (organizationId?: string): void => {
    if (organizationId) named.add(organizationId);
    else everyone = true;
    wake();
  };
  const listener = await keptListener(deps.listen, onNotify, options.relistenMs, () =>
    deps.log.info({}, "event notifications restored"),
  );
  const failures = failureLog((err) => deps.log.warn({ err }, "event relay could not publish; retrying"));
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const all = everyone || !listener.alive();
      const organizations = all ? undefined : [...named];
      everyone = false;
      named.clear();
      if (all) scannedAt = performance.now();
      let published = 0;
      if (!organizations || organizations.length > 0) {
        try {
          published = await deps.outbox.relayBatch(
            options.batch,
            (events) => deps.publisher.publish(events),
            organizations,
          );
          if (published > 0) {
            deps.metrics.eventsPublished(published);
            backoff.reset();
            pollWaitMs = options.pollMs;
          } else if (all) {
            pollWaitMs = backoff.next();
          }
          const failed = failures.succeeded();
          if (failed > 0) deps.log.info({ failures: failed }, "event relay recovered");
        } catch (err) {
          failures.failed(err);
          everyone = true;
          await sleep(Math.min(250 * failures.count(), 2_000));
          continue;
        }
      }
      if (published >= options.batch) {
        // A full batch: there may be more of the same organizations (or of any, after a full look).
        if (organizations) for (const o of organizations) named.add(o);
        else everyone = true;
        continue;
      }
      if (named.size > 0 || everyone) continue;
      await listener.relisten();
      if (listener.alive()) {
        // Until a notification, or the next poll.
        const left = pollWaitMs - (performance.now() - scannedAt);
        if (left > 0) await sleep(left);
        if (performance.now() - scannedAt >= pollWaitMs) everyone = true;
      } else {
        await sleep(options.fastPollMs);
      }
    }
  };
  const running = loop();
  return {
    wake: () => onNotify(),
    stop: async () => {
      stopped = true;
      wake();
      await running;
      await listener.close();
    },
  };
};
