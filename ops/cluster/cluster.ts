import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorBody, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE } from "../../adapters/http/mod.ts";
import { loopbackCa } from "./loopback_ca.ts";
import { clusterUrl, type NatsNodeSpec, natsNodeConfig } from "./nats_config.ts";
import { failoverPostgres, postgresBin } from "./postgres.ts";

/**
 * `npm run cluster -- up | down | status`: Laurel as a multi-process deployment on this machine,
 * the reference for a real one (the same configuration files, other host names): a three-node NATS
 * JetStream cluster, PostgreSQL of its own with automatic failover (pg_auto_failover: a monitor, a
 * primary and a synchronous hot standby; the soak may stop or kill it without touching the
 * machine's server), two API servers behind haproxy and two webhook workers. Idempotent:
 * `up` starts only what is not running. Everything lives under CLUSTER_DIR (default ./data/cluster):
 * configuration, pid files, logs, stream storage, the shared keys.
 */
export const ROOT = resolve(new URL("../..", import.meta.url).pathname);
export const CLUSTER_DIR = resolve(process.env.CLUSTER_DIR ?? join(ROOT, "data/cluster"));
const BASE = Number(process.env.CLUSTER_PORT_BASE ?? 14_000);

export const ports = {
  balancer: BASE,
  balancerMetrics: BASE + 99,
  api: [BASE + 1, BASE + 2],
  /** Each API server's admin listener (tRPC, /metrics), on loopback. */
  admin: [BASE + 21, BASE + 22],
  workerMetrics: [BASE + 11, BASE + 12],
  /** pg_auto_failover's monitor, and its two data nodes (a primary and a hot standby). */
  postgresMonitor: BASE + 50,
  postgres: [BASE + 51, BASE + 52],
};
export const natsNodes: NatsNodeSpec[] = [1, 2, 3].map((i) => ({
  name: `nats-${i}`,
  host: "127.0.0.1",
  port: BASE + 220 + i,
  clusterPort: BASE + 230 + i,
  monitorPort: BASE + 240 + i,
  storeDir: join(CLUSTER_DIR, `nats-${i}`),
}));
export const BALANCER_URL = `http://127.0.0.1:${ports.balancer}`;
/** The admin API of the first API server: operators' tools talk to one process, not the balancer. */
export const ADMIN_URL = `http://127.0.0.1:${ports.admin[0]}`;

const say = (msg: string): void => {
  process.stderr.write(`[cluster] ${msg}\n`);
};
const pidFile = (name: string): string => join(CLUSTER_DIR, "run", `${name}.pid`);
const logFile = (name: string): string => join(CLUSTER_DIR, "log", `${name}.log`);

export const pidOf = (name: string): number | undefined => {
  try {
    const pid = Number(readFileSync(pidFile(name), "utf8").trim());
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
};

const has = (command: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${command} || test -x /usr/sbin/${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

/** Debian's package for `command`, installed when missing (apt-get, as root or through sudo). */
const ensurePackage = (command: string, pkg: string): void => {
  if (has(command)) return;
  say(`installing Debian's ${pkg}`);
  const root = process.getuid?.() === 0 ? [] : ["sudo"];
  const run = (args: string[]): void => {
    const [cmd, ...rest] = [...root, ...args] as [string, ...string[]];
    execFileSync(cmd, rest, {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  };
  run(["apt-get", "update", "-qq"]);
  run(["apt-get", "install", "-y", "-qq", pkg]);
};

/** Starts `command` in the background, detached, its output in its log and its pid in its pid file. */
const startDetached = (name: string, command: string, args: string[], env: Record<string, string> = {}): number => {
  const out = openSync(logFile(name), "a");
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", out, out],
  });
  child.unref();
  writeFileSync(pidFile(name), `${child.pid}\n`);
  return child.pid as number;
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const httpOk = async (url: string): Promise<boolean> => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
};

const waitUntil = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`${what}: not ready after ${timeoutMs} ms (see ${join(CLUSTER_DIR, "log")})`);
    await sleep(250);
  }
};

/** The cluster's own PostgreSQL with failover, its data under CLUSTER_DIR/postgres. */
export const clusterPostgres = failoverPostgres({
  dir: join(CLUSTER_DIR, "postgres"),
  monitorPort: ports.postgresMonitor,
  nodePorts: ports.postgres,
  database: "laurel_cluster",
});

/** PostgreSQL with its failover started (created on the first `up`); its host list for Laurel. */
const ensureDatabase = async (): Promise<string> => {
  if (!existsSync("/usr/lib/postgresql")) ensurePackage("pg_ctlcluster", "postgresql");
  ensurePackage("pg_autoctl", `postgresql-${postgresBin().split("/").at(-2)}-auto-failover`);
  say(`PostgreSQL: monitor on ${ports.postgresMonitor}, nodes on ${ports.postgres.join(" and ")}`);
  await clusterPostgres.start();
  return clusterPostgres.url;
};

/**
 * haproxy's own 503 (no API server passes its health check: while PostgreSQL is down every one
 * fails it) in the API's words: the documented error body and Retry-After, as the servers answer.
 */
const unavailableAnswer = (): string => {
  const body = JSON.stringify(errorBody("unavailable", UNAVAILABLE_MESSAGE));
  return [
    "HTTP/1.1 503 Service Unavailable",
    "content-type: application/json; charset=utf-8",
    "cache-control: no-store",
    `retry-after: ${RETRY_AFTER_SECONDS}`,
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    "",
    body,
  ].join("\r\n");
};

const haproxyConfig = (errorFile: string): string =>
  [
    "global",
    `  pidfile ${pidFile("haproxy")}`,
    "  maxconn 4096",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  retries 3",
    // A connection refused by a stopping server is tried on the other one. Only then: a request
    // that reached a server may have been carried out (a POST issues a badge), so it is not resent.
    "  option redispatch",
    "  retry-on conn-failure",
    `  errorfile 503 ${errorFile}`,
    "frontend laurel",
    `  bind 127.0.0.1:${ports.balancer}`,
    // The API servers trust this balancer's X-Forwarded-For (TRUST_PROXY) to name the client their
    // limits count. haproxy is the edge: it sets the header to the peer, dropping what a client wrote.
    "  http-request set-header X-Forwarded-For %[src]",
    "  default_backend api",
    "backend api",
    "  balance roundrobin",
    "  option httpchk GET /healthz",
    "  http-check expect status 200",
    ...ports.api.map((p, i) => `  server api-${i + 1} 127.0.0.1:${p} check inter 1s fall 2 rise 2`),
    // haproxy's own Prometheus exporter: the 5xx rate clients see (ops/prometheus).
    "frontend prometheus",
    `  bind 127.0.0.1:${ports.balancerMetrics}`,
    "  http-request use-service prometheus-exporter if { path /metrics }",
    "",
  ].join("\n");

/** What every Laurel process of the cluster shares. */
const laurelEnv = (databaseUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  NATS_URL: clusterUrl(natsNodes),
  NATS_STREAM_REPLICAS: "3",
  DATA_DIR: join(CLUSTER_DIR, "laurel"),
  BASE_URL: `${BALANCER_URL}/v1`,
  AUTH_URL: BALANCER_URL,
  HOST: "127.0.0.1",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
  // The soak's receiver listens on loopback.
  WEBHOOK_ALLOWED_NETWORKS: process.env.WEBHOOK_ALLOWED_NETWORKS ?? "127.0.0.1/32",
  // Receivers with private certificates (the soak's, on loopback) are trusted through this CA.
  WEBHOOK_CA_FILE: process.env.WEBHOOK_CA_FILE ?? loopbackCa(join(CLUSTER_DIR, "ca")).caFile,
});

const node = process.execPath;

export const startNatsNode = async (i: number): Promise<void> => {
  const spec = natsNodes[i] as NatsNodeSpec;
  if (pidOf(spec.name)) return;
  mkdirSync(spec.storeDir, { recursive: true });
  const config = join(CLUSTER_DIR, `${spec.name}.conf`);
  writeFileSync(config, natsNodeConfig(spec, natsNodes));
  say(`starting ${spec.name} (client ${spec.port}, routes ${spec.clusterPort})`);
  startDetached(spec.name, "nats-server", ["-c", config]);
};

export const startApi = (i: number, databaseUrl: string): void => {
  const name = `api-${i + 1}`;
  if (pidOf(name)) return;
  say(`starting ${name} on ${ports.api[i]}`);
  startDetached(name, node, ["apps/server.ts"], {
    ...laurelEnv(databaseUrl),
    // haproxy connects from loopback: its X-Forwarded-For names the client.
    TRUST_PROXY: "127.0.0.1",
    PORT: String(ports.api[i]),
    ADMIN_PORT: String(ports.admin[i]),
  });
};

export const startWorker = (i: number, databaseUrl: string): void => {
  const name = `worker-${i + 1}`;
  if (pidOf(name)) return;
  say(`starting ${name} (metrics on ${ports.workerMetrics[i]})`);
  startDetached(name, node, ["apps/worker.ts"], {
    ...laurelEnv(databaseUrl),
    METRICS_PORT: String(ports.workerMetrics[i]),
  });
};

export const up = async (): Promise<string> => {
  for (const d of ["run", "log", "laurel"]) mkdirSync(join(CLUSTER_DIR, d), { recursive: true });
  ensurePackage("nats-server", "nats-server");
  ensurePackage("haproxy", "haproxy");
  const databaseUrl = await ensureDatabase();
  writeFileSync(join(CLUSTER_DIR, "database-url"), `${databaseUrl}\n`);
  for (let i = 0; i < natsNodes.length; i++) await startNatsNode(i);
  for (const n of natsNodes) await waitUntil(n.name, () => httpOk(`http://127.0.0.1:${n.monitorPort}/healthz`));
  // The first API server migrates the database alone; then the others start.
  startApi(0, databaseUrl);
  await waitUntil("api-1", () => httpOk(`http://127.0.0.1:${ports.api[0]}/healthz`));
  for (let i = 1; i < ports.api.length; i++) startApi(i, databaseUrl);
  for (let i = 0; i < ports.workerMetrics.length; i++) startWorker(i, databaseUrl);
  if (!pidOf("haproxy")) {
    const config = join(CLUSTER_DIR, "haproxy.cfg");
    const errorFile = join(CLUSTER_DIR, "haproxy-503.http");
    writeFileSync(errorFile, unavailableAnswer());
    writeFileSync(config, haproxyConfig(errorFile));
    say(`starting haproxy on ${ports.balancer}`);
    const haproxy = has("haproxy") && existsSync("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : "haproxy";
    execFileSync(haproxy, ["-D", "-f", config], { stdio: "inherit" });
  }
  for (let i = 1; i < ports.api.length; i++) {
    await waitUntil(`api-${i + 1}`, () => httpOk(`http://127.0.0.1:${ports.api[i]}/healthz`));
  }
  for (const p of ports.workerMetrics) await waitUntil(`worker on ${p}`, () => httpOk(`http://127.0.0.1:${p}/healthz`));
  await waitUntil("the balancer", () => httpOk(`${BALANCER_URL}/healthz`));
  say(`up: ${BALANCER_URL} (admin token in ${join(CLUSTER_DIR, "laurel/admin-token")})`);
  return databaseUrl;
};

/** SIGTERM, then SIGKILL after `graceMs`: the processes stop as they would under systemd. */
export const stopProcess = async (name: string, graceMs = 35_000): Promise<void> => {
  const pid = pidOf(name);
  if (!pid) return;
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (pidOf(name) && Date.now() < deadline) await sleep(100);
  if (pidOf(name)) process.kill(pid, "SIGKILL");
  rmSync(pidFile(name), { force: true });
};

export const down = async (): Promise<void> => {
  await stopProcess("haproxy");
  await Promise.all(["api-1", "api-2"].map((n) => stopProcess(n)));
  await Promise.all(["worker-1", "worker-2"].map((n) => stopProcess(n)));
  for (const n of natsNodes) await stopProcess(n.name);
  await clusterPostgres.stop();
  say("down (the data stays in CLUSTER_DIR)");
};

export const status = async (): Promise<Array<{ part: string; pid: number | null; healthy: boolean }>> => {
  const rows: Array<{ part: string; pid: number | null; healthy: boolean }> = [];
  for (const n of natsNodes) {
    rows.push({
      part: `${n.name} :${n.port}`,
      pid: pidOf(n.name) ?? null,
      healthy: await httpOk(`http://127.0.0.1:${n.monitorPort}/healthz`),
    });
  }
  const monitored = await clusterPostgres.nodes();
  rows.push({ part: `pg monitor :${ports.postgresMonitor}`, pid: null, healthy: monitored.length > 0 });
  for (const [i, port] of ports.postgres.entries()) {
    const n = monitored.find((m) => m.port === port);
    rows.push({
      part: `pg ${n?.reported ?? "node"} :${port}`,
      pid: null,
      healthy: clusterPostgres.running(i) && (n?.reported === "primary" || n?.reported === "secondary"),
    });
  }
  for (const [i, p] of ports.api.entries()) {
    rows.push({
      part: `api-${i + 1} :${p}`,
      pid: pidOf(`api-${i + 1}`) ?? null,
      healthy: await httpOk(`http://127.0.0.1:${p}/healthz`),
    });
  }
  for (const [i, p] of ports.workerMetrics.entries()) {
    rows.push({
      part: `worker-${i + 1} :${p}`,
      pid: pidOf(`worker-${i + 1}`) ?? null,
      healthy: await httpOk(`http://127.0.0.1:${p}/healthz`),
    });
  }
  rows.push({
    part: `haproxy :${ports.balancer}`,
    pid: pidOf("haproxy") ?? null,
    healthy: await httpOk(`${BALANCER_URL}/healthz`),
  });
  return rows;
};

const main = async (): Promise<void> => {
  const command = process.argv[2];
  if (command === "up") await up();
  else if (command === "down") await down();
  else if (command !== "status") {
    say("usage: npm run cluster -- up | down | status");
    process.exit(2);
  }
  if (command !== "down") {
    const rows = await status();
    for (const r of rows) {
      console.log(`${r.part.padEnd(20)} ${String(r.pid ?? "-").padStart(8)}  ${r.healthy ? "healthy" : "DOWN"}`);
    }
    if (command === "status" && rows.some((r) => !r.healthy)) process.exitCode = 1;
  }
};

if (import.meta.url === `file://${process.argv[1]}`) await main();
