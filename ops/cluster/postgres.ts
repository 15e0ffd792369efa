import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The newest PostgreSQL server binaries Debian installed (/usr/lib/postgresql/<major>/bin). */
export const postgresBin = (): string => {
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = majors.sort((a, b) => Number(a) - Number(b)).pop();
  if (!newest) throw new Error("PostgreSQL's server binaries are missing (Debian's postgresql package)");
  return join(root, newest, "bin");
};

export interface LocalPostgres {
  /** `postgres://laurel@127.0.0.1:<port>/postgres`: the superuser `laurel`, trust on loopback only. */
  url: string;
  port: number;
  /** Creates the cluster when its directory is empty, then starts it unless it runs already. */
  start(): Promise<void>;
  /** Fast shutdown: every session is terminated (57P01), new ones are refused until `start()`. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Immediate shutdown (a crash, as far as the server knows): for throwaway clusters. */
  kill(): Promise<void>;
  running(): Promise<boolean>;
}

/**
 * A PostgreSQL cluster of its own in `dir`, on `port`, run with pg_ctl: what `npm run cluster`,
 * the soak and the tests stop and start, so that the machine's shared server is never touched.
 * initdb refuses to run as root, so as root the directory belongs to the `postgres` user.
 * `fast` trades durability for speed (fsync off): for throwaway clusters only.
 */
export const localPostgres = (options: { dir: string; port: number; fast?: boolean }): LocalPostgres => {
  const { dir, port } = options;
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const bin = postgresBin();
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args]) : run(join(bin, tool), args);
  // A socket path is limited to about 100 bytes: it goes to the temporary directory.
  const serverOptions = [
    `-p ${port} -k ${tmpdir()} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    ...(options.fast ? ["-c fsync=off"] : []),
  ].join(" ");
  const ctl = (...args: string[]) =>
    pg("pg_ctl", ["-D", data, "-l", join(dir, "postgres.log"), "-w", "-t", "60", "-o", serverOptions, ...args]);
  const running = async (): Promise<boolean> => {
    if (!existsSync(join(data, "PG_VERSION"))) return false;
    try {
      await pg("pg_ctl", ["-D", data, "status"]);
      return true;
    } catch {
      return false;
    }
  };
  return {
    url: `postgres://laurel@127.0.0.1:${port}/postgres`,
    port,
    running,
    start: async () => {
      if (!existsSync(join(data, "PG_VERSION"))) {
        mkdirSync(dir, { recursive: true });
        if (asRoot) {
          const { stdout: uid } = await run("id", ["-u", "postgres"]);
          const { stdout: gid } = await run("id", ["-g", "postgres"]);
          chownSync(dir, Number(uid.trim()), Number(gid.trim()));
        }
        await pg("initdb", ["-D", data, "-A", "trust", "-U", "laurel", ...(options.fast ? ["--no-sync"] : [])]);
      }
      if (!(await running())) await ctl("start");
    },
    stop: async () => {
      if (await running()) await ctl("-m", "fast", "stop");
    },
    restart: async () => {
      await ctl("-m", "fast", "restart");
    },
    kill: async () => {
      if (await running()) await ctl("-m", "immediate", "stop");
    },
  };
};
