import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../../adapters/bus/mod.ts";

const run = promisify(execFile);
const BIN = "/usr/lib/postgresql/15/bin";

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
 * A PostgreSQL 15 cluster of its own in a temporary directory, on its own port, for tests that
 * restart or stop the database: the server the other tests share is never touched. initdb refuses
 * to run as root, so as root the cluster belongs to the `postgres` user.
 */
export const startThrowawayPostgres = async (): Promise<ThrowawayPostgres> => {
  const dir = mkdtempSync(join(tmpdir(), "laurel-pg-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(BIN, tool), ...args]) : run(join(BIN, tool), args);
  const port = await freePort();
  const data = join(dir, "data");
  await pg("initdb", ["-D", data, "-A", "trust", "-U", "laurel", "--no-sync"]);
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const ctl = (...args: string[]) =>
    pg("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-o", serverOptions, ...args]);
  await ctl("start");
  return {
    url: `postgres://laurel@127.0.0.1:${port}/postgres`,
    restart: async () => {
      await ctl("-m", "fast", "restart");
    },
    stop: async () => {
      await ctl("-m", "fast", "stop");
    },
    start: async () => {
      await ctl("start");
    },
    remove: async () => {
      await ctl("-m", "immediate", "stop").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
