// The cost of replicated streams: workers draining recorded events with one and with two worker
// processes, against one nats-server with one-replica streams (R1) and against a three-node local
// cluster with three-replica streams (R3), the same receiver and PostgreSQL. Prints the drain rates,
// the CPU per event of the workers and of nats-server(s), the R3/R1 ratio, and a paper estimate
// of the deliveries a second N worker hosts could reach against a 3-node cluster from those figures.
//
// Run: BENCH_ONLY=replication npm run bench, or (PostgreSQL from ops/prepare.sh)
//   DATABASE_URL=postgres://laurel:laurel@127.0.0.1:5432/laurel npx node ops/bench/replication.ts
// Env: BENCH_REPLICATION_EVENTS (events per drain, default 10000), BENCH_WORKERS ("1,2").
// On a 2-core machine the three nats-servers, PostgreSQL, the workers and the receiver share the
// same cores: the ratio is an upper bound of replication's cost, not a cluster's throughput.

import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { appendEvents, openDatabase } from "../../adapters/db/mod.ts";
import { badgeEvent } from "../../core/events/mod.ts";
import { loopbackCa } from "../cluster/loopback_ca.ts";
import { clusterUrl, type NatsNodeSpec, natsNodeConfig } from "../cluster/nats_config.ts";
import { BADGE } from "./badge_fixture.ts";
import {
  delay,
  formatRps,
  freePort,
  laurelEntry,
  markdownTable,
  processCpuMs,
  type RunningServer,
  startServer,
} from "./lib.ts";

const EVENTS = Number(process.env.BENCH_REPLICATION_EVENTS ?? 10_000);
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2").split(",").map(Number);
const admin = process.env.DATABASE_URL;
if (!admin) throw new Error("DATABASE_URL (an admin connection to PostgreSQL) is required");

const dir = mkdtempSync(join(tmpdir(), "laurel-bench-replication-"));
const cleanups: Array<() => Promise<unknown> | unknown> = [() => rmSync(dir, { recursive: true, force: true })];
const cleanUp = async (): Promise<void> => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
};

const pg = (await import("pg")).default;
const dbName = `laurel_bench_${randomBytes(5).toString("hex")}`;
const adminQuery = async (sql: string): Promise<void> => {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(sql);
  await c.end();
};
await adminQuery(`create database ${dbName}`);
cleanups.push(() => adminQuery(`drop database if exists ${dbName} with (force)`));
const url = new URL(admin);
url.pathname = `/${dbName}`;
const databaseUrl = url.toString();

/** nats-server's own pid (startLocalNats's process is a watchdog shell around it). */
const serverPid = (nats: LocalNats): number => {
  const children = (pid: number): number[] => {
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  return children(nats.process.pid ?? 0)[0] ?? 0;
};

interface Nats {
  url: string;
  pids: number[];
  stop(): Promise<void>;
}
const singleNats = async (): Promise<Nats> => {
  const n = await startLocalNats({ storeDir: join(dir, "r1") });
  return { url: n.url, pids: [serverPid(n)], stop: () => n.stop() };
};
const clusterNats = async (): Promise<Nats> => {
  const specs: NatsNodeSpec[] = [];
  for (let i = 1; i <= 3; i++) {
    specs.push({
      name: `n${i}`,
      host: "127.0.0.1",
      port: await freePort(),
      clusterPort: await freePort(),
      monitorPort: 0,
      storeDir: join(dir, `r3-n${i}`),
    });
  }
  const nodes = await Promise.all(
    specs.map((spec) => {
      const config = join(dir, `${spec.name}.conf`);
      writeFileSync(config, natsNodeConfig(spec, specs));
      return startLocalNats({ storeDir: spec.storeDir, port: spec.port, config });
    }),
  );
  return {
    url: clusterUrl(specs),
    pids: nodes.map(serverPid),
    stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))),
  };
};

const ca = loopbackCa(join(dir, "ca"));
const receiverPort = await freePort();
const receiver = await startServer({
  name: "receiver",
  command: process.execPath,
  args: ["ops/bench/peers/webhook_receiver.ts"],
  env: { PORT: String(receiverPort), TLS_KEY_FILE: ca.keyFile, TLS_CERT_FILE: ca.certFile },
  ready: new RegExp(`^listening ${receiverPort}$`),
});
cleanups.push(() => receiver.stop());
const receiverUrl = `https://localhost:${receiverPort}`;
const agent = new Agent({ connect: { ca: readFileSync(ca.caFile, "utf8") } });
cleanups.push(() => agent.close());
const receiverCall = async (path: string, method: "GET" | "POST" = "GET"): Promise<{ first: number }> => {
  const res = await request(`${receiverUrl}${path}`, { method, dispatcher: agent });
  if (res.statusCode === 204) {
    await res.body.dump();
    return { first: 0 };
  }
  return (await res.body.json()) as { first: number };
};

// The schema, and organizations that receive webhooks, written straight to the database.
const db = await openDatabase({ databaseUrl, dataDir: join(dir, "data"), pool: { min: 1, max: 4 } });
cleanups.push(() => db.close());
const apiPort = await freePort();
const adminPort = await freePort();
const origin = `http://127.0.0.1:${apiPort}`;
const adminToken = randomBytes(32).toString("base64url");
const apiNats = await singleNats();
cleanups.push(() => apiNats.stop());
const api = await startServer({
  name: "laurel-api",
  command: process.execPath,
  args: [laurelEntry("server")],
  env: {
    PORT: String(apiPort),
    HOST: "127.0.0.1",
    BASE_URL: `${origin}/v1`,
    AUTH_URL: origin,
    DATA_DIR: join(dir, "data"),
    DATABASE_URL: databaseUrl,
    NATS_URL: apiNats.url,
    LAUREL_ADMIN_TOKEN: adminToken,
    ADMIN_PORT: String(adminPort),
  },
  ready: /listening on/,
});
cleanups.push(() => api.stop());
const trpc = async (path: string, input: unknown): Promise<unknown> => {
  const res = await fetch(`http://127.0.0.1:${adminPort}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  if (!body.result) throw new Error(`tRPC ${path}: ${res.status} ${JSON.stringify(body.error)}`);
  return body.result.data;
};
const organization = async (name: string): Promise<string> => {
  const created = (await trpc("organizations.create", { name, email: "bench@example.org" })) as {
    organization: { id: string };
    authorization_token: { token: string };
  };
  const id = created.organization.id;
  const res = await fetch(`${origin}/v1/organizations/${id}/oauth_applications`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${created.authorization_token.token}:`).toString("base64")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ name: "data services" }),
  });
  const app = ((await res.json()) as { data: { id: number } }).data;
  await trpc("oauthApplications.setDataServices", { organization_id: id, application_id: app.id, enabled: true });
  await trpc("webhooks.update", { organization_id: id, webhook_url: `${receiverUrl}/hooks`, event_types: "all" });
  await trpc("webhooks.secret", { organization_id: id });
  return id;
};
const record = async (organizationId: string, n: number): Promise<void> => {
  for (let done = 0; done < n; done += 1_000) {
    const events = Array.from({ length: Math.min(1_000, n - done) }, () =>
      badgeEvent("badge.created", BADGE, { id: uuidv7(), organization_id: organizationId, occurred_at: new Date() }),
    );
    await db.transaction((tx) => appendEvents(tx, events));
  }
};

interface Drain {
  replicas: number;
  processes: number;
  rate: number;
  workerUs: number;
  natsUs: number;
}

/** Records EVENTS, starts `processes` workers on `nats`, and times the receipts until the last. */
const drain = async (nats: Nats, replicas: number, processes: number): Promise<Drain> => {
  await receiverCall("/reset", "POST");
  const org = await organization(`R${replicas} x${processes}`);
  await record(org, EVENTS);
  const natsBefore = nats.pids.reduce((a, p) => a + (processCpuMs(p) ?? 0), 0);
  const workers: RunningServer[] = await Promise.all(
    Array.from({ length: processes }, (_, i) =>
      startServer({
        name: `worker-${i}`,
        command: process.execPath,
        args: [laurelEntry("worker")],
        env: {
          DATABASE_URL: databaseUrl,
          NATS_URL: nats.url,
          NATS_STREAM_REPLICAS: String(replicas),
          DATA_DIR: join(dir, "data"),
          WEBHOOK_CA_FILE: ca.caFile,
          WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32",
        },
        ready: /webhook worker ready/,
        readyTimeoutMs: 60_000,
      }),
    ),
  );
  const t0 = performance.now();
  // CPU from the moment they are ready (Node's start-up is not the cost of an event).
  const workersBefore = workers.reduce((a, w) => a + (processCpuMs(w.pid) ?? 0), 0);
  const deadline = t0 + 600_000;
  while ((await receiverCall("/count")).first < EVENTS && performance.now() < deadline) await delay(50);
  const seconds = (performance.now() - t0) / 1000;
  const workerMs = workers.reduce((a, w) => a + (processCpuMs(w.pid) ?? 0), 0) - workersBefore;
  const natsMs = nats.pids.reduce((a, p) => a + (processCpuMs(p) ?? 0), 0) - natsBefore;
  for (const w of workers) await w.stop();
  return {
    replicas,
    processes,
    // From the workers' readiness to the last receipt.
    rate: EVENTS / seconds,
    workerUs: (workerMs * 1000) / EVENTS,
    natsUs: (natsMs * 1000) / EVENTS,
  };
};

try {
  const drains: Drain[] = [];
  for (const replicas of [1, 3]) {
    const nats = replicas === 1 ? await singleNats() : await clusterNats();
    try {
      for (const processes of WORKERS) {
        const d = await drain(nats, replicas, processes);
        drains.push(d);
        process.stderr.write(`R${replicas}, ${processes} worker(s): ${formatRps(d.rate)} deliveries/s\n`);
      }
    } finally {
      await nats.stop();
    }
  }
  const rows = drains.map((d) => {
    const r1 = drains.find((x) => x.replicas === 1 && x.processes === d.processes) as Drain;
    return [
      `R${d.replicas}`,
      String(d.processes),
      `${formatRps(d.rate)}/s`,
      `${d.workerUs.toFixed(0)} µs`,
      `${d.natsUs.toFixed(0)} µs`,
      `${(d.rate / r1.rate).toFixed(2)}x`,
    ];
  });
  console.log(
    markdownTable(
      [
        "streams",
        "worker processes",
        "deliveries (from workers ready)",
        "worker CPU/event",
        "nats CPU/event (all nodes)",
        "vs R1",
      ],
      rows,
    ),
  );
  // The paper estimate: a worker host of C cores does C / workerCPU events a second; the 3-node
  // cluster's nodes share natsCPU per event, each on cores of its own.
  const r3 = drains.filter((d) => d.replicas === 3);
  const worker = Math.min(...r3.map((d) => d.workerUs));
  const nats = Math.min(...r3.map((d) => d.natsUs));
  const perHost = (2 * 1e6) / worker;
  const clusterCap = (3 * 2 * 1e6) / nats;
  console.log(
    `\nPaper estimate from the R3 figures: a 2-core worker host delivers about ${formatRps(perHost)}/s ` +
      `(2 cores / ${worker.toFixed(0)} µs), a 3-node cluster of 2-core hosts carries about ${formatRps(clusterCap)}/s ` +
      `(6 cores / ${nats.toFixed(0)} µs); N worker hosts: min(N x ${formatRps(perHost)}, ${formatRps(clusterCap)}) ` +
      "deliveries/s, before PostgreSQL's share (not measured here) and receivers.",
  );
} finally {
  await cleanUp();
}
