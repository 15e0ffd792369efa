// Webhook delivery and the events list, measured on this machine with everything real:
// PostgreSQL, a local nats-server, Laurel's API server and worker processes, and an HTTPS receiver
// (ops/bench/peers/webhook_receiver.ts) with a CA made by openssl for this run.
//
//   1. a raw HTTPS POST loop (undici, 50 in flight) against the receiver, same body as a webhook;
//   2. a worker process draining 20,000 recorded events (after 5,000 warm-up ones) to the same receiver (all bookkeeping on),
//      with the shipped per-destination cap (WEBHOOK_MAX_PER_DESTINATION, 8 requests in flight per
//      worker process; BENCH_DRAIN_PER_DESTINATION overrides it for experiments);
//      target >= 30% of the raw loop; then, for comparison only, one worker process with 32 in flight
//      to the destination (BENCH_DRAIN_COMPARE_CAP), not shipped and not held against the target. Each
//      drain reports its CPU budget: the CPU of all four processes per event, and the rate at which
//      that cost would take every core of the machine; then the drain's floor: the same libraries
//      alone, with none of Laurel's code (ops/bench/peers/webhook_skeleton.ts), the bus only, then the
//      bus and the signed POST (no database);
//   3. end-to-end latency (event committed -> receiver got it) at a steady 500 events/s; p99 < 100 ms;
//   4. the same with 10,000 deliveries to a dead receiver (connection refused) waiting for retry
//      (first attempts made before the window; a failing destination is then probed at 5/s);
//      p99 within 20% of (3); windows without (A) and with (B) the backlog in the order A B B A, each kind pooled;
//   5. the events list, page 1,000 of one million events, totals included; < 10 ms;
//   6. catch-up after an outage: the receiver answers 503 while BENCH_CATCHUP_EVENTS (10,000) events
//      are recorded and each is attempted or put off, then 200 again; the rate at which the backlog
//      then arrives, against the drain rate of (2) with one worker process (target: at least half).
//      Printed only (not written to docs/benchmarks.md).
//
// Run: BENCH_ONLY=webhooks npm run bench, or bash ops/prepare.sh test >/dev/null && npx node
// ops/bench/webhooks.ts. About 3 minutes.
// Env: DATABASE_URL or TEST_DATABASE_URL (an admin URL; a fresh database is made and dropped;
// default: `ops/prepare.sh postgres`), BENCH_DURATION (s, default 10), BENCH_LATENCY_DURATION (s, default 20), BENCH_WORKERS (worker
// processes for the drain: a comma-separated list, one drain each, default "1,2"), BENCH_DRAIN_EVENTS (20000), BENCH_DRAIN_WARMUP (5000 events drained first,
// not measured; 0 for none), BENCH_DRAIN_PER_DESTINATION (the shipped default), BENCH_DRAIN_COMPARE_CAP (32; 0: no comparison drain),
// BENCH_LIST_EVENTS (1000000), BENCH_RATE (events/s, 500), BENCH_PHASES (raw,drain,skeleton,latency,dead,list,catchup;
// skeleton runs within drain),
// BENCH_CATCHUP_EVENTS (10000),
// BENCH_WRITE_DOCS=0|1 (default: write the `webhooks` section of docs/benchmarks.md only on a full run:
// every phase at its default size), BENCH_VERBOSE=1 (echo the servers' output),
// BENCH_SUMMARY_FILE (a JSON file of the one-worker drain, its floor and the raw loop, for ops/bench/real.ts),
// BENCH_WORKER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_RAW_IN_FLIGHT (the raw loop's requests
// in flight, 50 by default, the bar the drain is compared with; 8 shows what the per-destination cap alone allows).

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { appendEvents, type Database, openDatabase } from "../../adapters/db/mod.ts";
import { badgeEvent } from "../../core/events/mod.ts";
import { DEFAULT_MAX_CONCURRENT_PER_DESTINATION } from "../../core/webhooks/mod.ts";
import { BADGE } from "./badge_fixture.ts";
import { createBenchDatabase } from "./laurel_process.ts";
import { adminOriginOf, BENCH_RATE_LIMITS } from "./laurel_setup.ts";
import {
  delay,
  failIfExited,
  formatRps,
  freePort,
  laurelEntry,
  machineInfo,
  makeCa,
  markdownTable,
  processCpuMs,
  REPO_ROOT,
  type RunningServer,
  startServer,
  writeDocsSection,
} from "./lib.ts";

const env = process.env;
const DURATION_S = Number(env.BENCH_DURATION ?? 10);
/** Each latency window (calm and with the dead backlog): long enough that p99 is not one hiccup. */
const LATENCY_S = Number(env.BENCH_LATENCY_DURATION ?? 20);
/** Worker processes for the drain, one run each: the shipped single process, then one per core here. */
const WORKER_COUNTS = (env.BENCH_WORKERS ?? "1,2").split(",").map(Number);
const DRAIN_EVENTS = Number(env.BENCH_DRAIN_EVENTS ?? 20_000);
const LIST_EVENTS = Number(env.BENCH_LIST_EVENTS ?? 1_000_000);
const RATE = Number(env.BENCH_RATE ?? 500);
const RAW_IN_FLIGHT = Number(env.BENCH_RAW_IN_FLIGHT ?? 50);
/** Events drained first and left out of the drain's figures, like the raw loop's warm-up (0: none). */
const DRAIN_WARMUP = Number(env.BENCH_DRAIN_WARMUP ?? 5_000);
/**
 * Requests in flight per destination and worker process for the drain: the shipped default ("at most a few
 * concurrent requests per destination"), unless BENCH_DRAIN_PER_DESTINATION is set.
 */
const DRAIN_PER_DESTINATION_SET = env.BENCH_DRAIN_PER_DESTINATION !== undefined;
const DRAIN_PER_DESTINATION = Number(env.BENCH_DRAIN_PER_DESTINATION ?? DEFAULT_MAX_CONCURRENT_PER_DESTINATION);
/**
 * One more drain, by one worker process with this many requests in flight to the destination (not
 * shipped: it shows what the cap costs; 0 for none). Not held against the target.
 */
const DRAIN_COMPARE_CAP = Number(env.BENCH_DRAIN_COMPARE_CAP ?? 32);
const DEAD_BACKLOG = 10_000;
/** Which parts to run (default all): raw,drain,skeleton,latency,dead,list,catchup. */
const PHASES = new Set((env.BENCH_PHASES ?? "raw,drain,skeleton,latency,dead,list,catchup").split(","));
const CATCHUP_EVENTS = Number(env.BENCH_CATCHUP_EVENTS ?? 10_000);
/** Node flags for the worker processes and the libraries-alone peer (e.g. "--cpu-prof --cpu-prof-dir=<dir>"). */
const WORKER_NODE_ARGS = env.BENCH_WORKER_NODE_ARGS ? env.BENCH_WORKER_NODE_ARGS.split(" ") : [];
const started: RunningServer[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
const benchStart = performance.now();
const log = (m: string): void =>
  void process.stdout.write(
    `${m}${m.startsWith("  ") ? "" : ` [${((performance.now() - benchStart) / 1000).toFixed(0)} s]`}\n`,
  );
const now = (): number => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// Services

const adminDatabaseUrl = (): string => {
  const given = env.TEST_DATABASE_URL || env.DATABASE_URL;
  if (given) return given;
  const out = execFileSync("bash", ["ops/prepare.sh", "postgres"], { cwd: REPO_ROOT, encoding: "utf8" });
  return out.trim().split("\n").pop() as string;
};

const freshDatabase = async (admin: string): Promise<string> => {
  const database = await createBenchDatabase(admin);
  cleanups.push(() => database.drop());
  return database.url;
};

interface Stack {
  db: Database;
  databaseUrl: string;
  nats: LocalNats;
  /** The nats-server process itself (LocalNats.process is the watchdog shell around it). */
  natsPid: number;
  dataDir: string;
  adminToken: string;
  api: RunningServer;
  origin: string;
  receiver: RunningServer;
  receiverUrl: string;
  ca: { caFile: string };
  agent: Agent;
}

const start = async (
  name: string,
  entry: string,
  extra: Record<string, string>,
  ready: RegExp,
  nodeArgs: string[] = [],
) => {
  const server = await startServer({
    name,
    command: process.execPath,
    args: [...nodeArgs, entry],
    env: extra,
    ready,
  });
  started.push(server);
  return server;
};

const setUp = async (): Promise<Stack> => {
  const dir = mkdtempSync(join(tmpdir(), "laurel-bench-webhooks-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const databaseUrl = await freshDatabase(adminDatabaseUrl());
  const natsDir = join(dir, "nats");
  const nats = await startLocalNats({ storeDir: natsDir });
  const natsPid =
    [...cpuByPid("nats-server").keys()].find((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(natsDir);
      } catch {
        return false;
      }
    }) ?? 0;
  cleanups.push(() => nats.stop());
  const ca = makeCa(dir);
  const receiverPort = await freePort();
  const receiver = await start(
    "receiver",
    "ops/bench/peers/webhook_receiver.ts",
    { PORT: String(receiverPort), TLS_KEY_FILE: ca.keyFile, TLS_CERT_FILE: ca.certFile },
    new RegExp(`^listening ${receiverPort}$`),
  );
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(32).toString("base64url");
  const dataDir = join(dir, "data");
  const api = await start(
    "laurel-api",
    laurelEntry("server"),
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `${origin}/v1`,
      AUTH_URL: origin,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      NATS_URL: nats.url,
      LAUREL_ADMIN_TOKEN: adminToken,
      LOG_LEVEL: "info",
      ...BENCH_RATE_LIMITS,
    },
    /listening on/,
  );
  const db = await openDatabase({ databaseUrl, dataDir, migrate: false, pool: { min: 1, max: 8 } });
  cleanups.push(() => db.close());
  const agent = new Agent({ connections: 50, pipelining: 1, connect: { ca: readFileSync(ca.caFile, "utf8") } });
  cleanups.push(() => agent.close());
  return {
    db,
    databaseUrl,
    nats,
    natsPid,
    dataDir,
    adminToken,
    api,
    origin,
    receiver,
    receiverUrl: `https://localhost:${receiverPort}`,
    ca,
    agent,
  };
};

const trpc = async (s: Stack, path: string, input: unknown): Promise<unknown> => {
  const res = await fetch(`${adminOriginOf(s.origin)}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${s.adminToken}` },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  if (!body.result) throw new Error(`tRPC ${path}: ${res.status} ${JSON.stringify(body.error)}`);
  return body.result.data;
};

/** An organization that receives webhooks at `url` (every delivery condition met). */
const webhookOrganization = async (s: Stack, name: string, url: string): Promise<{ id: string; token: string }> => {
  const created = (await trpc(s, "organizations.create", { name, email: "bench@example.org" })) as {
    organization: { id: string };
    authorization_token: { token: string };
  };
  const id = created.organization.id;
  const token = created.authorization_token.token;
  const res = await fetch(`${s.origin}/v1/organizations/${id}/oauth_applications`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${token}:`).toString("base64")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ name: "data services" }),
  });
  const app = ((await res.json()) as { data: { id: number } }).data;
  await trpc(s, "oauthApplications.setDataServices", { organization_id: id, application_id: app.id, enabled: true });
  await trpc(s, "webhooks.update", { organization_id: id, webhook_url: url, event_types: "all" });
  await trpc(s, "webhooks.secret", { organization_id: id });
  return { id, token };
};

const startWorker = (s: Stack, i: number, extra: Record<string, string> = {}) =>
  start(
    `laurel-worker-${i}`,
    laurelEntry("worker"),
    {
      DATABASE_URL: s.databaseUrl,
      NATS_URL: s.nats.url,
      DATA_DIR: s.dataDir,
      WEBHOOK_CA_FILE: s.ca.caFile,
      WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32",
      LOG_LEVEL: "info",
      ...extra,
    },
    /webhook worker ready/,
    WORKER_NODE_ARGS,
  );

const receiverStats = async (s: Stack): Promise<{ received: number; first: Record<string, number> }> => {
  const res = await request(`${s.receiverUrl}/stats`, { dispatcher: s.agent });
  return (await res.body.json()) as { received: number; first: Record<string, number> };
};

/** Cheap progress figures, for polling while a run goes on (the full map is read once at the end). */
const receiverCount = async (s: Stack): Promise<{ received: number; first: number }> => {
  const res = await request(`${s.receiverUrl}/count`, { dispatcher: s.agent });
  return (await res.body.json()) as { received: number; first: number };
};

const resetReceiver = async (s: Stack): Promise<void> => {
  const res = await request(`${s.receiverUrl}/reset`, { method: "POST", dispatcher: s.agent });
  await res.body.dump();
};

const recordBatch = async (db: Database, organizationId: string, n: number): Promise<string[]> => {
  const events = Array.from({ length: n }, () =>
    badgeEvent("badge.created", BADGE, { id: uuidv7(), organization_id: organizationId, occurred_at: new Date() }),
  );
  // One transaction, appended 1,000 at a time (a statement's bound values are limited).
  await db.transaction(async (tx) => {
    for (let i = 0; i < events.length; i += 1_000) await appendEvents(tx, events.slice(i, i + 1_000));
  });
  return events.map((e) => e.id);
};

const sql = <T>(db: Database, text: string, params: unknown[] = []): Promise<T[]> => db.all<T>(text, params);

/** CPU ms so far of every process named `comm` (e.g. every PostgreSQL backend), by pid. */
const cpuByPid = (comm: string): Map<number, number> => {
  const out = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === comm)
        out.set(Number(entry), processCpuMs(Number(entry)) ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return out;
};

/** CPU seconds per component between the call and the returned function's call. */
interface CpuUse {
  workers: number;
  /** The backends serving the bench database (not PostgreSQL's shared background processes). */
  postgres: number;
  nats: number;
  receiver: number;
}

const cpuMeter = (s: Stack, workers: RunningServer[]) => {
  const read = () => ({
    workers: workers.reduce((a, w) => a + (processCpuMs(w.pid) ?? 0), 0),
    postgres: cpuByPid("postgres"),
    nats: processCpuMs(s.natsPid) ?? 0,
    receiver: processCpuMs(s.receiver.pid) ?? 0,
  });
  const before = read();
  return async (): Promise<CpuUse> => {
    const after = read();
    const ours = await sql<{ pid: number }>(
      s.db,
      "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
    );
    let postgres = 0;
    for (const { pid } of ours) postgres += (after.postgres.get(pid) ?? 0) - (before.postgres.get(pid) ?? 0);
    return {
      workers: (after.workers - before.workers) / 1000,
      postgres: postgres / 1000,
      nats: (after.nats - before.nats) / 1000,
      receiver: (after.receiver - before.receiver) / 1000,
    };
  };
};

const cpuText = (c: CpuUse): string =>
  `workers ${c.workers.toFixed(1)} s, postgres ${c.postgres.toFixed(1)} s, nats ${c.nats.toFixed(1)} s, receiver ${c.receiver.toFixed(1)} s`;

/**
 * The drain's CPU budget: what the four processes spent per event in all, the rate at which that
 * cost would take every core of this machine (the most any number of worker processes could reach
 * at this cost), and how busy the machine and the worker processes were during the run.
 */
const cpuBudget = (d: DrainResult, processes: number, rawRate: number | undefined, cores: number) => {
  const cpuS = d.cpu.workers + d.cpu.postgres + d.cpu.nats + d.cpu.receiver;
  const usPerEvent = (1e6 * cpuS) / d.cpuEvents;
  const ceiling = (cores * 1e6) / usPerEvent;
  const wallS = d.cpuWallMs / 1000;
  return {
    usPerEvent,
    ceiling,
    ceilingShare: rawRate ? ceiling / rawRate : undefined,
    machineBusy: cpuS / (wallS * cores),
    workerBusy: d.cpu.workers / (wallS * processes),
  };
};

const budgetText = (d: DrainResult, processes: number, rawRate: number | undefined, cores: number): string => {
  const b = cpuBudget(d, processes, rawRate, cores);
  return (
    `${b.usPerEvent.toFixed(0)} µs of CPU per event in all: at that cost the ${cores} cores allow at most ` +
    `${formatRps(b.ceiling)} deliveries/s${b.ceilingShare === undefined ? "" : ` (${(100 * b.ceilingShare).toFixed(0)}% of the raw loop)`}; ` +
    `during the run they used ${(100 * b.machineBusy).toFixed(0)}% of the machine, the worker process${processes > 1 ? "es" : ""} ` +
    `${(100 * b.workerBusy).toFixed(0)}% of a core${processes > 1 ? " each" : ""}`
  );
};

const perEvent = (c: CpuUse, n: number): string =>
  `worker ${((1e6 * c.workers) / n).toFixed(0)} µs, PostgreSQL ${((1e6 * c.postgres) / n).toFixed(0)} µs, ` +
  `nats-server ${((1e6 * c.nats) / n).toFixed(0)} µs, receiver ${((1e6 * c.receiver) / n).toFixed(0)} µs`;

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);

const ms = (v: number): string => (Number.isNaN(v) ? "n/a" : v < 10 ? v.toFixed(2) : v.toFixed(1));

// ---------------------------------------------------------------------------------------------
// 1. The raw loop

interface RawResult {
  rate: number;
  /** CPU per POST (µs) of the loop's own process and of the receiver. */
  clientUs: number;
  receiverUs: number;
}

const rawLoop = async (s: Stack): Promise<RawResult> => {
  const summary = JSON.stringify({
    id: uuidv7(),
    organization_id: uuidv7(),
    event_type: "badge.created",
    occurred_at: "2026-01-01T00:00:00Z",
    delivered_at: "2026-01-01T00:00:01Z",
  });
  const headers = {
    "content-type": "application/json",
    "webhook-id": "01a20000-0000-7000-8000-000000000000",
    "webhook-timestamp": "1767225601",
    "webhook-signature": `v1,${randomBytes(32).toString("base64")}`,
  };
  const url = `${s.receiverUrl}/hooks`;
  const loop = async (until: number, counter: { n: number }): Promise<void> => {
    while (now() < until) {
      const res = await request(url, { method: "POST", headers, body: summary, dispatcher: s.agent });
      await res.body.dump();
      if (res.statusCode === 200) counter.n++;
    }
  };
  const warm = { n: 0 };
  await Promise.all(Array.from({ length: RAW_IN_FLIGHT }, () => loop(now() + 2_000, warm)));
  const counter = { n: 0 };
  const t0 = now();
  const cpu0 = process.cpuUsage();
  const receiver0 = processCpuMs(s.receiver.pid) ?? 0;
  await Promise.all(Array.from({ length: RAW_IN_FLIGHT }, () => loop(t0 + DURATION_S * 1000, counter)));
  const cpu = process.cpuUsage(cpu0);
  const receiverMs = (processCpuMs(s.receiver.pid) ?? 0) - receiver0;
  const rate = counter.n / ((now() - t0) / 1000);
  return {
    rate,
    clientUs: (cpu.user + cpu.system) / counter.n,
    receiverUs: (1000 * receiverMs) / counter.n,
  };
};

// ---------------------------------------------------------------------------------------------
// 2. Draining recorded events

/** One drain: its worker processes, their per-destination cap, and what they did. */
interface Drain {
  processes: number;
  perDestination: number;
  /** Whether the cap is the shipped default (only such drains are held against the target). */
  shipped: boolean;
  result: DrainResult;
}

interface DrainResult {
  rate: number;
  wallRate: number;
  cpu: CpuUse;
  /** Events received while the CPU was measured (after the warm-up). */
  cpuEvents: number;
  /** Wall time over which the CPU was measured (ms). */
  cpuWallMs: number;
  received: number;
  posts: number;
  recorded: number;
  /** Put-offs of measured deliveries (destination at its cap), from the workers' /metrics. */
  putOff: number;
}

/** The sum of a counter's samples in a worker's /metrics (Prometheus text). */
const scrapeCounter = async (port: number, name: string): Promise<number> => {
  const res = await request(`http://127.0.0.1:${port}/metrics`);
  const text = await res.body.text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
};

const drain = async (s: Stack, processes: number, perDestination?: number): Promise<DrainResult> => {
  await resetReceiver(s);
  const org = await webhookOrganization(s, "Drain", `${s.receiverUrl}/hooks`);
  const total = DRAIN_WARMUP + DRAIN_EVENTS;
  const record = async (n: number): Promise<void> => {
    for (let done = 0; done < n; done += 1_000) await recordBatch(s.db, org.id, Math.min(1_000, n - done));
  };
  // Without a warm-up, the events are recorded before the worker starts. With one (like the raw
  // loop's), the worker first drains the warm-up events (its code still being compiled by V8's
  // optimizing tiers); then the measured events are committed in one transaction, and CPU counts
  // from that commit, so the relay's work for them is measured too.
  await record(DRAIN_WARMUP === 0 ? DRAIN_EVENTS : DRAIN_WARMUP);
  const t0 = now();
  // The shipped per-destination cap unless one is given (the raw loop has 50 in flight).
  // Started together, so that several start draining at about the same time.
  const metricsPorts = await Promise.all(Array.from({ length: processes }, () => freePort()));
  const workers = await Promise.all(
    metricsPorts.map((port, i) =>
      startWorker(s, i, {
        METRICS_PORT: String(port),
        ...(perDestination === undefined ? {} : { WEBHOOK_MAX_PER_DESTINATION: String(perDestination) }),
      }),
    ),
  );
  const deadline = now() + 600_000;
  let seen = 0;
  if (DRAIN_WARMUP > 0) {
    for (;;) {
      seen = (await receiverCount(s)).first;
      if (seen >= DRAIN_WARMUP || now() >= deadline) break;
      failIfExited(workers);
      await delay(20);
    }
  }
  let putOffBefore = 0;
  for (const port of metricsPorts) putOffBefore += await scrapeCounter(port, "laurel_webhook_deferred_total");
  if (DRAIN_WARMUP > 0) await recordBatch(s.db, org.id, DRAIN_EVENTS);
  const cpu = cpuMeter(s, workers);
  const cpuFrom = now();
  while ((await receiverCount(s)).first < total && now() < deadline) {
    failIfExited(workers);
    await delay(100);
  }
  const stats = await receiverStats(s);
  const times = Object.values(stats.first).sort((a, b) => a - b);
  const cpuUsed = await cpu();
  const cpuWallMs = now() - cpuFrom;
  const [done] = await sql<{ n: string }>(
    s.db,
    "select count(*) as n from webhook_deliveries where organization_id = ? and status = 'succeeded'",
    [org.id],
  );
  let putOff = -putOffBefore;
  for (const port of metricsPorts) putOff += await scrapeCounter(port, "laurel_webhook_deferred_total");
  for (const w of workers) await w.stop();
  const last = times[times.length - 1] as number;
  // Measured: the receipts of the events recorded after the warm-up, first to last.
  const from = times[DRAIN_WARMUP] as number;
  return {
    rate: (times.length - DRAIN_WARMUP) / ((last - from) / 1000),
    wallRate: times.length / ((last - t0) / 1000),
    cpu: cpuUsed,
    cpuEvents: times.length - seen,
    cpuWallMs,
    received: times.length,
    posts: stats.received,
    recorded: Number(done?.n ?? 0),
    putOff,
  };
};

// ---------------------------------------------------------------------------------------------
// 2b. The drain's floor: the fixed libraries alone (ops/bench/peers/webhook_skeleton.ts)

const SKELETON_KINDS = ["bus", "post"] as const;
type SkeletonKind = (typeof SKELETON_KINDS)[number];
const SKELETON_LABEL: Record<SkeletonKind, string> = {
  bus: "the bus only (publish, consume, acknowledge)",
  post: "the bus and the signed POST, no database",
};

interface SkeletonResult {
  kind: SkeletonKind;
  rate: number;
  /** CPU per event of the skeleton's own process; `cpu`: nats-server's and the receiver's. */
  processUs: number;
  cpu: CpuUse;
}

const skeleton = async (s: Stack, kind: SkeletonKind): Promise<SkeletonResult> => {
  await resetReceiver(s);
  const child = await start(
    `skeleton-${kind}`,
    "ops/bench/peers/webhook_skeleton.ts",
    {
      NATS_URL: s.nats.url,
      RECEIVER_URL: `${s.receiverUrl}/hooks`,
      CA_FILE: s.ca.caFile,
      EVENTS: String(DRAIN_EVENTS),
      WARMUP: String(DRAIN_WARMUP),
      IN_FLIGHT: String(DRAIN_PER_DESTINATION),
      ...(kind === "bus" ? { BUS_ONLY: "1" } : {}),
    },
    /^measuring$/,
    WORKER_NODE_ARGS,
  );
  // Ready once its warm-up is drained: the measured events start now.
  const meter = cpuMeter(s, []);
  const resultLine = (): string | undefined => /^result (.*)$/m.exec(child.outputTail())?.[1];
  let line = resultLine();
  while (line === undefined) {
    failIfExited([child]);
    await delay(20);
    line = resultLine();
  }
  const cpu = await meter();
  // It deletes its stream on SIGTERM.
  await child.stop();
  const result = JSON.parse(line) as { rate: number; cpuUs: number };
  return { kind, rate: result.rate, processUs: result.cpuUs, cpu };
};

const skeletonPerEvent = (k: SkeletonResult): string =>
  `skeleton process ${k.processUs.toFixed(0)} µs, ` +
  `nats-server ${((1e6 * k.cpu.nats) / DRAIN_EVENTS).toFixed(0)} µs` +
  (k.kind === "bus" ? "" : `, receiver ${((1e6 * k.cpu.receiver) / DRAIN_EVENTS).toFixed(0)} µs`);

// ---------------------------------------------------------------------------------------------
// 6. Catch-up after an outage

const receiverMode = async (s: Stack, mode: "down" | "up"): Promise<void> => {
  const res = await request(`${s.receiverUrl}/${mode}`, { method: "POST", dispatcher: s.agent });
  await res.body.dump();
};

/**
 * A backlog built while the receiver answers 503 (every event attempted or put off by one worker
 * process), then released by its recovery: deliveries per second from the recovery to the last
 * receipt.
 */
const catchUp = async (s: Stack): Promise<{ rate: number; seconds: number; heldInDatabase: number }> => {
  await resetReceiver(s);
  await receiverMode(s, "down");
  const org = await webhookOrganization(s, "Catch-up", `${s.receiverUrl}/hooks`);
  const worker = await startWorker(s, 0);
  for (let done = 0; done < CATCHUP_EVENTS; done += 1_000) {
    await recordBatch(s.db, org.id, Math.min(1_000, CATCHUP_EVENTS - done));
  }
  // Every event has its delivery row: attempted (and failed) or put off to the database.
  const deadline = now() + 300_000;
  let held = 0;
  while (now() < deadline) {
    const [row] = await sql<{ n: string }>(
      s.db,
      "select count(*) as n from webhook_deliveries where organization_id = ? and status = 'pending'",
      [org.id],
    );
    held = Number(row?.n ?? 0);
    if (held >= CATCHUP_EVENTS * 0.99) break;
    failIfExited([worker]);
    await delay(250);
  }
  await receiverMode(s, "up");
  const t0 = now();
  while ((await receiverCount(s)).first < CATCHUP_EVENTS && now() < deadline + 300_000) {
    failIfExited([worker]);
    await delay(100);
  }
  const last = now();
  await worker.stop();
  return { rate: CATCHUP_EVENTS / ((last - t0) / 1000), seconds: (last - t0) / 1000, heldInDatabase: held };
};

// ---------------------------------------------------------------------------------------------
// 3 and 4. Latency at a steady rate

/** Records one event per transaction at `RATE`/s for `seconds`; returns commit time per event id. */
const steady = async (s: Stack, organizationId: string, seconds: number): Promise<Map<string, number>> => {
  const committed = new Map<string, number>();
  const total = Math.round(RATE * seconds);
  const t0 = now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - now();
    if (wait > 1) await delay(wait);
    const p = recordBatch(s.db, organizationId, 1).then(([id]) => void committed.set(id as string, now()));
    inFlight.push(p);
    if (inFlight.length > 50) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return committed;
};

const latencies = async (s: Stack, committed: Map<string, number>): Promise<number[]> => {
  const deadline = now() + 120_000;
  // Counted cheaply until enough ids arrived, then checked against the full map.
  let stats: { first: Record<string, number> } = { first: {} };
  for (;;) {
    while ((await receiverCount(s)).first < committed.size && now() < deadline) await delay(200);
    stats = await receiverStats(s);
    if ([...committed.keys()].every((id) => stats.first[id] !== undefined) || now() >= deadline) break;
    await delay(200);
  }
  const out: number[] = [];
  for (const [id, at] of committed) {
    const got = stats.first[id];
    if (got !== undefined) out.push(got - at);
  }
  return out.sort((a, b) => a - b);
};

const latencyRun = async (s: Stack, organizationId: string): Promise<number[]> => {
  // Both windows start from a settled database (what autovacuum would reach on its own), so the
  // comparison is of the backlog's presence, not of a vacuum that happens to fall in one window.
  await sql(s.db, "vacuum analyze events, webhook_deliveries, webhook_attempts");
  await steady(s, organizationId, 2); // warm-up, discarded
  await delay(500);
  await resetReceiver(s);
  return latencies(s, await steady(s, organizationId, LATENCY_S));
};

// ---------------------------------------------------------------------------------------------
// 5. The events list

const listBench = async (
  s: Stack,
): Promise<{ page: number; page1: number[]; page1000: number[]; count: number; explain: number }> => {
  const org = (await trpc(s, "organizations.create", { name: "Historian", email: "bench@example.org" })) as {
    organization: { id: string };
    authorization_token: { token: string };
  };
  const id = org.organization.id;
  const detail = JSON.stringify({ badge: BADGE });
  const chunk = 100_000;
  const t0 = now();
  for (let from = 1; from <= LIST_EVENTS; from += chunk) {
    const to = Math.min(LIST_EVENTS, from + chunk - 1);
    await sql(
      s.db,
      `insert into events (id, organization_id, event_type, occurred_at, detail, seq)
       select gen_random_uuid(), ?::uuid, 'badge.created', now(), ?::jsonb, g from generate_series(?::bigint, ?::bigint) g`,
      [id, detail, from, to],
    );
  }
  await sql(
    s.db,
    "insert into event_counts (organization_id, total) values (?::uuid, ?) on conflict (organization_id) do update set total = excluded.total",
    [id, LIST_EVENTS],
  );
  // As if the relay had published them (this organization has no webhook): nothing to drain.
  await sql(s.db, "update event_relay_cursors set published_seq = ? where organization_id = ?::uuid", [
    LIST_EVENTS,
    id,
  ]);
  await sql(s.db, "vacuum analyze events");
  log(`  ${LIST_EVENTS.toLocaleString("en-US")} events inserted in ${((now() - t0) / 1000).toFixed(0)} s`);
  const auth = `Basic ${Buffer.from(`${org.authorization_token.token}:`).toString("base64")}`;
  const api = new Agent({ connections: 1 });
  cleanups.push(() => api.close());
  const time = async (page: number, n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = now();
      const res = await request(`${s.origin}/v1/organizations/${id}/events?page=${page}`, {
        headers: { authorization: auth },
        dispatcher: api,
      });
      const body = (await res.body.json()) as { data: unknown[]; metadata: { total_count: number } };
      out.push(now() - t);
      if (res.statusCode !== 200 || body.data.length !== 50 || body.metadata.total_count !== LIST_EVENTS) {
        throw new Error(
          `page ${page}: ${res.statusCode}, ${body.data?.length} items, total ${body.metadata?.total_count}`,
        );
      }
    }
    return out.sort((a, b) => a - b);
  };
  const page = Math.min(1_000, Math.floor(LIST_EVENTS / 50));
  await time(page, 30);
  await time(1, 30);
  const page1000 = await time(page, 300);
  const page1 = await time(1, 300);
  const c = now();
  await sql(s.db, "select count(*) from events where organization_id = ?::uuid", [id]);
  const count = now() - c;
  const plan = await sql<{ "QUERY PLAN": Array<{ "Execution Time": number }> }>(
    s.db,
    `explain (analyze, format json)
     select c.total, e.id from (select coalesce((select total from event_counts where organization_id = ?::uuid), 0) as total) c
     left join lateral (select id, seq from events where organization_id = ?::uuid and seq <= c.total - ?::bigint
                        order by seq desc limit 50) e on true`,
    [id, id, (page - 1) * 50],
  );
  return { page, page1, page1000, count, explain: plan[0]?.["QUERY PLAN"][0]?.["Execution Time"] ?? Number.NaN };
};

// ---------------------------------------------------------------------------------------------

interface LatencyResult {
  events: number;
  p50: number;
  p99: number;
  max: number;
}

const latencyOf = (sorted: number[]): LatencyResult => ({
  events: sorted.length,
  p50: percentile(sorted, 50),
  p99: percentile(sorted, 99),
  max: sorted[sorted.length - 1] ?? Number.NaN,
});

const latencyText = (l: LatencyResult): string =>
  `${l.events} events: p50 ${ms(l.p50)} ms, p99 ${ms(l.p99)} ms, max ${ms(l.max)} ms`;

interface Results {
  /** The faster of the raw loop's runs (before and after the drains): the peer at its best. */
  raw?: RawResult;
  rawRuns?: RawResult[];
  /** One drain per worker-process count, in WORKER_COUNTS order. */
  drains?: Drain[];
  /** The drain with BENCH_DRAIN_COMPARE_CAP in flight to the destination (not shipped). */
  compared?: Drain;
  /** The drain's floor: the fixed libraries alone (the bus only, then with the signed POST). */
  skeletons?: SkeletonResult[];
  /** Without the dead backlog: its windows pooled (the figure held against the targets). */
  calm?: LatencyResult;
  /** The windows one by one, without the backlog (A) and with it (B), each in run order. */
  calmWindows?: LatencyResult[];
  loadedWindows?: LatencyResult[];
  loaded?: LatencyResult & { deadAttempts: number; backlog: number };
  list?: Awaited<ReturnType<typeof listBench>>;
}

const n0 = (v: number): string => v.toLocaleString("en-US");
const allDrains = (r: Results): Drain[] => [...(r.drains ?? []), ...(r.compared ? [r.compared] : [])];

/** The `webhooks` section of docs/benchmarks.md, from one run's results. */
const renderSection = (r: Results, m: ReturnType<typeof machineInfo>): string => {
  const out: string[] = [
    "## Webhook delivery and the events list",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx node ops/bench/webhooks.ts\` on ${m.cpu}, ${m.cores} cores, ` +
      `${m.memory} RAM, Node ${m.node}, ${m.os}. Everything real and on this machine: PostgreSQL, one nats-server, ` +
      `Laurel's API server (\`${laurelEntry("server")}\`) and worker processes (\`${laurelEntry("worker")}\`, each an event relay, retry scheduler and ` +
      "delivery worker), and an HTTPS receiver (`node:https`, `ops/bench/peers/webhook_receiver.ts`, answering 200 " +
      "`ok`) with a CA made for the run. CPU per event is the CPU each process used during the run divided by the " +
      "events delivered (PostgreSQL: the backends serving the benchmark database).",
  ];
  if (r.raw || r.drains) {
    const rows: string[][] = [];
    for (const [i, raw] of (r.rawRuns ?? []).entries()) {
      const when = (r.rawRuns ?? []).length > 1 ? (i === 0 ? ", before the drains" : ", after the drains") : "";
      rows.push([
        `raw HTTPS POST loop (undici \`request\`, ${RAW_IN_FLIGHT} in flight, same body and headers${when})`,
        `${formatRps(raw.rate)} POST/s`,
        `client ${raw.clientUs.toFixed(0)} µs, receiver ${raw.receiverUs.toFixed(0)} µs`,
      ]);
    }
    for (const { processes, perDestination, shipped, result } of allDrains(r)) {
      rows.push([
        `workers draining ${n0(DRAIN_EVENTS)} recorded events (${processes} worker process${processes > 1 ? "es" : ""}, ` +
          `${perDestination} in flight to the destination per process` +
          `${shipped ? ", the shipped default" : ", not shipped: for comparison"}), all bookkeeping`,
        `${formatRps(result.rate)} deliveries/s`,
        perEvent(result.cpu, result.cpuEvents),
      ]);
    }
    for (const k of r.skeletons ?? []) {
      rows.push([
        `the libraries alone (\`ops/bench/peers/webhook_skeleton.ts\`, ${DRAIN_PER_DESTINATION} in flight): ${SKELETON_LABEL[k.kind]}`,
        `${formatRps(k.rate)} deliveries/s`,
        skeletonPerEvent(k),
      ]);
    }
    out.push(
      "",
      "### Delivery throughput",
      "",
      `The raw loop runs ${DURATION_S} s after a 2 s warm-up, before the drains and again after them; the ` +
        "ratios below use the faster of its runs, so a run disturbed by something else on the machine cannot flatter the drains. " +
        `The drain starts the worker with the events already ` +
        `recorded (unpublished) after ${n0(DRAIN_WARMUP)} warm-up events it drains first; the ${n0(DRAIN_EVENTS)} ` +
        "are committed in one transaction and its rate is theirs over the time from their first to their last receipt " +
        "(CPU counted from their commit), each event published to JetStream, consumed, signed, POSTed, its delivery " +
        "and attempt recorded in PostgreSQL, and acknowledged. " +
        "The libraries alone are what the drain is built on, measured without it: nats.js and undici with their " +
        "options as Laurel sets them, publishing, consuming, signing, POSTing and acknowledging in one process, with " +
        "none of Laurel's code and no database at all (no outbox read, no delivery or attempt recorded, no seal or " +
        "schema check, no destination limits).",
      "",
      markdownTable(["run", "rate", "CPU per event"], rows),
    );
    if (r.raw) {
      const rawUs = r.raw.clientUs + r.raw.receiverUs;
      out.push(
        "",
        `The raw loop spends ${rawUs.toFixed(0)} µs of CPU per POST (client and receiver): at that cost the ${m.cores} cores ` +
          `would allow ${formatRps((m.cores * 1e6) / rawUs)} POST/s, and it ran at ${((100 * r.raw.rate * rawUs) / (m.cores * 1e6)).toFixed(0)}% ` +
          "of that. Each drain's CPU budget below is the same reckoning for its four processes (workers, PostgreSQL, " +
          "nats-server, receiver).",
      );
    }
    for (const { processes, perDestination, result } of allDrains(r)) {
      out.push(
        "",
        `With ${processes} worker process${processes > 1 ? "es" : ""} and ${perDestination} in flight per process, the drain's receiver saw ${n0(result.posts)} POSTs ` +
          `for ${n0(result.received)} events; ${n0(result.recorded)} deliveries were recorded succeeded; ` +
          `the workers put deliveries off ${n0(result.putOff)} times (destination at its cap). From the ` +
          `workers' start (process start included): ${formatRps(result.wallRate)} deliveries/s. CPU budget: ` +
          `${budgetText(result, processes, r.raw?.rate, m.cores)}.`,
      );
    }
  }
  if (r.calm) {
    const row = (label: string, l: LatencyResult): string[] => [label, n0(l.events), ms(l.p50), ms(l.p99), ms(l.max)];
    const rows: string[][] = [];
    if (r.loaded) {
      const [a1, a2] = r.calmWindows ?? [];
      const [b1, b2] = r.loadedWindows ?? [];
      const windows: Array<[string, LatencyResult | undefined]> = [
        ["1st window (A, no backlog)", a1],
        ["2nd window (B, backlog waiting)", b1],
        ["3rd window (B, backlog waiting)", b2],
        ["4th window (A, no backlog)", a2],
      ];
      rows.push(row(`steady ${RATE} events/s, windows A pooled`, r.calm));
      rows.push(
        row(`the same, ${n0(r.loaded.backlog)} deliveries to a dead receiver waiting, windows B pooled`, r.loaded),
      );
      for (const [label, l] of windows) if (l) rows.push(row(label, l));
    } else {
      rows.push(row(`steady ${RATE} events/s`, r.calm));
    }
    out.push(
      "",
      "### End-to-end latency (event committed -> receiver got it)",
      "",
      `One event per transaction at ${RATE}/s for ${LATENCY_S} s after a 2 s warm-up (each window after a \`VACUUM ANALYZE\` of the events and delivery tables), one worker process with the ` +
        "default per-destination policy." +
        (r.loaded
          ? ` The dead receiver refuses connections; all its deliveries are pending in PostgreSQL before the window ` +
            `(a failing destination is probed at 5/s per worker; the rest wait their turn): ${n0(r.loaded.deadAttempts)} attempts ` +
            "to it during the windows B. The four windows run in the order A B B A (the backlog is recorded before " +
            "the first B and deleted before the second A), and the comparison is of the pooled B against the pooled A, so " +
            "that drift over the run (the machine, the worker warming up, tables growing) weighs on both sides alike " +
            "instead of on whichever window comes first. Each p99 here is set by the slowest 1% (a few stalls of " +
            "10-30 ms); single windows differ by ±30% from one another with or without the backlog."
          : ""),
      "",
      markdownTable(["run", "events", "p50 ms", "p99 ms", "max ms"], rows),
    );
  }
  if (r.list) {
    const l = r.list;
    out.push(
      "",
      `### Events list, ${n0(LIST_EVENTS)} events of one organization, totals included`,
      "",
      "`GET /v1/organizations/<org>/events?page=N` (50 per page), 300 requests per row one after another over one " +
        "keep-alive connection on loopback, after 30 warm-up requests. The round trip bounds the server's time from above.",
      "",
      markdownTable(
        ["page", "p50 ms", "p99 ms"],
        [
          ["1", ms(percentile(l.page1, 50)), ms(percentile(l.page1, 99))],
          [n0(l.page), ms(percentile(l.page1000, 50)), ms(percentile(l.page1000, 99))],
        ],
      ),
      "",
      `The list's SQL for page ${n0(l.page)} runs in ${ms(l.explain)} ms (EXPLAIN ANALYZE); a \`count(*)\` of the ` +
        `organization's events, which the list does not need, takes ${ms(l.count)} ms.`,
    );
  }
  const targets: string[][] = [];
  for (const { processes, result } of r.raw ? (r.drains ?? []).filter((d) => d.shipped) : []) {
    const ratio = result.rate / (r.raw as RawResult).rate;
    targets.push([
      `drain (${processes} worker process${processes > 1 ? "es" : ""}) / raw HTTPS POST loop`,
      `${(100 * ratio).toFixed(0)}%`,
      ">= 30%",
      ratio >= 0.3 ? "met" : "NOT met",
    ]);
  }
  const floor = r.skeletons?.find((k) => k.kind === "post");
  if (floor && r.raw) {
    targets.push([
      "not a target, for reading the drain's: the libraries alone (bus and signed POST, no database) / raw loop",
      `${((100 * floor.rate) / r.raw.rate).toFixed(0)}%`,
      "",
      "",
    ]);
  }
  if (r.calm) {
    targets.push([
      `end-to-end p99 at ${RATE} events/s`,
      `${ms(r.calm.p99)} ms`,
      "< 100 ms",
      r.calm.p99 < 100 ? "met" : "NOT met",
    ]);
  }
  if (r.calm && r.loaded) {
    const change = (r.loaded.p99 - r.calm.p99) / r.calm.p99;
    targets.push([
      `p99 with ${n0(r.loaded.backlog)} dead deliveries waiting, against without`,
      `${change >= 0 ? "+" : ""}${(100 * change).toFixed(0)}% (${ms(r.loaded.p99)} ms)`,
      "within 20%",
      change <= 0.2 ? "met" : "NOT met",
    ]);
  }
  if (r.list) {
    const p99 = percentile(r.list.page1000, 99);
    targets.push([
      `events list page ${n0(r.list.page)} of ${n0(LIST_EVENTS)}, p99 round trip`,
      `${ms(p99)} ms`,
      "< 10 ms server time",
      p99 < 10 ? "met" : "NOT met",
    ]);
  }
  out.push("", "### Against the targets", "", markdownTable(["measure", "measured", "target", "result"], targets));
  return out.join("\n");
};

const main = async (): Promise<void> => {
  const m = machineInfo();
  log(
    `# Webhook delivery and events list benchmark\n\n${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}, ${m.os}`,
  );
  log(
    `duration ${DURATION_S} s, ${WORKER_COUNTS.join(" then ")} worker process(es) for the drain, ${RATE} events/s for latency\n`,
  );
  const s = await setUp();
  const r: Results = {};

  const raw = async (again = false): Promise<void> => {
    log(`${again ? "   again, after the drains" : "1. raw HTTPS POST loop"} (undici, ${RAW_IN_FLIGHT} in flight)...`);
    const run = await rawLoop(s);
    r.rawRuns = [...(r.rawRuns ?? []), run];
    if (!r.raw || run.rate > r.raw.rate) r.raw = run;
    log(
      `  ${formatRps(run.rate)} POST/s; CPU per POST: client ${run.clientUs.toFixed(0)} µs, receiver ${run.receiverUs.toFixed(0)} µs`,
    );
  };
  if (PHASES.has("raw")) await raw();

  if (PHASES.has("drain")) {
    log(`2. workers draining ${n0(DRAIN_EVENTS)} recorded events...`);
    r.drains = [];
    const runDrain = async (processes: number, cap: number | undefined): Promise<Drain> => {
      const d = await drain(s, processes, cap);
      log(
        `  ${processes} worker process(es), ${cap ?? DEFAULT_MAX_CONCURRENT_PER_DESTINATION} in flight per process: ${d.received} events received (${d.posts} POSTs), ${d.recorded} deliveries recorded succeeded, ${d.putOff} put-offs`,
      );
      log(
        `  ${formatRps(d.rate)} deliveries/s (first to last receipt)${r.raw ? ` = ${((100 * d.rate) / r.raw.rate).toFixed(0)}% of raw` : ""}, ` +
          `${formatRps(d.wallRate)}/s from worker start; CPU: ${cpuText(d.cpu)}; per event: ${perEvent(d.cpu, d.cpuEvents)}`,
      );
      log(`  ${budgetText(d, processes, r.raw?.rate, m.cores)}`);
      return {
        processes,
        perDestination: cap ?? DEFAULT_MAX_CONCURRENT_PER_DESTINATION,
        shipped: cap === undefined || cap === DEFAULT_MAX_CONCURRENT_PER_DESTINATION,
        result: d,
      };
    };
    for (const processes of WORKER_COUNTS) {
      r.drains.push(await runDrain(processes, DRAIN_PER_DESTINATION_SET ? DRAIN_PER_DESTINATION : undefined));
    }
    if (DRAIN_COMPARE_CAP > 0) r.compared = await runDrain(1, DRAIN_COMPARE_CAP);
    if (PHASES.has("skeleton")) {
      r.skeletons = [];
      for (const kind of SKELETON_KINDS) {
        const k = await skeleton(s, kind);
        r.skeletons.push(k);
        log(
          `  the libraries alone, ${SKELETON_LABEL[kind]}: ${formatRps(k.rate)} deliveries/s` +
            `${r.raw ? ` = ${((100 * k.rate) / r.raw.rate).toFixed(0)}% of raw` : ""}; per event: ${skeletonPerEvent(k)}`,
        );
      }
    }
    // The peer again, after the drains: the ratios use its faster run.
    if (PHASES.has("raw")) await raw(true);
  }

  if (PHASES.has("latency") || PHASES.has("dead")) {
    log(`3. end-to-end latency at ${RATE} events/s...`);
    const healthy = await webhookOrganization(s, "Healthy", `${s.receiverUrl}/hooks`);
    const worker = await startWorker(s, 0);
    if (!PHASES.has("dead")) {
      r.calm = latencyOf(await latencyRun(s, healthy.id));
      log(`  ${latencyText(r.calm)}`);
    } else {
      // Windows without (A) and with (B) the dead backlog in the order A B B A: drift over the run
      // (the machine, the worker warming up, tables growing) weighs on both sides alike.
      log(
        `   and with ${n0(DEAD_BACKLOG)} deliveries to a dead receiver waiting for retry, windows in the order A B B A`,
      );
      // The worker's CPU over each window (with its VACUUM and warm-up): what the backlog costs it.
      const workerCpuMs = (): number => processCpuMs(worker.pid) ?? 0;
      const deadPort = await freePort();
      const dead = await webhookOrganization(s, "Dead", `https://localhost:${deadPort}/hooks`);
      const deadPending = async (): Promise<number> => {
        const [row] = await sql<{ n: string }>(
          s.db,
          "select count(*) as n from webhook_deliveries where organization_id = ? and status = 'pending'",
          [dead.id],
        );
        return Number(row?.n ?? 0);
      };
      const calm: number[][] = [];
      const loaded: number[][] = [];
      let deadAttempts = 0;
      for (const withBacklog of [false, true, true, false]) {
        if (!withBacklog) {
          await sql(s.db, "delete from webhook_deliveries where organization_id = ?", [dead.id]);
          const cpu0 = workerCpuMs();
          const window = await latencyRun(s, healthy.id);
          calm.push(window);
          log(`  A, no backlog: ${latencyText(latencyOf(window))}; worker CPU ${n0(workerCpuMs() - cpu0)} ms`);
          continue;
        }
        // Recorded before the first B (the second finds it still there), and waited for until every
        // first attempt failed.
        if ((await deadPending()) < DEAD_BACKLOG) {
          for (let done = 0; done < DEAD_BACKLOG; done += 1_000) await recordBatch(s.db, dead.id, 1_000);
          const backlogDeadline = now() + 300_000;
          while ((await deadPending()) < DEAD_BACKLOG && now() <= backlogDeadline) await delay(250);
        }
        const windowStart = new Date();
        const cpu0 = workerCpuMs();
        const window = await latencyRun(s, healthy.id);
        const cpuMs = workerCpuMs() - cpu0;
        const [attempts] = await sql<{ n: string }>(
          s.db,
          "select count(*) as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.organization_id = ? and a.started_at >= ?",
          [dead.id, windowStart],
        );
        deadAttempts += Number(attempts?.n ?? 0);
        loaded.push(window);
        log(
          `  B, backlog waiting: ${latencyText(latencyOf(window))}; worker CPU ${n0(cpuMs)} ms; ${attempts?.n} attempts to the dead receiver meanwhile`,
        );
      }
      const pooled = (windows: number[][]) => latencyOf(windows.flat().sort((a, b) => a - b));
      r.calmWindows = calm.map(latencyOf);
      r.loadedWindows = loaded.map(latencyOf);
      r.calm = pooled(calm);
      r.loaded = { ...pooled(loaded), deadAttempts, backlog: DEAD_BACKLOG };
      log(`  without the backlog: ${latencyText(r.calm)}`);
      log(`  with it: ${latencyText(r.loaded)}`);
    }
    await worker.stop();
  }

  if (PHASES.has("list")) {
    log(`5. events list, page 1,000 of ${n0(LIST_EVENTS)} events...`);
    const list = await listBench(s);
    r.list = list;
    log(
      `  page ${n0(list.page)}: p50 ${ms(percentile(list.page1000, 50))} ms, p99 ${ms(percentile(list.page1000, 99))} ms (HTTP round trip on loopback); ` +
        `page 1: p50 ${ms(percentile(list.page1, 50))} ms; list SQL ${ms(list.explain)} ms; count(*) ${ms(list.count)} ms`,
    );
  }
  if (PHASES.has("catchup")) {
    log(`6. catch-up of ${n0(CATCHUP_EVENTS)} deliveries held back by a receiver outage...`);
    const c = await catchUp(s);
    const drainRate = r.drains?.[0]?.result.rate;
    log(
      `  ${n0(c.heldInDatabase)} waiting when the receiver came back; delivered in ${c.seconds.toFixed(1)} s: ${formatRps(c.rate)} deliveries/s` +
        (drainRate ? ` = ${((100 * c.rate) / drainRate).toFixed(0)}% of the drain rate (target: at least 50%)` : ""),
    );
  }
  // For `ops/bench/real.ts`, which reads the drain against its floor from this run.
  if (env.BENCH_SUMMARY_FILE) {
    const oneWorker = r.drains?.find((d) => d.processes === 1 && d.shipped)?.result.rate ?? null;
    const floor = r.skeletons?.find((k) => k.kind === "post")?.rate ?? null;
    writeFileSync(
      env.BENCH_SUMMARY_FILE,
      JSON.stringify({ drain_1_worker_eps: oneWorker, floor_eps: floor, raw_eps: r.raw?.rate ?? null }),
    );
  }
  const section = renderSection(r, m);
  log(`\n${section}\n`);
  // Only a full run (every phase, full length and sizes) replaces the published figures, unless asked.
  const fullRun =
    ["raw", "drain", "skeleton", "latency", "dead", "list"].every((phase) => PHASES.has(phase)) &&
    DURATION_S >= 10 &&
    DRAIN_EVENTS >= 20_000 &&
    DRAIN_WARMUP === 5_000 &&
    RAW_IN_FLIGHT === 50 &&
    LIST_EVENTS >= 1_000_000 &&
    RATE === 500 &&
    !DRAIN_PER_DESTINATION_SET &&
    WORKER_COUNTS[0] === 1;
  const write = env.BENCH_WRITE_DOCS === "1" || (env.BENCH_WRITE_DOCS !== "0" && fullRun);
  log(
    write
      ? `Wrote ${writeDocsSection("webhooks", section)}`
      : "docs/benchmarks.md not written (BENCH_WRITE_DOCS=0, or a partial or short run; BENCH_WRITE_DOCS=1 forces it).",
  );
};

const cleanup = async (): Promise<void> => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
};

try {
  await main();
} catch (err) {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
