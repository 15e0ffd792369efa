import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import pg from "pg";
import { connectNats, EVENTS_STREAM } from "../adapters/bus/mod.ts";
import { findServer } from "../adapters/db/sql.ts";
import {
  ADMIN_URL,
  BALANCER_URL,
  CLUSTER_DIR,
  clusterPostgres,
  natsNodes,
  pidOf,
  ports,
  startApi,
  startNatsNode,
  startWorker,
  up,
} from "./cluster/cluster.ts";
import { loopbackCa } from "./cluster/loopback_ca.ts";
import { clusterUrl } from "./cluster/nats_config.ts";

/**
 * `npm run soak -- [--duration 180] [--rate 200] [--json]
 * [--faults worker,nats,postgres,postgres-primary,receiver,api] [--postgres-down 10]`: issues badges
 * through the balancer of `npm run cluster` (started if needed) while, on a schedule, it SIGKILLs a
 * worker, the NATS node leading the events stream and an API server (each restarted), stops the
 * cluster's PostgreSQL nodes for `--postgres-down` seconds and starts them again, SIGKILLs the
 * PostgreSQL primary (keeper and server) so that the standby takes over, then brings it back as the
 * new standby, and makes the receiver answer 503 for a while; then it waits for the deliveries and
 * reports recorded, delivered, lost (must be 0) and duplicates, every badge acknowledged with a 2xx
 * that is missing afterwards (must be none), the seconds from the primary's loss to the first
 * issue accepted again (`postgres_failover_s`), the lag and the end-to-end p99 per phase, what
 * clients saw, and each process's memory. `--faults` picks some of the faults. Loopback only.
 * Exit code 1 when an event or an acknowledged badge was lost, a client saw a 5xx other than a 503
 * with Retry-After, an event came with another event's webhook-id, or a process ended by itself.
 */
const FAULTS = ["worker", "nats", "postgres", "postgres-primary", "receiver", "api"] as const;
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "180" },
    rate: { type: "string", default: "200" },
    json: { type: "boolean", default: false },
    faults: { type: "string", default: FAULTS.join(",") },
    "postgres-down": { type: "string", default: "10" },
  },
});
const durationS = Number(values.duration);
const rate = Number(values.rate);
const postgresDownS = Number(values["postgres-down"]);
const faultsOn = new Set(values.faults.split(",").filter(Boolean));
if (
  !(durationS > 0 && durationS <= 3600) ||
  !(rate > 0 && rate <= 2000) ||
  !(postgresDownS >= 0 && postgresDownS <= 300) ||
  [...faultsOn].some((f) => !(FAULTS as readonly string[]).includes(f))
) {
  console.error(
    `--duration must be 1..3600 seconds, --rate 1..2000 events/s, --postgres-down 0..300 s, --faults some of ${FAULTS.join(",")}`,
  );
  process.exit(2);
}
const log = (msg: string): void => {
  process.stderr.write(`[soak +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${msg}\n`);
};
let startedAt = Date.now();

// The API servers it starts allow the soak's rate (the default issuing limit, 20/s per organization
// and process, is below it): the soak measures faults, not the request limits. A cluster already
// running keeps its settings, and its 429s show in the report.
process.env.RATE_LIMIT_ISSUE_PER_MINUTE ??= String(Math.ceil(rate * 60));
const databaseUrl = await up();

// The receiver: HTTPS on loopback with the cluster's CA; 503 while `failing`.
const ca = loopbackCa(join(CLUSTER_DIR, "ca"));
const received = new Map<string, { count: number; ids: Set<string>; firstAt: number }>();
let failing = false;
const receiver = createServer(
  { key: readFileSync(ca.keyFile), cert: readFileSync(ca.certFile), keepAliveTimeout: 10_000 },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (failing) return void res.writeHead(503).end();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string };
        const seen = received.get(body.id);
        const webhookId = String(req.headers["webhook-id"]);
        if (seen) {
          seen.count++;
          seen.ids.add(webhookId);
        } else {
          received.set(body.id, { count: 1, ids: new Set([webhookId]), firstAt: Date.now() });
        }
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  },
);
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const receiverPort = (receiver.address() as { port: number }).port;

// An organization that receives every event, and a template to issue from, through the balancer.
const admin = readFileSync(join(CLUSTER_DIR, "laurel/admin-token"), "utf8").trim();
const call = async (method: string, path: string, auth: string, body?: unknown, base = BALANCER_URL) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of several shapes
  return JSON.parse(text) as any;
};
const trpc = async (path: string, input: unknown) =>
  (await call("POST", `/trpc/${path}`, `Bearer ${admin}`, input, ADMIN_URL)).result.data;
const created = await trpc("organizations.create", {
  name: `Soak ${new Date().toISOString()}`,
  email: "soak@example.org",
});
const orgId: string = created.organization.id;
const basic = `Basic ${Buffer.from(`${created.authorization_token.token}:`).toString("base64")}`;
const app = (await call("POST", `/v1/organizations/${orgId}/oauth_applications`, basic, { name: "Data services" }))
  .data;
await trpc("oauthApplications.setDataServices", { organization_id: orgId, application_id: app.id, enabled: true });
await trpc("webhooks.update", {
  organization_id: orgId,
  webhook_url: `https://localhost:${receiverPort}/hooks`,
  event_types: "all",
});
await trpc("webhooks.secret", { organization_id: orgId });
const template = (
  await call("POST", `/v1/organizations/${orgId}/badge_templates`, basic, {
    name: "Soak",
    description: "Soak test badge",
    state: "active",
  })
).data;

// Each process's memory, at start and at the end.
const processes = [...natsNodes.map((n) => n.name), "api-1", "api-2", "worker-1", "worker-2", "haproxy"];
const rss = (name: string): number | null => {
  const pid = pidOf(name);
  if (!pid) return null;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : null;
};
const memoryAtStart = Object.fromEntries(processes.map((p) => [p, rss(p)]));

// The schedule of faults, as fractions of the run.
let phase = "steady";
const phases = new Map<string, number>(); // phase -> start (ms since start)
const enter = (name: string): void => {
  phase = name;
  phases.set(name, Date.now() - startedAt);
  log(name);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const kill = (name: string): void => {
  const pid = pidOf(name);
  if (pid) process.kill(pid, "SIGKILL");
};
const nc = await connectNats(clusterUrl(natsNodes), "laurel-soak");
const leaderName = async (): Promise<string | undefined> => {
  try {
    return (await (await jetstreamManager(nc, { timeout: 5_000 })).streams.info(EVENTS_STREAM)).cluster?.leader;
  } catch {
    return undefined;
  }
};
const D = durationS * 1000;
// When the database was down, and what clients saw then (the phase of a request is when it left).
const outage = { down_ms: 0, stopped_at_s: 0 };
// The primary's loss: when it was killed, when the monitor named the standby primary, and when an
// issue sent after the kill was first accepted.
const failover = {
  node: "",
  killed_at_s: 0,
  promoted_after_s: null as number | null,
  first_accepted_after_s: null as number | null,
  rejoined_as_standby_after_s: null as number | null,
};
let killedAt = 0;
let firstAcceptedAt = 0;
const waitUntil = async (check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
};
const faults: Array<{ fault: (typeof FAULTS)[number]; at: number; run: () => Promise<void> }> = [
  {
    fault: "worker",
    at: 0.15 * D,
    run: async () => {
      enter("worker-1 killed");
      kill("worker-1");
      await sleep(3_000);
      startWorker(0, databaseUrl);
    },
  },
  {
    fault: "nats",
    at: 0.3 * D,
    run: async () => {
      const leader = await leaderName();
      const i = natsNodes.findIndex((n) => n.name === leader);
      enter(`NATS stream leader ${leader ?? "?"} killed`);
      if (i < 0) return;
      kill(natsNodes[i]?.name as string);
      await sleep(5_000);
      await startNatsNode(i);
    },
  },
  {
    // The cluster's own server (never the machine's): stopped, kept down, started again.
    fault: "postgres",
    at: 0.45 * D,
    run: async () => {
      enter("PostgreSQL down");
      const stoppedAt = Date.now();
      outage.stopped_at_s = (stoppedAt - startedAt) / 1000;
      await clusterPostgres.stopNodes();
      await sleep(postgresDownS * 1000);
      await clusterPostgres.startNodes();
      outage.down_ms = Date.now() - stoppedAt;
      enter("PostgreSQL back");
    },
  },
  {
    // The primary's keeper and server SIGKILLed at once (the machine lost): pg_auto_failover's
    // monitor promotes the standby, the API servers' pools find it; the old primary, started
    // again, rejoins as the standby.
    fault: "postgres-primary",
    at: 0.52 * D,
    run: async () => {
      const primary = (await clusterPostgres.nodes()).find((n) => n.reported === "primary");
      const i = ports.postgres.indexOf(primary?.port ?? -1);
      failover.node = primary?.name ?? "?";
      enter(`PostgreSQL primary ${failover.node} killed`);
      if (i < 0) return;
      killedAt = Date.now();
      failover.killed_at_s = (killedAt - startedAt) / 1000;
      clusterPostgres.killNode(i);
      const since = (): number => (Date.now() - killedAt) / 1000;
      const promoted = await waitUntil(
        async () =>
          (await clusterPostgres.nodes()).some(
            (n) => n.port !== primary?.port && (n.reported === "primary" || n.reported === "wait_primary"),
          ),
        120_000,
      );
      if (promoted) failover.promoted_after_s = since();
      enter("PostgreSQL standby promoted");
      await waitUntil(() => firstAcceptedAt > 0 || Date.now() - startedAt > D, 120_000);
      if (firstAcceptedAt > 0) failover.first_accepted_after_s = (firstAcceptedAt - killedAt) / 1000;
      await clusterPostgres.startNodes();
      const rejoined = await waitUntil(
        async () => (await clusterPostgres.nodes()).some((n) => n.port === primary?.port && n.reported === "secondary"),
        120_000,
      );
      if (rejoined) failover.rejoined_as_standby_after_s = since();
      enter("old primary back as standby");
    },
  },
  {
    fault: "receiver",
    at: 0.6 * D,
    run: async () => {
      enter("receiver answers 503");
      failing = true;
      await sleep(Math.min(30_000, 0.15 * D));
      failing = false;
      enter("receiver back");
    },
  },
  {
    fault: "api",
    at: 0.8 * D,
    run: async () => {
      enter("api-1 killed");
      kill("api-1");
      await sleep(3_000);
      startApi(0, databaseUrl);
    },
  },
];

// Issuing at `rate` a second through the balancer, for `duration`.
const clients = new Map<string, number>(); // "201", "503 with Retry-After", "500"...
let issued = 0;
// Every badge a client was told was issued: each must exist afterwards.
const acknowledged: string[] = [];
const inFlight = new Set<Promise<void>>();
const issueOne = async (): Promise<void> => {
  let key: string;
  const sentAt = Date.now();
  try {
    const res = await fetch(`${BALANCER_URL}/v1/organizations/${orgId}/badges`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/json" },
      body: JSON.stringify({
        badge_template_id: template.id,
        issued_at: new Date().toISOString(),
        issued_to_first_name: "Ada",
        issued_to_last_name: "Lovelace",
        recipient_email: `ada+${issued}@example.org`,
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.ok) {
      acknowledged.push((JSON.parse(text) as { data: { id: string } }).data.id);
      if (killedAt > 0 && sentAt > killedAt && firstAcceptedAt === 0) firstAcceptedAt = Date.now();
    }
    key = res.status === 503 && res.headers.get("retry-after") ? "503 with Retry-After" : String(res.status);
  } catch (err) {
    key = `network error (${(err as Error).name})`;
  }
  clients.set(`${phase}: ${key}`, (clients.get(`${phase}: ${key}`) ?? 0) + 1);
};

// One issue first: a refusal here is a mistake of this script, not a fault to measure.
await call("POST", `/v1/organizations/${orgId}/badges`, basic, {
  badge_template_id: template.id,
  issued_at: new Date().toISOString(),
  issued_to_first_name: "Ada",
  issued_to_last_name: "Lovelace",
  recipient_email: "ada@example.org",
});
startedAt = Date.now();
enter("steady");
const faultRuns = faults.filter((f) => faultsOn.has(f.fault)).map((f) => sleep(f.at).then(f.run));
const every = 1000 / rate;
for (let n = 0; Date.now() - startedAt < D; n++) {
  const due = startedAt + n * every;
  if (due > Date.now()) await sleep(due - Date.now());
  issued++;
  const p = issueOne().finally(() => inFlight.delete(p));
  inFlight.add(p);
}
await Promise.all(inFlight);
await Promise.all(faultRuns);
enter("draining");

// The ground truth: every event the organization recorded.
// The server that is primary now (the URL is a host list, which pg does not read).
const db = new pg.Client({ connectionString: await findServer(databaseUrl) });
await db.connect();
const recordedIds = async (): Promise<Map<string, number>> => {
  const { rows } = await db.query<{ id: string; at: Date }>(
    "select id, occurred_at as at from events where organization_id = $1",
    [orgId],
  );
  return new Map(rows.map((r) => [r.id, r.at.getTime()]));
};
const retrying = async (): Promise<Set<string>> => {
  const { rows } = await db.query<{ event_id: string }>(
    "select event_id from webhook_deliveries where organization_id = $1 and status in ('pending', 'delivering')",
    [orgId],
  );
  return new Set(rows.map((r) => r.event_id));
};
// Until every event was received or waits for a scheduled retry (after the receiver's 503s, the
// schedule's next attempt may be minutes away): what is neither after 120 s is lost.
let recorded = await recordedIds();
let awaitingRetry = await retrying();
const drainDeadline = Date.now() + 120_000;
while (Date.now() < drainDeadline && [...recorded.keys()].some((id) => !received.has(id) && !awaitingRetry.has(id))) {
  await sleep(500);
  recorded = await recordedIds();
  awaitingRetry = await retrying();
}
const { rows: found } = await db.query<{ id: string }>("select id::text from badges where id = any($1::uuid[])", [
  acknowledged,
]);
const acknowledgedMissing = acknowledged.length - new Set(found.map((r) => r.id)).size;
await db.end();
const memoryAtEnd = Object.fromEntries(processes.map((p) => [p, rss(p)]));
// Every fault the soak makes it also repairs: a process not running now ended by itself.
const downAtEnd = [
  ...processes.filter((p) => memoryAtEnd[p] === null),
  ...ports.postgres.flatMap((port, i) => (clusterPostgres.running(i) ? [] : [`postgres :${port}`])),
];
await nc.close();
receiver.close();

// Per phase (by when the event occurred): its largest lag and end-to-end p99.
const phaseList = [...phases.entries()].sort((a, b) => a[1] - b[1]);
const phaseOf = (t: number): string => {
  let name = "steady";
  for (const [p, at] of phaseList) if (t - startedAt >= at) name = p;
  return name;
};
const lags = new Map<string, number[]>();
let duplicates = 0;
let foreignIds = 0;
for (const [id, occurredAt] of recorded) {
  const r = received.get(id);
  if (!r) continue;
  if (r.count > 1) duplicates++;
  if (r.ids.size !== 1 || !r.ids.has(id)) foreignIds++;
  const list = lags.get(phaseOf(occurredAt)) ?? [];
  list.push(r.firstAt - occurredAt);
  lags.set(phaseOf(occurredAt), list);
}
const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.99) - 1)] ?? 0;
const perPhase = Object.fromEntries(
  [...lags.entries()].map(([p, xs]) => [p, { events: xs.length, p99_ms: p99(xs), max_lag_ms: Math.max(...xs) }]),
);
const delivered = [...recorded.keys()].filter((id) => received.has(id)).length;
const waiting = [...recorded.keys()].filter((id) => !received.has(id) && awaitingRetry.has(id)).length;
const answersIn = (p: string) =>
  Object.fromEntries(
    [...clients.entries()].filter(([k]) => k.startsWith(`${p}: `)).map(([k, n]) => [k.slice(p.length + 2), n]),
  );
// A 5xx other than a 503 with Retry-After: something a client cannot know to retry.
const serverErrors = [...clients.entries()].filter(([k]) => /: 5\d\d$/.test(k)).reduce((sum, [, n]) => sum + n, 0);
const report = {
  duration_s: durationS,
  rate,
  issued,
  recorded: recorded.size,
  delivered,
  awaiting_retry: waiting,
  lost: recorded.size - delivered - waiting,
  acknowledged: acknowledged.length,
  acknowledged_missing: acknowledgedMissing,
  duplicates,
  duplicates_with_another_webhook_id: foreignIds,
  server_errors: serverErrors,
  processes_down_at_end: downAtEnd,
  phases: perPhase,
  clients: Object.fromEntries(clients),
  memory_mib: { start: memoryAtStart, end: memoryAtEnd },
  faults: [...faultsOn],
  postgres_outage: faultsOn.has("postgres")
    ? { ...outage, answers_while_down: answersIn("PostgreSQL down"), answers_after: answersIn("PostgreSQL back") }
    : null,
  postgres_failover_s: faultsOn.has("postgres-primary") ? failover.first_accepted_after_s : null,
  postgres_failover: faultsOn.has("postgres-primary")
    ? {
        ...failover,
        answers_while_failing_over: answersIn(`PostgreSQL primary ${failover.node} killed`),
        answers_after_promotion: answersIn("PostgreSQL standby promoted"),
      }
    : null,
};
if (values.json) {
  console.log(JSON.stringify(report));
} else {
  console.log(
    `recorded ${report.recorded}, delivered ${delivered}, awaiting a scheduled retry ${waiting}, lost ${report.lost}, duplicates ${duplicates} (${foreignIds} with another webhook-id)`,
  );
  console.log(`acknowledged with a 2xx ${acknowledged.length}, missing afterwards ${acknowledgedMissing}`);
  if (report.postgres_failover) console.log(`PostgreSQL failover: ${JSON.stringify(report.postgres_failover)}`);
  if (downAtEnd.length > 0) console.log(`not running at the end: ${downAtEnd.join(", ")}`);
  console.log("\nphase (by event time)                      events   p99 ms   max lag ms");
  for (const [p, v] of Object.entries(perPhase)) {
    console.log(
      `${p.padEnd(40)} ${String(v.events).padStart(8)} ${String(v.p99_ms).padStart(8)} ${String(v.max_lag_ms).padStart(12)}`,
    );
  }
  console.log("\nwhat clients saw");
  for (const [k, n] of clients) console.log(`  ${k.padEnd(50)} ${n}`);
  console.log("\nmemory (MiB)       start     end");
  for (const p of processes)
    console.log(`  ${p.padEnd(14)} ${String(memoryAtStart[p]).padStart(7)} ${String(memoryAtEnd[p]).padStart(7)}`);
}
process.exit(
  report.lost === 0 && acknowledgedMissing === 0 && serverErrors === 0 && foreignIds === 0 && downAtEnd.length === 0
    ? 0
    : 1,
);
