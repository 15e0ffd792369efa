import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../adapters/bus/mod.ts";
import { localPostgres } from "../../ops/cluster/postgres.ts";

export interface ThrowawayPostgres {
  /** `postgres://laurel@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  /** `pg_ctl restart -m fast`: every session is terminated (57P01), new ones are refused until it is up. */
  restart(): Promise<void>;
  /** Stops the server (fast shutdown); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

/**
 * A PostgreSQL cluster of its own in a temporary directory, on its own port, for tests that
 * restart or stop the database: the server the other tests share is never touched.
 */
export const startThrowawayPostgres = async (): Promise<ThrowawayPostgres> => {
  const dir = mkdtempSync(join(tmpdir(), "laurel-pg-"));
  const postgres = localPostgres({ dir, port: await freePort(), fast: true });
  await postgres.start();
  return {
    url: postgres.url,
    restart: () => postgres.restart(),
    stop: () => postgres.stop(),
    start: () => postgres.start(),
    remove: async () => {
      await postgres.kill().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
