import { execFile, spawn } from "node:child_process";
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

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

/** One PostgreSQL node of a pg_auto_failover formation, as its monitor knows it. */
export interface FailoverNode {
  name: string;
  port: number;
  /** The state the node reported last (`primary`, `secondary`, `wait_primary`, ...). */
  reported: string;
  /** The state the monitor assigned it. */
  assigned: string;
}

export interface FailoverPostgres {
  /** libpq's host list of the data nodes, read-write only: what Laurel's DATABASE_URL carries. */
  url: string;
  monitorPort: number;
  nodePorts: number[];
  /** Creates what is missing (monitor, then each node) and runs every keeper not running. */
  start(): Promise<void>;
  /** Stops the data nodes' keepers and their servers (fast shutdown), the monitor staying up. */
  stopNodes(): Promise<void>;
  /** Runs the data nodes' keepers again (each server as the monitor wants it). */
  startNodes(): Promise<void>;
  /** Stops everything, the monitor last. */
  stop(): Promise<void>;
  /** SIGKILL to node `i`'s keeper and server at once: the machine lost, as far as the others know. */
  killNode(i: number): void;
  /** The data nodes as the monitor sees them; empty when it cannot be reached. */
  nodes(): Promise<FailoverNode[]>;
  /** Whether node `i`'s keeper runs. */
  running(i: number): boolean;
}

/**
 * PostgreSQL with automatic failover by pg_auto_failover (Debian's postgresql-<major>-auto-failover,
 * its `pg_autoctl`): a monitor on `monitorPort` and two data nodes, a primary and a hot standby in
 * synchronous replication (pg_auto_failover's replication quorum: a commit waits for the standby
 * while it is healthy). Each `pg_autoctl run` is a keeper process of its own, started detached in a
 * process group of its own, its pid in `dir/run`; as root they run as `postgres`, as initdb and
 * pg_autoctl refuse root. pg_autoctl keeps its configuration and state under XDG directories: they
 * are pointed into `dir`, so that nothing of it lives outside.
 *
 * The timings are shortened from pg_auto_failover's defaults (a node is unhealthy after 20 s and
 * a promoted standby waits 30 s for the old primary to demote itself) so that a failover takes
 * seconds: the monitor checks each node every second and gives up on it after 4 s; a primary that
 * lost both the monitor and its standby demotes itself after 5 s, which the promotion waits 8 s for
 * (the one rule pg_auto_failover needs here: the demote timeout is longer than the partition timeout).
 */
export const failoverPostgres = (options: {
  dir: string;
  monitorPort: number;
  nodePorts: number[];
  database: string;
}): FailoverPostgres => {
  const { dir, monitorPort, nodePorts, database } = options;
  const asRoot = process.getuid?.() === 0;
  const pgctl = join(postgresBin(), "pg_ctl");
  const xdg = {
    XDG_CONFIG_HOME: join(dir, "config"),
    XDG_DATA_HOME: join(dir, "share"),
    XDG_RUNTIME_DIR: join(dir, "runtime"),
  };
  const envArgs = Object.entries(xdg).map(([k, v]) => `${k}=${v}`);
  const command = (args: string[]): [string, string[]] =>
    asRoot
      ? ["runuser", ["-u", "postgres", "--", "env", ...envArgs, "pg_autoctl", ...args]]
      : ["env", [...envArgs, "pg_autoctl", ...args]];
  const autoctl = (args: string[]) => {
    const [cmd, rest] = command(args);
    return run(cmd, rest, { maxBuffer: 1 << 22 });
  };
  const monitorData = join(dir, "monitor");
  const nodeData = (i: number): string => join(dir, `node${i + 1}`);
  const keeper = (i: number | "monitor"): string => (i === "monitor" ? "monitor" : `node${i + 1}`);
  const pidFile = (name: string): string => join(dir, "run", `${name}.pid`);
  const pidOf = (name: string): number | undefined => {
    try {
      const pid = Number(readFileSync(pidFile(name), "utf8").trim());
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  };
  const monitorUrl = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
  const query = async <T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms (see ${join(dir, "log")})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  /** `pg_autoctl run` for a data directory, detached in a process group of its own. */
  const runKeeper = (name: string, data: string): void => {
    if (pidOf(name)) return;
    const [cmd, rest] = command(["run", "--pgdata", data]);
    const out = openSync(join(dir, "log", `${name}.log`), "a");
    const child = spawn(cmd, rest, { detached: true, stdio: ["ignore", out, out] });
    child.unref();
    closeSync(out);
    writeFileSync(pidFile(name), `${child.pid}\n`);
  };
  const stopKeeper = async (name: string, data: string): Promise<void> => {
    const pid = pidOf(name);
    if (!pid) return;
    await autoctl(["stop", "--pgdata", data]).catch(() => process.kill(-pid, "SIGTERM"));
    const deadline = Date.now() + 60_000;
    while (pidOf(name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (pidOf(name)) process.kill(-pid, "SIGKILL");
  };
  const nodes = async (): Promise<FailoverNode[]> => {
    try {
      const rows = await query<{ nodename: string; nodeport: number; reportedstate: string; goalstate: string }>(
        monitorUrl,
        "select nodename, nodeport, reportedstate::text, goalstate::text from pgautofailover.node order by nodeid",
      );
      return rows.map((r) => ({
        name: r.nodename,
        port: r.nodeport,
        reported: r.reportedstate,
        assigned: r.goalstate,
      }));
    } catch {
      return [];
    }
  };
  const startNodes = async (): Promise<void> => {
    for (const [i, port] of nodePorts.entries()) {
      const data = nodeData(i);
      if (!existsSync(join(data, "PG_VERSION"))) {
        // The second node is created from the first (pg_basebackup): the first must be primary.
        await autoctl([
          "create",
          "postgres",
          "--pgctl",
          pgctl,
          "--pgdata",
          data,
          "--pgport",
          String(port),
          "--hostname",
          "127.0.0.1",
          "--listen",
          "127.0.0.1",
          "--auth",
          "trust",
          "--no-ssl",
          "--monitor",
          monitorUrl,
          "--username",
          "laurel",
          "--dbname",
          database,
          "--name",
          keeper(i),
        ]);
        await autoctl(["config", "set", "--pgdata", data, "timeout.network_partition_timeout", "5"]);
      }
      runKeeper(keeper(i), data);
      if (i === 0) {
        await waitFor("the first PostgreSQL node", async () =>
          (await nodes()).some(
            (n) => n.port === port && ["single", "primary", "wait_primary", "secondary"].includes(n.reported),
          ),
        );
      }
    }
    await waitFor("a PostgreSQL primary", async () =>
      (await nodes()).some((n) => n.reported === "primary" || n.reported === "single" || n.reported === "wait_primary"),
    );
  };
  return {
    url: `postgres://laurel@${nodePorts.map((p) => `127.0.0.1:${p}`).join(",")}/${database}?target_session_attrs=read-write`,
    monitorPort,
    nodePorts,
    nodes,
    running: (i) => pidOf(keeper(i)) !== undefined,
    start: async () => {
      for (const d of ["run", "log", ...Object.values(xdg)])
        mkdirSync(join(d.startsWith("/") ? d : join(dir, d)), { recursive: true });
      if (asRoot) {
        const { stdout: uid } = await run("id", ["-u", "postgres"]);
        const { stdout: gid } = await run("id", ["-g", "postgres"]);
        for (const d of [dir, ...Object.values(xdg)]) chownSync(d, Number(uid.trim()), Number(gid.trim()));
      }
      if (!existsSync(join(monitorData, "PG_VERSION"))) {
        await autoctl([
          "create",
          "monitor",
          "--pgctl",
          pgctl,
          "--pgdata",
          monitorData,
          "--pgport",
          String(monitorPort),
          "--hostname",
          "127.0.0.1",
          "--auth",
          "trust",
          "--no-ssl",
        ]);
        await autoctl(["config", "set", "--pgdata", monitorData, "postgresql.listen_addresses", "127.0.0.1"]);
      }
      runKeeper("monitor", monitorData);
      await waitFor("the pg_auto_failover monitor", async () => (await query(monitorUrl, "select 1")).length === 1);
      const superuser = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
      await query(superuser, "alter system set pgautofailover.health_check_period = 1000");
      await query(superuser, "alter system set pgautofailover.health_check_timeout = 1000");
      await query(superuser, "alter system set pgautofailover.health_check_max_retries = 1");
      await query(superuser, "alter system set pgautofailover.health_check_retry_delay = 500");
      await query(superuser, "alter system set pgautofailover.node_considered_unhealthy_timeout = 4000");
      await query(superuser, "alter system set pgautofailover.primary_demote_timeout = 8000");
      await query(superuser, "select pg_reload_conf()");
      await startNodes();
    },
    startNodes,
    stopNodes: async () => {
      await Promise.all(nodePorts.map((_, i) => stopKeeper(keeper(i), nodeData(i))));
    },
    stop: async () => {
      await Promise.all(nodePorts.map((_, i) => stopKeeper(keeper(i), nodeData(i))));
      await stopKeeper("monitor", monitorData);
    },
    killNode: (i) => {
      const pid = pidOf(keeper(i));
      if (pid) process.kill(-pid, "SIGKILL");
    },
  };
};
