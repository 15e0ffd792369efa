import type { EventPublisher, Outbox } from "../core/events/mod.ts";
import { type Log, type PipelineMetrics, wakeableSleep } from "./runtime.ts";

export interface OutboxRelayDeps {
  outbox: Outbox;
  publisher: EventPublisher;
  metrics: PipelineMetrics;
  log: Log;
  /**
   * Starts listening for "events committed" (PostgreSQL NOTIFY); returns whether the listener is
   * alive, or null when the database cannot notify (PGlite): the relay then polls faster.
   */
  listen?: (onNotify: () => void) => Promise<{ alive(): boolean; close(): Promise<void> } | null>;
}

export interface OutboxRelayOptions {
  batch: number;
  /** Poll interval while a NOTIFY listener is alive (a safety net only). */
  pollMs: number;
  /** Poll interval without one. */
  fastPollMs: number;
  /** How often a lost listener (its connection broke, say a database restart) is set up again. */
  relistenMs: number;
}

export const DEFAULT_RELAY_OPTIONS: OutboxRelayOptions = {
  batch: 500,
  pollMs: 1_000,
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
 * may run (each takes rows the others have not locked). When the bus is down nothing is marked and
 * the relay retries, so an event is never lost and never needs more than its msgID to be recognized.
 */
export const startOutboxRelay = async (
  deps: OutboxRelayDeps,
  options: OutboxRelayOptions = DEFAULT_RELAY_OPTIONS,
): Promise<OutboxRelay> => {
  const { sleep, wake } = wakeableSleep();
  let stopped = false;
  let listener = deps.listen ? await deps.listen(wake) : null;
  let listenedAt = performance.now();
  /** While the database answers but the listener is gone, listens again now and then. */
  const relisten = async (): Promise<void> => {
    if (!deps.listen || listener?.alive() || performance.now() - listenedAt < options.relistenMs) return;
    listenedAt = performance.now();
    await listener?.close();
    listener = await deps.listen(wake);
    if (listener?.alive()) deps.log.info({}, "event notifications restored");
  };
  let failures = 0;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      let published = 0;
      try {
        published = await deps.outbox.relayBatch(options.batch, (events) => deps.publisher.publish(events));
        if (published > 0) deps.metrics.eventsPublished(published);
        if (failures > 0) deps.log.info({ failures }, "event relay recovered");
        failures = 0;
      } catch (err) {
        // Logged on the first failure and then every 20th, so an outage does not flood the log.
        if (failures % 20 === 0) deps.log.warn({ err }, "event relay could not publish; retrying");
        failures++;
        await sleep(Math.min(250 * failures, 2_000));
        continue;
      }
      if (published >= options.batch) continue;
      await relisten();
      await sleep(listener?.alive() ? options.pollMs : options.fastPollMs);
    }
  };
  const running = loop();
  return {
    wake,
    stop: async () => {
      stopped = true;
      wake();
      await running;
      await listener?.close();
    },
  };
};
