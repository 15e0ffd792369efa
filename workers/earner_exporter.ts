import type { EarnerExportRecord, ExportStore } from "../core/earners/mod.ts";
import { EXPORT_LEASE_MS, EXPORT_MAX_ATTEMPTS } from "../core/earners/mod.ts";
import { type Log, pollLoop } from "./runtime.ts";

export interface EarnerExporter {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Writes the earners' exports, one at a time per worker, in any number of worker processes: a
 * claim leases the export, so a worker that dies leaves it to another, and it is given up after a
 * few tries. Expired exports are removed with their files as the loop goes.
 */
export const startEarnerExporter = (
  deps: {
    store: ExportStore;
    write(job: EarnerExportRecord): Promise<boolean>;
    clock: () => Date;
    log: Log;
  },
  options: { intervalMs: number },
): EarnerExporter =>
  pollLoop(
    async () => {
      const now = deps.clock();
      await deps.store.removeExpired(now);
      const job = await deps.store.claim(now, EXPORT_LEASE_MS, EXPORT_MAX_ATTEMPTS);
      if (!job) return { full: false, found: false };
      await deps.write(job);
      return { full: true, found: true };
    },
    options,
    (err) => deps.log.warn({ err }, "earner export failed; retrying"),
  );
