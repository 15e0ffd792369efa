import { type ImportWorkContext, type ImportWorkDeps, workImportChunk } from "../core/imports/mod.ts";
import { type Log, pollLoop } from "./runtime.ts";

export interface ImportWorkerDeps extends ImportWorkDeps {
  context: () => ImportWorkContext;
  /** True for an error that refuses one row's write (a constraint), not a database that is away. */
  isRowRefusal(err: unknown): boolean;
  log: Log;
}

export interface ImportWorkerOptions {
  /** The wait after a round that found rows but could take none (another worker holds them). */
  intervalMs: number;
  /** The longest wait between rounds while no import is running. */
  idleMaxMs: number;
}

/**
 * Works the running imports' rows, a chunk per round, in any number of processes: each chunk is
 * taken `for update skip locked` and committed with its rows' outcomes, so a killed worker's chunk
 * is simply taken again. A chunk whose transaction fails is worked again row by row; a row whose
 * own write is refused then (a template deleted meanwhile) is recorded failed, so one row never
 * stalls its import.
 */
export const startImportWorker = (
  deps: ImportWorkerDeps,
  options: ImportWorkerOptions,
): { wake(): void; stop(): Promise<void> } => {
  /** Imports whose last chunk failed: their next rows go one at a time. */
  const oneByOne = new Set<string>();
  return pollLoop(
    async () => {
      const single = oneByOne.size > 0;
      try {
        const { worked, importId } = await workImportChunk(deps, deps.context(), single ? 1 : undefined);
        if (importId && single && worked > 0) oneByOne.delete(importId);
        return { full: worked > 0, found: importId !== null };
      } catch (err) {
        const next = await deps.store.pending(1).catch(() => null);
        if (!next) throw err;
        if (!single) {
          oneByOne.add(next.record.id);
          deps.log.warn({ err, import_id: next.record.id }, "an import chunk failed; working its rows one by one");
          return { full: true, found: true };
        }
        if (!deps.isRowRefusal(err)) throw err;
        const row = next.rows[0] as { row: number };
        await deps.store.fail(
          next.record.id,
          {
            row: row.row,
            status: "failed",
            outcome_id: null,
            detail: null,
            errors: [{ field: "row", message: "could not be written: the data it refers to changed meanwhile" }],
          },
          deps.context().now,
        );
        return { full: true, found: true };
      }
    },
    { intervalMs: options.intervalMs, idleMaxMs: options.idleMaxMs },
    (err) => deps.log.warn({ err }, "import worker round failed; retrying"),
  );
};
