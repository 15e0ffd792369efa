// Fairness between many webhook destinations, with everything real: PostgreSQL, a
// local nats-server, Laurel's API server and two worker processes, and 200 HTTPS receivers
// (ops/bench/peers/fair_receivers.ts, one process, one port each: the workers key a destination by
// scheme://host:port) behind a CA made by openssl for this run.
//
//   0. the drain rate: one worker process draining recorded events to one healthy receiver, as phase
//      2 of ops/bench/webhooks.ts does (BENCH_FAIR_DRAIN_RATE given: taken as is, nothing measured);
//   1. alone: the 180 healthy organizations only, at the mixed run's rate per organization
//      (5 events/s each by default) for BENCH_FAIR_SECONDS;
//   2. mixed: 200 organizations at 1,000 events/s in all for BENCH_FAIR_SECONDS: 180 receivers answer
//      at once, 10 answer after 10 s, 10 refuse connections (closed port) and start listening
//      BENCH_FAIR_DEAD_SECONDS into the run; then the wait for the dead destinations' backlog.
//
// Figures: the healthy destinations' end-to-end p99 (event committed -> receiver got it) in the
// mixed run against alone, the share of their events received by the end of recording plus a grace
// period, the worker processes' RSS growth (end of the mixed run's grace against after the alone run,
// which is their warm-up), and the rate at which the dead destinations' backlog (their events
// committed before they came back) arrived after they came back, against the drain rate.
//
// Events are recorded as webhooks.ts records them (appendEvents in a transaction, one statement per
// transaction), every BENCH_FAIR_TICK_MS (10) one transaction with the events due by then, spread
// round-robin over the organizations: 100 commits a second rather than 1,000, so the bench's own
// PostgreSQL load stays small on a 2-core machine.
//
// Run: bash ops/prepare.sh test >/dev/null && bash ops/build.sh && LAUREL_DIST=1 npx node ops/bench/real_fairness.ts
// Env: TEST_DATABASE_URL or DATABASE_URL (an admin URL; a fresh database is made and dropped),
// BENCH_FAIR_SECONDS (90), BENCH_FAIR_RATE (events/s in the mixed run, 1000), BENCH_FAIR_DEAD_SECONDS
// (when the dead receivers come back: 60, or two thirds of a shorter run), BENCH_FAIR_SLOW_MS (10000),
// BENCH_FAIR_GRACE_SECONDS (5), BENCH_FAIR_BACKLOG_WAIT_SECONDS (most time waited for the dead backlog
// after the run, 300), BENCH_FAIR_DRAIN_RATE (events/s; unset: measured), BENCH_FAIR_DRAIN_EVENTS
// (10000), BENCH_FAIR_DRAIN_WARMUP (3000), BENCH_FAIR_TICK_MS (10), BENCH_FAIR_SLOW_COUNT and
// BENCH_FAIR_DEAD_COUNT (10 each; 0 to see one kind's effect alone), BENCH_VERBOSE=1 (echo the servers' output).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Agent, request } from "undici";
import { EVENTS_STREAM, WEBHOOK_CONSUMER } from "../../adapters/bus/jetstream_webhooks.ts";
import { startLocalNats } from "../../adapters/bus/mod.ts";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { appendEvents, type Database, openDatabase } from "../../adapters/db/mod.ts";
import { badgeEvent } from "../../core/events/mod.ts";
import { BADGE } from "./badge_fixture.ts";
import {
  adminTrpc,
  benchAdminUrl,
  createBenchDatabase,
  type Laurel,
  logBenchHeader,
  percentile,
  runBenchProcess,
  startLaurelServer,
} from "./laurel_process.ts";
import {
  delay,
  failIfExited,
  freePort,
  laurelEntry,
  makeCa,
  processCpuMs,
  type RunningServer,
  rssKiB,
  startServer,
} from "./lib.ts";

const env = process.env;
const SECONDS = Number(env.BENCH_FAIR_SECONDS ?? 90);
const RATE = Number(env.BENCH_FAIR_RATE ?? 1_000);
const HEALTHY = 180;
/** 10 each; fewer only to tell their effects apart while investigating (the rate per organization stays RATE / 200). */
const SLOW = Number(env.BENCH_FAIR_SLOW_COUNT ?? 10);
const DEAD = Number(env.BENCH_FAIR_DEAD_COUNT ?? 10);
const ORGANIZATIONS = HEALTHY + SLOW + DEAD;
const PER_ORGANIZATION = RATE / 200;
const DEAD_S = Number(env.BENCH_FAIR_DEAD_SECONDS ?? Math.min(60, Math.round((2 * SECONDS) / 3)));
const SLOW_MS = Number(env.BENCH_FAIR_SLOW_MS ?? 10_000);
const GRACE_S = Number(env.BENCH_FAIR_GRACE_SECONDS ?? 5);
const BACKLOG_WAIT_S = Number(env.BENCH_FAIR_BACKLOG_WAIT_SECONDS ?? 300);
const GIVEN_DRAIN_RATE = env.BENCH_FAIR_DRAIN_RATE === undefined ? undefined : Number(env.BENCH_FAIR_DRAIN_RATE);
const DRAIN_EVENTS = Number(env.BENCH_FAIR_DRAIN_EVENTS ?? 10_000);
const DRAIN_WARMUP = Number(env.BENCH_FAIR_DRAIN_WARMUP ?? 3_000);
const TICK_MS = Number(env.BENCH_FAIR_TICK_MS ?? 10);
const WORKERS = 2;

const TARGET_P99_MS = 500;
const TARGET_P99_FACTOR = 1.5;
const TARGET_RSS_MIB = 128;
const TARGET_BACKLOG_RATIO = 0.5;

export interface FairnessFigures {
  healthy_p99_ms: number;
  alone_p99_ms: number;
  healthy_delivered_ratio: number;
  worker_rss_growth_mib: number;
  backlog_clear_ratio: number;
  drain_rate_eps: number;
  backlog_clear_eps: number;
}

const benchStart = performance.now();
const log = (m: string): void =>
  void process.stdout.write(`${m} [${((performance.now() - benchStart) / 1000).toFixed(0)} s]\n`);
const now = (): number => performance.timeOrigin + performance.now();

const f1 = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : String(v));

type Kind = "healthy" | "slow" | "dead";

interface Organization {
  id: string;
  kind: Kind;
  port: number;
}

interface Stack {
  db: Database;
  databaseUrl: string;
  natsUrl: string;
  dataDir: string;
  caFile: string;
  laurel: Laurel;
  controlUrl: string;
  receivers: RunningServer;
  agent: Agent;
}

/** An organization that receives webhooks at `url` (every delivery condition met), as webhooks.ts makes it. */
const webhookOrganization = async (s: Stack, name: string, url: string): Promise<string> => {
  const created = await adminTrpc<{ organization: { id: string }; authorization_token: { token: string } }>(
    s.laurel,
    "organizations.create",
    { name, email: "bench@example.org" },
  );
  const id = created.organization.id;
  const res = await fetch(`${s.laurel.origin}/v1/organizations/${id}/oauth_applications`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${created.authorization_token.token}:`).toString("base64")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ name: "data services" }),
  });
  const app = ((await res.json()) as { data: { id: number } }).data;
  await adminTrpc(s.laurel, "oauthApplications.setDataServices", {
    organization_id: id,
    application_id: app.id,
    enabled: true,
  });
  await adminTrpc(s.laurel, "webhooks.update", { organization_id: id, webhook_url: url, event_types: "all" });
  await adminTrpc(s.laurel, "webhooks.secret", { organization_id: id });
  return id;
};

const control = async <T>(s: Stack, method: "GET" | "POST", path: string): Promise<T | undefined> => {
  const res = await request(`${s.controlUrl}${path}`, { method, dispatcher: s.agent });
  if (res.statusCode === 204) {
    await res.body.dump();
    return undefined;
  }
  if (res.statusCode !== 200) throw new Error(`receivers ${path}: ${res.statusCode} ${await res.body.text()}`);
  return (await res.body.json()) as T;
};
const receiverCount = async (s: Stack) =>
  (await control<{ first: number; byPort: Record<string, number> }>(s, "GET", "/count")) ?? { first: 0, byPort: {} };
const receiverStats = async (s: Stack) =>
  (await control<{ first: Record<string, number> }>(s, "GET", "/stats")) ?? { first: {} };

const startWorker = (s: Stack, name: string): Promise<RunningServer> =>
  startServer({
    name,
    command: process.execPath,
    args: [laurelEntry("worker")],
    env: {
      DATABASE_URL: s.databaseUrl,
      NATS_URL: s.natsUrl,
      DATA_DIR: s.dataDir,
      WEBHOOK_CA_FILE: s.caFile,
      WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32",
      LOG_LEVEL: "info",
    },
    ready: /webhook worker ready/,
    readyTimeoutMs: 120_000,
  });

/** Appends `organizationIds.length` events (one per id) in one transaction; resolves with their ids. */
const recordEvents = async (db: Database, organizationIds: readonly string[]): Promise<string[]> => {
  const events = organizationIds.map((organization_id) =>
    badgeEvent("badge.created", BADGE, { id: uuidv7(), organization_id, occurred_at: new Date() }),
  );
  await db.transaction(async (tx) => {
    for (let i = 0; i < events.length; i += 1_000) await appendEvents(tx, events.slice(i, i + 1_000));
  });
  return events.map((e) => e.id);
};

/**
 * A loaded machine can make the pool's connect time out: the batch is recorded again (new ids, a
 * new commit time), up to three times.
 */
const recordWithRetry = async (db: Database, organizationIds: readonly string[]): Promise<string[]> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await recordEvents(db, organizationIds);
    } catch (err) {
      if (attempt >= 3) throw err;
      await delay(100);
    }
  }
};

interface Committed {
  at: number;
  kind: Kind;
}

/**
 * Records `rate` events/s for `seconds`, spread round-robin over `organizations`, one transaction
 * per tick; `during(elapsedS)` is called each tick (to bring the dead receivers back). Returns each
 * event's commit time and its organization's kind, and when recording ended.
 */
const steady = async (
  s: Stack,
  organizations: readonly Organization[],
  rate: number,
  seconds: number,
  during?: (elapsedS: number) => void,
): Promise<{ committed: Map<string, Committed>; start: number; end: number; lateTicks: number }> => {
  const committed = new Map<string, Committed>();
  const total = Math.round(rate * seconds);
  const t0 = now();
  const inFlight: Promise<void>[] = [];
  let next = 0;
  let lateTicks = 0;
  let tick = 0;
  while (next < total) {
    tick++;
    const due = t0 + tick * TICK_MS;
    const wait = due - now();
    if (wait > 1) await delay(wait);
    else if (wait < -TICK_MS) lateTicks++;
    during?.((now() - t0) / 1000);
    const upTo = Math.min(total, Math.floor(((now() - t0) / 1000) * rate));
    if (upTo <= next) continue;
    const batch: Organization[] = [];
    for (; next < upTo; next++) batch.push(organizations[next % organizations.length] as Organization);
    const p = recordWithRetry(
      s.db,
      batch.map((o) => o.id),
    ).then((ids) => {
      const at = now();
      ids.forEach((id, i) => void committed.set(id, { at, kind: (batch[i] as Organization).kind }));
    });
    // Awaited later (or never, on an earlier failure): a rejection must not end the process before
    // the servers are stopped.
    p.catch(() => undefined);
    inFlight.push(p);
    if (inFlight.length > 20) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return { committed, start: t0, end: now(), lateTicks };
};

/** The latencies (ms, sorted) of the `kind` events received by `until`, and how many there were. */
const latenciesOf = (
  committed: Map<string, Committed>,
  first: Record<string, number>,
  kind: Kind,
  until: number,
): { sorted: number[]; total: number } => {
  const sorted: number[] = [];
  let total = 0;
  for (const [id, c] of committed) {
    if (c.kind !== kind) continue;
    total++;
    const got = first[id];
    if (got !== undefined && got <= until) sorted.push(got - c.at);
  }
  return { sorted: sorted.sort((a, b) => a - b), total };
};

/**
 * The healthy events' latency by when they were committed, in 5-second windows: where in the run
 * the delay came from (the slow receivers' first answers, the dead ones' comeback).
 */
const windowsText = (committed: Map<string, Committed>, first: Record<string, number>, from: number, until: number) => {
  const windows: number[][] = [];
  const missing: number[] = [];
  for (const [id, c] of committed) {
    if (c.kind !== "healthy") continue;
    const w = Math.floor((c.at - from) / 5_000);
    const got = first[id];
    if (got === undefined || got > until) missing[w] = (missing[w] ?? 0) + 1;
    else {
      const window = windows[w] ?? [];
      window.push(got - c.at);
      windows[w] = window;
    }
  }
  const parts: string[] = [];
  for (let w = 0; w < Math.max(windows.length, missing.length); w++) {
    const l = (windows[w] ?? []).sort((a, b) => a - b);
    parts.push(
      `${5 * w}-${5 * w + 5} s: p50 ${f1(percentile(l, 50))} p99 ${f1(percentile(l, 99))} ms${missing[w] ? `, ${missing[w]} not received` : ""}`,
    );
  }
  return parts.join("; ");
};

/** Waits until the receivers saw `n` distinct events, or `deadline`; true when they did. */
const awaitCount = async (s: Stack, n: number, deadline: number, watch: RunningServer[]): Promise<boolean> => {
  for (;;) {
    if ((await receiverCount(s)).first >= n) return true;
    if (now() >= deadline) return false;
    failIfExited(watch);
    await delay(100);
  }
};

/** One worker process draining recorded events to one healthy receiver (webhooks.ts, phase 2). */
const drainRate = async (s: Stack, started: RunningServer[]): Promise<number> => {
  await control(s, "POST", "/reset");
  const org = await webhookOrganization(s, "Drain", `${s.controlUrl}/hooks`);
  const record = async (n: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let done = 0; done < n; done += 1_000)
      ids.push(...(await recordEvents(s.db, Array(Math.min(1_000, n - done)).fill(org))));
    return ids;
  };
  await record(DRAIN_WARMUP);
  const worker = await startWorker(s, "laurel-drain-worker");
  started.push(worker);
  const deadline = now() + 600_000;
  await awaitCount(s, DRAIN_WARMUP, deadline, [worker]);
  const measured = await record(DRAIN_EVENTS);
  const complete = await awaitCount(s, DRAIN_WARMUP + DRAIN_EVENTS, deadline, [worker]);
  const { first } = await receiverStats(s);
  await worker.stop();
  started.splice(started.indexOf(worker), 1);
  if (!complete) throw new Error("the drain did not finish in 10 minutes");
  const times = measured.map((id) => first[id] as number).sort((a, b) => a - b);
  return DRAIN_EVENTS / (((times[times.length - 1] as number) - (times[0] as number)) / 1000);
};

const workersRssMiB = (workers: readonly RunningServer[]): number =>
  workers.reduce((sum, w) => sum + (rssKiB(w.pid) ?? 0), 0) / 1024;

/** The sum of a counter's samples in a worker's /metrics (Prometheus text). */
const scrapeCounter = async (port: number, name: string): Promise<number> => {
  const res = await request(`http://127.0.0.1:${port}/metrics`);
  let sum = 0;
  for (const line of (await res.body.text()).split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
};

export const fairness = async (started: RunningServer[]): Promise<FairnessFigures> => {
  const ownFrom = started.length;
  const dir = mkdtempSync(join(tmpdir(), "laurel-bench-fairness-"));
  const database = await createBenchDatabase(benchAdminUrl());
  const nats = await startLocalNats({ storeDir: join(dir, "nats") });
  let db: Database | undefined;
  let agent: Agent | undefined;
  try {
    const ca = makeCa(dir);
    const controlPort = await freePort();
    const kinds: Kind[] = [
      ...Array<Kind>(HEALTHY).fill("healthy"),
      ...Array<Kind>(SLOW).fill("slow"),
      ...Array<Kind>(DEAD).fill("dead"),
    ];
    // Distinct ports: freePort releases each before the next is asked for, so ask until unique.
    const ports: number[] = [];
    while (ports.length < ORGANIZATIONS) {
      const p = await freePort();
      if (p !== controlPort && !ports.includes(p)) ports.push(p);
    }
    const receivers = await startServer({
      name: "fair-receivers",
      command: process.execPath,
      args: ["ops/bench/peers/fair_receivers.ts"],
      env: {
        CONTROL_PORT: String(controlPort),
        TLS_KEY_FILE: ca.keyFile,
        TLS_CERT_FILE: ca.certFile,
        SLOW_MS: String(SLOW_MS),
        PORTS: ports
          .map((p, i) => `${p}:${{ healthy: "ok", slow: "slow", dead: "closed" }[kinds[i] as Kind]}`)
          .join(","),
      },
      ready: new RegExp(`^listening ${controlPort}$`),
    });
    started.push(receivers);
    const dataDir = join(dir, "data");
    const laurel = await startLaurelServer(database.url, nats.url, dataDir);
    started.push(laurel.server);
    db = await openDatabase({ databaseUrl: database.url, dataDir, migrate: false, pool: { min: 1, max: 16 } });
    agent = new Agent({ connections: 4, connect: { ca: readFileSync(ca.caFile, "utf8") } });
    const s: Stack = {
      db,
      databaseUrl: database.url,
      natsUrl: nats.url,
      dataDir,
      caFile: ca.caFile,
      laurel,
      controlUrl: `https://localhost:${controlPort}`,
      receivers,
      agent,
    };

    log(`${ORGANIZATIONS} organizations with webhooks (${HEALTHY} healthy, ${SLOW} slow, ${DEAD} dead)...`);
    const organizations: Organization[] = [];
    for (let i = 0; i < ORGANIZATIONS; i += 8) {
      const made = await Promise.all(
        ports.slice(i, i + 8).map(async (port, j) => {
          const kind = kinds[i + j] as Kind;
          const id = await webhookOrganization(
            s,
            `Fair ${i + j} (${kind})`,
            `https://localhost:${port}/hooks/${i + j}`,
          );
          return { id, kind, port };
        }),
      );
      organizations.push(...made);
    }

    let drain: number;
    if (GIVEN_DRAIN_RATE !== undefined) {
      drain = GIVEN_DRAIN_RATE;
      log(`drain rate taken as given (BENCH_FAIR_DRAIN_RATE): ${f1(drain)} events/s`);
    } else {
      log(`drain rate: one worker process, ${DRAIN_WARMUP} warm-up events then ${DRAIN_EVENTS} measured...`);
      drain = await drainRate(s, started);
      log(`  ${f1(drain)} events/s`);
    }

    const metricsPorts = await Promise.all(Array.from({ length: WORKERS }, () => freePort()));
    const workers = await Promise.all(
      metricsPorts.map((port, i) =>
        startServer({
          name: `laurel-worker-${i}`,
          command: process.execPath,
          args: [laurelEntry("worker")],
          env: {
            DATABASE_URL: s.databaseUrl,
            NATS_URL: s.natsUrl,
            DATA_DIR: s.dataDir,
            WEBHOOK_CA_FILE: s.caFile,
            WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32",
            LOG_LEVEL: "info",
            METRICS_PORT: String(port),
          },
          ready: /webhook worker ready/,
          readyTimeoutMs: 120_000,
        }),
      ),
    );
    started.push(...workers);
    const watched = [...workers, receivers];
    const cpuS = (): { workers: number; receivers: number } => ({
      workers: workers.reduce((sum, w) => sum + (processCpuMs(w.pid) ?? 0), 0) / 1000,
      receivers: (processCpuMs(receivers.pid) ?? 0) / 1000,
    });
    const cpuText = (from: { workers: number; receivers: number }, events: number): string => {
      const to = cpuS();
      return (
        `CPU: workers ${f1(to.workers - from.workers)} s (${f1((1e6 * (to.workers - from.workers)) / events)} µs per event), ` +
        `receivers ${f1(to.receivers - from.receivers)} s`
      );
    };
    const counters = async () => {
      const read = async (name: string) => {
        let sum = 0;
        for (const port of metricsPorts) sum += await scrapeCounter(port, name);
        return sum;
      };
      return {
        deferred: await read("laurel_webhook_deferred_total"),
        attempts: await read("laurel_webhook_attempts_total"),
      };
    };

    const healthy = organizations.filter((o) => o.kind === "healthy");
    const aloneRate = PER_ORGANIZATION * HEALTHY;
    const mixedRate = PER_ORGANIZATION * ORGANIZATIONS;

    // Warm-up: the workers' connections to every healthy receiver, and their code optimized.
    await control(s, "POST", "/reset");
    log(`warm-up: ${f1(aloneRate)} events/s over the ${HEALTHY} healthy organizations for 5 s...`);
    const warm = await steady(s, healthy, aloneRate, 5);
    await awaitCount(s, warm.committed.size, now() + 60_000, watched);

    // 1. Alone.
    await control(s, "POST", "/reset");
    log(`1. alone: ${f1(aloneRate)} events/s over the ${HEALTHY} healthy organizations for ${SECONDS} s...`);
    const aloneCpu = cpuS();
    const alone = await steady(s, healthy, aloneRate, SECONDS);
    await awaitCount(s, alone.committed.size, alone.end + GRACE_S * 1000, watched);
    const aloneFirst = (await receiverStats(s)).first;
    const aloneHealthy = latenciesOf(alone.committed, aloneFirst, "healthy", alone.end + GRACE_S * 1000);
    const aloneP99 = percentile(aloneHealthy.sorted, 99);
    log(
      `  p50 ${f1(percentile(aloneHealthy.sorted, 50))} ms, p99 ${f1(aloneP99)} ms, max ${f1(aloneHealthy.sorted.at(-1) ?? Number.NaN)} ms; ` +
        `${aloneHealthy.sorted.length}/${aloneHealthy.total} received within the run + ${GRACE_S} s; ` +
        `${alone.lateTicks} recording ticks late by more than one tick`,
    );
    log(`  ${cpuText(aloneCpu, alone.committed.size)}`);
    log(`  by commit time: ${windowsText(alone.committed, aloneFirst, alone.start, alone.end + GRACE_S * 1000)}`);
    // What the alone run left undelivered would weigh on the mixed run: it is waited for.
    if (!(await awaitCount(s, alone.committed.size, now() + 300_000, watched))) {
      throw new Error("the alone run's events were not all delivered 5 minutes after it");
    }
    const rssWarm = workersRssMiB(workers);
    log(`  every event of the alone run received ${f1((now() - alone.end) / 1000)} s after its end`);
    log(`  worker RSS after the alone run (the warm-up mark): ${f1(rssWarm)} MiB in all`);

    // 2. Mixed.
    await control(s, "POST", "/reset");
    const before = await counters();
    log(
      `2. mixed: ${mixedRate} events/s over ${ORGANIZATIONS} organizations for ${SECONDS} s; slow receivers answer after ${SLOW_MS} ms; ` +
        `the dead ones come back ${DEAD_S} s in...`,
    );
    let cameBack = Number.NaN;
    let opening: Promise<unknown> | undefined;
    const dead = organizations.filter((o) => o.kind === "dead");
    const mixedCpu = cpuS();
    // Where the events wait: not yet handed to a worker (pending), or handed out and not yet
    // acknowledged (in a worker's slots, waiting for a destination, or NAKed to come back later).
    const mixedStart = now();
    const nc = await connect({ servers: s.natsUrl });
    const jsm = await jetstreamManager(nc);
    const queueSamples: string[] = [];
    const sampler = setInterval(() => {
      jsm.consumers.info(EVENTS_STREAM, WEBHOOK_CONSUMER).then(
        (i) =>
          void queueSamples.push(
            `${((now() - mixedStart) / 1000).toFixed(0)} s: ${i.num_pending} pending, ${i.num_ack_pending} handed out`,
          ),
        () => undefined,
      );
    }, 5_000);
    const mixed = await steady(s, organizations, mixedRate, SECONDS, (elapsedS) => {
      if (!opening && elapsedS >= DEAD_S) {
        opening = control(s, "POST", "/open").then(() => {
          cameBack = now();
          log("  the dead receivers listen again");
        });
      }
    });
    clearInterval(sampler);
    await nc.close();
    log(`  the events queue during the run: ${queueSamples.join("; ")}`);
    if (!opening) {
      opening = control(s, "POST", "/open").then(() => {
        cameBack = now();
        log("  the dead receivers listen again (after recording)");
      });
    }
    await opening;
    const graceEnd = mixed.end + GRACE_S * 1000;
    await awaitCount(s, [...mixed.committed.values()].filter((c) => c.kind === "healthy").length, graceEnd, watched);
    // The healthy receipts may be complete before the grace ends: the memory mark is taken at its end.
    if (now() < graceEnd) await delay(graceEnd - now());
    const rssEnd = workersRssMiB(workers);
    const mixedFirst = (await receiverStats(s)).first;
    const mixedHealthy = latenciesOf(mixed.committed, mixedFirst, "healthy", graceEnd);
    const healthyP99 = percentile(mixedHealthy.sorted, 99);
    const deliveredRatio = mixedHealthy.sorted.length / mixedHealthy.total;
    const during = await counters();
    log(
      `  healthy: p50 ${f1(percentile(mixedHealthy.sorted, 50))} ms, p99 ${f1(healthyP99)} ms, max ${f1(mixedHealthy.sorted.at(-1) ?? Number.NaN)} ms; ` +
        `${mixedHealthy.sorted.length}/${mixedHealthy.total} received within the run + ${GRACE_S} s; ` +
        `${mixed.lateTicks} recording ticks late by more than one tick`,
    );
    const slowReceived = latenciesOf(mixed.committed, mixedFirst, "slow", graceEnd);
    log(
      `  slow: ${slowReceived.sorted.length}/${slowReceived.total} received by then; workers put deliveries off ` +
        `${during.deferred - before.deferred} times and made ${during.attempts - before.attempts} attempts`,
    );
    log(`  ${cpuText(mixedCpu, mixed.committed.size)} (to the end of the grace)`);
    log(`  healthy by commit time: ${windowsText(mixed.committed, mixedFirst, mixed.start, graceEnd)}`);
    log(`  the dead receivers came back ${f1((cameBack - mixed.start) / 1000)} s into the run`);
    log(`  worker RSS at the end of the grace: ${f1(rssEnd)} MiB in all (+${f1(rssEnd - rssWarm)} MiB)`);

    // The dead destinations' backlog: their events committed before they came back.
    const backlog = [...mixed.committed].filter(([, c]) => c.kind === "dead" && c.at < cameBack).map(([id]) => id);
    const deadTotal = [...mixed.committed.values()].filter((c) => c.kind === "dead").length;
    log(`  waiting up to ${BACKLOG_WAIT_S} s for the dead destinations' ${backlog.length} backlogged events...`);
    const deadPorts = new Set(dead.map((o) => String(o.port)));
    const waitUntil = now() + BACKLOG_WAIT_S * 1000;
    let lastLog = now();
    for (;;) {
      const c = await receiverCount(s);
      let got = 0;
      for (const [port, n] of Object.entries(c.byPort)) if (deadPorts.has(port)) got += n;
      if (got >= deadTotal || now() >= waitUntil) break;
      if (now() - lastLog > 15_000) {
        lastLog = now();
        log(`  dead destinations: ${got}/${deadTotal} received`);
      }
      failIfExited(watched);
      await delay(500);
    }
    const finalFirst = (await receiverStats(s)).first;
    const backlogTimes = backlog.map((id) => finalFirst[id]).filter((t): t is number => t !== undefined);
    const cleared = backlogTimes.length === backlog.length;
    const lastReceipt = cleared ? Math.max(...backlogTimes) : now();
    // Not cleared: the whole backlog over the time waited, more than the true rate (a bound from above).
    const backlogEps = backlog.length / ((lastReceipt - cameBack) / 1000);
    const after = await counters();
    // How the backlog came back: all at once after the comeback (released), or each at its own retry time.
    const sinceComeback = backlogTimes.map((t) => (t - cameBack) / 1000).sort((a, b) => a - b);
    const [tries] = await s.db.all<{ mean: string; most: number; before: string }>(
      `select avg(d.attempts_count) as mean, max(d.attempts_count) as most,
         (select count(*) from webhook_attempts a join webhook_deliveries x on x.id = a.delivery_id
          where x.organization_id = any(?::uuid[]) and a.started_at < ?) as before
       from webhook_deliveries d where d.organization_id = any(?::uuid[]) and d.status = 'succeeded'`,
      [`{${dead.map((o) => o.id).join(",")}}`, new Date(cameBack), `{${dead.map((o) => o.id).join(",")}}`],
    );
    log(
      `  the backlog's receipts after the comeback: p10 ${f1(percentile(sinceComeback, 10))} s, p50 ${f1(percentile(sinceComeback, 50))} s, ` +
        `p90 ${f1(percentile(sinceComeback, 90))} s; the dead destinations' delivered deliveries took ${Number(tries?.mean ?? 0).toFixed(2)} attempts ` +
        `on average (at most ${tries?.most ?? 0}); ${tries?.before ?? 0} attempts to them before the comeback`,
    );
    log(
      `  ${backlogTimes.length}/${backlog.length} backlogged events received ${f1((lastReceipt - cameBack) / 1000)} s after the comeback` +
        `${cleared ? "" : " (NOT cleared: the rate is a bound from above)"}: ${f1(backlogEps)} events/s; ` +
        `worker RSS now ${f1(workersRssMiB(workers))} MiB; put-offs since the mixed run began ${after.deferred - before.deferred}, ` +
        `attempts ${after.attempts - before.attempts}`,
    );
    for (const w of workers) {
      await w.stop();
      started.splice(started.indexOf(w), 1);
    }

    const figures: FairnessFigures = {
      healthy_p99_ms: healthyP99,
      alone_p99_ms: aloneP99,
      healthy_delivered_ratio: deliveredRatio,
      worker_rss_growth_mib: rssEnd - rssWarm,
      backlog_clear_ratio: backlogEps / drain,
      drain_rate_eps: drain,
      backlog_clear_eps: backlogEps,
    };
    const verdict = (ok: boolean): string => (ok ? "PASS" : "MISS");
    log("\n## Against the targets (measured on this machine; figures from a shared machine are not real figures)");
    log(
      `- healthy p99 ${f1(healthyP99)} ms < ${TARGET_P99_MS} ms: ${verdict(healthyP99 < TARGET_P99_MS)}; ` +
        `within ${TARGET_P99_FACTOR}x of alone (${f1(aloneP99)} ms, ratio ${(healthyP99 / aloneP99).toFixed(2)}): ` +
        verdict(healthyP99 <= TARGET_P99_FACTOR * aloneP99),
    );
    log(
      `- healthy events delivered within the run + ${GRACE_S} s: ${(100 * deliveredRatio).toFixed(2)}% (target 100%): ${verdict(deliveredRatio >= 1)}`,
    );
    log(
      `- worker RSS growth ${f1(figures.worker_rss_growth_mib)} MiB < ${TARGET_RSS_MIB} MiB: ${verdict(figures.worker_rss_growth_mib < TARGET_RSS_MIB)}`,
    );
    log(
      `- dead backlog cleared at ${f1(figures.backlog_clear_eps)} events/s = ${(100 * figures.backlog_clear_ratio).toFixed(0)}% of the drain rate ` +
        `(${f1(drain)} events/s, ${GIVEN_DRAIN_RATE === undefined ? "measured" : "given"}; target >= ${100 * TARGET_BACKLOG_RATIO}%): ` +
        verdict(figures.backlog_clear_ratio >= TARGET_BACKLOG_RATIO),
    );
    log(`\n${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await agent?.close();
    // Only the servers this run started: a caller's own stay as they are.
    for (const server of started.splice(ownFrom).reverse()) await server.stop().catch(() => undefined);
    await db?.close();
    await nats.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runBenchProcess(async (started) => {
    logBenchHeader("fairness between many webhook destinations");
    log(
      `${SECONDS} s per run, ${RATE} events/s, ${WORKERS} worker processes, grace ${GRACE_S} s, dead receivers back after ${DEAD_S} s`,
    );
    await fairness(started);
    return 0;
  });
}
