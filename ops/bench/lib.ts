// Benchmark helpers: child-process servers, autocannon runs, memory readings, markdown tables.
// The load generator runs in the calling process; every server runs in its own child process,
// so on a 2-core machine each side gets roughly one core.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Settings shared by every measured run; durations in seconds. */
export interface BenchSettings {
  connections: number;
  duration: number;
  warmup: number;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  return {
    connections: positiveNumber(env.BENCH_CONNECTIONS, 50, "BENCH_CONNECTIONS"),
    duration: positiveNumber(env.BENCH_DURATION, 10, "BENCH_DURATION"),
    warmup: nonNegativeNumber(env.BENCH_WARMUP, 3, "BENCH_WARMUP"),
  };
}

function positiveNumber(raw: string | undefined, fallback: number, name: string): number {
  const value = nonNegativeNumber(raw, fallback, name);
  if (value === 0) throw new Error(`${name} must be greater than 0`);
  return value;
}

function nonNegativeNumber(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got "${raw}"`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Child-process servers

export interface ServerSpec {
  /** Shown in logs and errors. */
  name: string;
  command: string;
  args: string[];
  /** Added to the parent's environment. */
  env?: Record<string, string>;
  /** Variables of the parent's environment the server must not see. */
  unsetEnv?: readonly string[];
  cwd?: string;
  /** A line on stdout or stderr matching this means ready. */
  ready?: RegExp;
  readyTimeoutMs?: number;
}

export interface RunningServer {
  name: string;
  pid: number;
  /** Last lines the process wrote (stdout and stderr), for error messages. */
  outputTail(): string;
  /** Whether the process has ended (a crash, or after `stop`). */
  exited(): boolean;
  stop(): Promise<void>;
}

/** Throws, naming the process and its last output, when one of `servers` ended before its work did. */
export const failIfExited = (servers: readonly RunningServer[]): void => {
  const gone = servers.find((s) => s.exited());
  if (gone) throw new Error(`${gone.name} exited during the run\n--- last output ---\n${gone.outputTail()}`);
};

/** A free loopback port (bound and released; a tiny race is acceptable for a benchmark). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("could not read the port of a probe socket"));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/** Spawns a server in its own process group and resolves once it reports ready. */
export function startServer(spec: ServerSpec): Promise<RunningServer> {
  const ready = spec.ready ?? /listening/i;
  const timeoutMs = spec.readyTimeoutMs ?? 30_000;
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd ?? REPO_ROOT,
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...spec.env }).filter(([key]) => !spec.unsetEnv?.includes(key)),
    ),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const tail: string[] = [];
  const remember = (line: string): void => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
    if (process.env.BENCH_VERBOSE === "1") process.stderr.write(`[${spec.name}] ${line}\n`);
  };
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exited = true;
      resolve();
    });
  });

  const stop = async (): Promise<void> => {
    if (exited || child.pid === undefined) return;
    signalGroup(child.pid, "SIGTERM");
    const killed = await Promise.race([exitedPromise.then(() => true), delay(5_000).then(() => false)]);
    if (!killed) {
      signalGroup(child.pid, "SIGKILL");
      await exitedPromise;
    }
  };

  return new Promise<RunningServer>((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().finally(() => reject(new Error(`${spec.name}: ${message}\n--- last output ---\n${tail.join("\n")}`)));
    };
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const onLine = (line: string): void => {
      remember(line);
      if (!settled && ready.test(line)) {
        settled = true;
        clearTimeout(timer);
        resolve({
          name: spec.name,
          pid: child.pid ?? -1,
          outputTail: () => tail.join("\n"),
          exited: () => exited,
          stop,
        });
      }
    };
    splitLines(child.stdout, onLine);
    splitLines(child.stderr, onLine);
    child.once("error", (error) => fail(`could not start: ${error.message}`));
    child.once("exit", (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
  });
}

function splitLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Arguments that run a TypeScript file with the current Node (it strips the types), in one process. */
/**
 * The file a measured Laurel process runs: with LAUREL_DIST=1 (bench.sh sets it after building)
 * the JavaScript `npm start` runs (dist/, ops/build.sh), else the TypeScript sources.
 */
export function laurelEntry(app: "server" | "worker" | "start"): string {
  return process.env.LAUREL_DIST === "1" ? `dist/apps/${app}.js` : `apps/${app}.ts`;
}

/** Starts one of ops/bench/peers/*.ts on a fresh loopback port. */
export async function startPeer(
  name: string,
  file: string,
  env: Record<string, string> = {},
): Promise<RunningServer & { url: string }> {
  const port = await freePort();
  const server = await startServer({
    name,
    command: process.execPath,
    args: [`ops/bench/peers/${file}`],
    env: { ...env, PORT: String(port) },
    ready: new RegExp(`^listening ${port}$`),
  });
  return { ...server, url: `http://127.0.0.1:${port}` };
}

// ---------------------------------------------------------------------------------------------
// Load generation

export interface LoadRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** A new body for each request (overrides `body`), e.g. a new recipient per issued badge. */
  nextBody?: () => string;
}

export interface LoadResult {
  /** Mean completed requests per second over the measured window. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  /** Answers by status code (autocannon runs). */
  statusCodes?: Record<string, number>;
  /** Connection errors plus timeouts. */
  errors: number;
  /** Mean response bytes per second. */
  bytesPerSecond: number;
  /** Cores the server process used during the measured run (1.0 = one core saturated). */
  serverCores: number | undefined;
  /**
   * Cores used by everything except the server and this process: other programs (background noise)
   * and kernel threads, which carry part of the loopback traffic's cost.
   */
  otherCores: number | undefined;
  /** Cores this process (the load generator) used. */
  generatorCores: number;
}

/**
 * Warm-up (discarded), then the measured run, with the same request and connection count.
 * With `serverPid`, also reports the CPU the server and the rest of the machine used meanwhile.
 */
export async function measure(request: LoadRequest, settings: BenchSettings, serverPid?: number): Promise<LoadResult> {
  const options = {
    url: request.url,
    method: request.method ?? "GET",
    headers: request.headers ?? {},
    connections: settings.connections,
    pipelining: 1,
    timeout: 10,
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.nextBody === undefined
      ? {}
      : { requests: [{ setupRequest: (req: object) => ({ ...req, body: (request.nextBody as () => string)() }) }] }),
  };
  if (settings.warmup > 0) await autocannon({ ...options, duration: settings.warmup });
  const before = cpuSnapshot(serverPid);
  const result = await autocannon({ ...options, duration: settings.duration });
  const after = cpuSnapshot(serverPid);
  const wallMs = after.at - before.at;
  const serverMs =
    after.serverMs === undefined || before.serverMs === undefined ? undefined : after.serverMs - before.serverMs;
  const selfMs = after.selfMs - before.selfMs;
  const machineMs = after.machineMs - before.machineMs;
  return {
    serverCores: serverMs === undefined ? undefined : serverMs / wallMs,
    otherCores: serverMs === undefined ? undefined : Math.max(0, machineMs - serverMs - selfMs) / wallMs,
    generatorCores: selfMs / wallMs,
    rps: result.requests.mean,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    errors: result.errors + result.timeouts,
    bytesPerSecond: result.throughput.mean,
  };
}

interface CpuSnapshot {
  at: number;
  machineMs: number;
  selfMs: number;
  serverMs: number | undefined;
}

function cpuSnapshot(serverPid: number | undefined): CpuSnapshot {
  const self = process.cpuUsage();
  return {
    at: performance.now(),
    machineMs: machineBusyMs(),
    selfMs: (self.user + self.system) / 1000,
    serverMs: serverPid === undefined ? undefined : processCpuMs(serverPid),
  };
}

/** Busy time of all cores since boot, in ms. */
function machineBusyMs(): number {
  let busy = 0;
  for (const { times } of os.cpus()) busy += times.user + times.nice + times.sys + times.irq;
  return busy;
}

/** User + system CPU time of one process in ms, from /proc/<pid>/stat (Linux, USER_HZ = 100). */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name start at field 3 (state); utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Memory and machine

/** Resident set size of one process in KiB, from /proc/<pid>/status (Linux). */
export function rssKiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** Resident set size of a process and all its descendants in KiB. */
export function treeRssKiB(pid: number): number | undefined {
  const own = rssKiB(pid);
  if (own === undefined) return undefined;
  let sum = own;
  for (const child of descendants(pid)) sum += rssKiB(child) ?? 0;
  return sum;
}

export function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) is parenthesised and may contain spaces: parse after ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const current = queue.shift();
    for (const [pid, parent] of parentOf) {
      if (parent === current) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** Cores kept busy by other processes over the next `ms`, to spot a machine that is not idle. */
export async function cpuBusy(ms = 1000): Promise<number> {
  const before = cpuSnapshot(undefined);
  await delay(ms);
  const after = cpuSnapshot(undefined);
  const others = after.machineMs - before.machineMs - (after.selfMs - before.selfMs);
  return Math.max(0, others) / (after.at - before.at);
}

export function mib(kib: number | undefined): string {
  return kib === undefined ? "n/a" : `${(kib / 1024).toFixed(0)} MiB`;
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  memory: string;
  node: string;
  os: string;
}

export function machineInfo(): MachineInfo {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
    cores: os.cpus().length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, 3, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]): string =>
    `| ${widths.map((width, column) => (cells[column] ?? "").padEnd(width)).join(" | ")} |`;
  return [line(headers), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

export function formatRps(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** autocannon records latencies in whole milliseconds; keep decimals only if they exist. */
export function formatMs(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

const cores = (value: number | undefined): string => (value === undefined ? "n/a" : value.toFixed(2));

/** One row of a results table, in the order of RESULT_HEADERS. */
export function resultRow(label: string, result: LoadResult): string[] {
  return [
    label,
    formatRps(result.rps),
    formatMs(result.p50),
    formatMs(result.p99),
    String(result.non2xx),
    String(result.errors),
    cores(result.serverCores),
    cores(result.generatorCores),
    cores(result.otherCores),
  ];
}

export const RESULT_HEADERS = [
  "target",
  "req/s (mean)",
  "p50 ms",
  "p99 ms",
  "non-2xx",
  "errors",
  "server CPU (cores)",
  "load generator (cores)",
  "rest of machine (cores)",
] as const;

export function basicHeader(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

/** OAuth client authentication (RFC 6749 §2.3.1): id and secret are form-urlencoded first. */
export function clientBasicHeader(clientId: string, clientSecret: string): string {
  const form = (value: string): string => encodeURIComponent(value).replace(/%20/g, "+");
  return basicHeader(form(clientId), form(clientSecret));
}

const DOCS_HEADER = [
  "# Benchmarks",
  "",
  "Produced by `npm run bench` (`ops/bench/run.ts`, `badges.ts`, `webhooks.ts`). Each section is",
  "regenerated between its `<!-- bench:<name>:start -->` / `<!-- bench:<name>:end -->` markers; text outside",
  "them is kept.",
  "",
].join("\n");

/** Replaces (or appends) the `name` section of docs/benchmarks.md; returns the file's path. */
export function writeDocsSection(name: string, section: string): string {
  const path = join(REPO_ROOT, "docs", "benchmarks.md");
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const current = existsSync(path) ? readFileSync(path, "utf8") : `${DOCS_HEADER}\n`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const body = `${start}\n${section}\n${end}`;
  const next =
    from !== -1 && to > from
      ? `${current.slice(0, from)}${body}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${body}\n`;
  writeFileSync(path, next);
  return path;
}

/** A CA and a `localhost` certificate, made with the openssl CLI for one run only (the HTTPS receivers' and the workers' trust). */
export const makeCa = (dir: string): { caFile: string; keyFile: string; certFile: string } => {
  const p = (f: string): string => join(dir, f);
  const run = (args: string[]): void => void execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    p("ca.key"),
    "-out",
    p("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=Laurel Bench CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  run(["req", ...ec, "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", "/CN=localhost"]);
  writeFileSync(p("ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n");
  run([
    "x509",
    "-req",
    "-in",
    p("server.csr"),
    "-CA",
    p("ca.pem"),
    "-CAkey",
    p("ca.key"),
    "-CAcreateserial",
    "-out",
    p("server.pem"),
    "-days",
    "2",
    "-extfile",
    p("ext.cnf"),
  ]);
  return { caFile: p("ca.pem"), keyFile: p("server.key"), certFile: p("server.pem") };
};
