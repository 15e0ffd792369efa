import type { EarnerExportRecord, ExportStore } from "../core/earners/mod.ts";
import { EXPORT_LEASE_MS, EXPORT_MAX_ATTEMPTS } from "../core/earners/mod.ts";
import { failureLog, keptListener, type Listener, type Log, wakeableSleep } from "./runtime.ts";

export interface EarnerExporter {
  wake(): void;
  stop(): Promise<void>;
}

export interface EarnerExporterOptions {
  /** The wait between rounds while no listener is alive (notifications are lost): a poll. */
  intervalMs: number;
  /**
   * The wait between rounds while a listener is alive: a safety net for a lost notification, a
   * lease run out (a worker that died) and links expired.
   */
  safetyPollMs: number;
  /** How often a lost listener (its connection broke, say a database restart) is set up again. */
  relistenMs: number;
}

/**
 * Writes the earners' exports, one at a time per worker, in any number of worker processes: a
 * claim leases the export, so a worker that dies leaves it to another, and it is given up after a
 * few tries. Expired exports are removed with their files as the loop goes. A requested export's
 * notification wakes the loop; while idle it looks only every `safetyPollMs` (every `intervalMs`
 * while it cannot listen).
 */
export const startEarnerExporter = async (
  deps: {
    store: ExportStore;
    write(job: EarnerExportRecord): Promise<boolean>;
    clock: () => Date;
    log: Log;
    /** Starts listening for requested exports; null when listening failed (the loop then polls). */
    listen?: (onNotify: () => void) => Promise<Listener | null>;
  },
  options: EarnerExporterOptions,
): Promise<EarnerExporter> => {
  const { sleep, wake } = wakeableSleep();
  let stopped = false;
  const listener = await keptListener(deps.listen, wake, options.relistenMs, () =>
    deps.log.info({}, "export notifications restored"),
  );
  const failures = failureLog((err) => deps.log.warn({ err }, "earner export failed; retrying"));
  const loop = async (): Promise<void> => {
    while (!stopped) {
      let job: EarnerExportRecord | null = null;
      try {
        const now = deps.clock();
        await deps.store.removeExpired(now);
        job = await deps.store.claim(now, EXPORT_LEASE_MS, EXPORT_MAX_ATTEMPTS);
        if (job) await deps.write(job);
        failures.succeeded();
      } catch (err) {
        failures.failed(err);
        await sleep(options.intervalMs);
        continue;
      }
      // Another may be waiting.
      if (job) continue;
      await listener.relisten();
      await sleep(listener.alive() ? options.safetyPollMs : options.intervalMs);
    }
  };
  const running = loop();
  return {
    wake,
    stop: async () => {
      stopped = true;
      wake();
      await running;
      await listener.close();
    },
  };
};
