// Services the Laurel benchmarks share: a fresh PostgreSQL database beside an admin URL, Laurel's
// API server (apps/server.ts) as a child process with a known admin token, and the frame, data and
// timing the page and list benchmarks have in common.

import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { Agent, request } from "undici";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";
import { BENCH_RATE_LIMITS, serverNodeArgs } from "./laurel_setup.ts";
import { freePort, laurelEntry, machineInfo, type RunningServer, startServer } from "./lib.ts";

export const createBenchDatabase = async (adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> => {
  const name = `laurel_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        // An autovacuum worker on the database (after a run's inserts) belongs to the superuser, and
        // FORCE may not terminate it for the bench's role (42501): it ends on its own in moments.
        for (let attempt = 1; ; attempt++) {
          try {
            await c.query(`drop database if exists ${name} with (force)`);
            return;
          } catch (err) {
            if ((err as { code?: string }).code !== "42501" || attempt === 20) throw err;
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      } finally {
        await c.end();
      }
    },
  };
};

export interface Laurel {
  server: RunningServer;
  origin: string;
  /** The admin listener: tRPC and /metrics. */
  adminOrigin: string;
  adminToken: string;
}

export const startLaurelServer = async (databaseUrl: string, natsUrl: string, dataDir: string): Promise<Laurel> => {
  const port = await freePort();
  const adminPort = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString("base64url");
  const server = await startServer({
    name: "laurel",
    command: process.execPath,
    args: [...serverNodeArgs(), laurelEntry("server")],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `${origin}/v1`,
      AUTH_URL: origin,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      LAUREL_ADMIN_TOKEN: adminToken,
      ADMIN_PORT: String(adminPort),
      ...BENCH_RATE_LIMITS,
    },
    ready: /listening on/,
    readyTimeoutMs: 120_000,
  });
  return { server, origin, adminOrigin: `http://127.0.0.1:${adminPort}`, adminToken };
};

/** The PostgreSQL server a benchmark makes its fresh database on, first of these set. */
export const benchAdminUrl = (): string =>
  process.env.BENCH_DATABASE_URL ||
  process.env.DATABASE_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://laurel:laurel@127.0.0.1:5432/laurel";

export const log = (message: string): void => void process.stdout.write(`${message}\n`);

/** The benchmark's title and the machine it runs on, first in every report. */
export const logBenchHeader = (title: string): void => {
  const machine = machineInfo();
  log(`# Laurel benchmark: ${title}`);
  log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, Node ${machine.node}`);
};

export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * Runs `main` as the whole process, so each benchmark file exits alike: its code, 1 on a throw, 130
 * on a signal; the servers `main` pushes to `started` are stopped either way (they are child processes).
 */
export const runBenchProcess = (main: (started: RunningServer[]) => Promise<number>): void => {
  const started: RunningServer[] = [];
  const stopAll = () => Promise.all(started.map((s) => s.stop()));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  }
  main(started).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      void stopAll().finally(() => process.exit(1));
    },
  );
};

/**
 * What the page and list benchmarks measure against, after the report's header, removed afterwards
 * whatever happens: a fresh database, a nats-server unless NATS_URL names one, Laurel's API server
 * (pushed to `started`), and one keep-alive connection, so a round trip is the server's time plus
 * the loopback hop.
 */
export const withBenchLaurel = async <T>(
  started: RunningServer[],
  bench: { name: string; title: string },
  body: (laurel: Laurel, databaseUrl: string, agent: Agent) => Promise<T>,
): Promise<T> => {
  logBenchHeader(bench.title);
  const database = await createBenchDatabase(benchAdminUrl());
  const dataDir = mkdtempSync(join(tmpdir(), `laurel-bench-${bench.name}-`));
  let nats: LocalNats | undefined;
  const agent = new Agent({ connections: 1 });
  try {
    if (!process.env.NATS_URL) nats = await startLocalNats({ storeDir: join(dataDir, "nats") });
    const laurel = await startLaurelServer(database.url, process.env.NATS_URL || (nats as LocalNats).url, dataDir);
    started.push(laurel.server);
    return await body(laurel, database.url, agent);
  } finally {
    await agent.close();
    for (const s of started.reverse()) await s.stop();
    await nats?.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** A tRPC mutation on the admin listener with the server's admin token; its `result.data`. */
export const adminTrpc = async <T>(laurel: Laurel, path: string, input: unknown): Promise<T> => {
  const res = await fetch(`${laurel.adminOrigin}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${laurel.adminToken}` },
    body: JSON.stringify(input),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { result: { data: T } }).result.data;
};

/** A new organization and its first authorization token, as the operator creates them. */
export const createBenchOrganization = (laurel: Laurel, name: string) =>
  adminTrpc<{ organization: { id: string }; authorization_token: { token: string } }>(laurel, "organizations.create", {
    name,
    email: "bench@example.org",
  });

/**
 * An owner of the organization written straight into the tables (an account, its confirmed
 * address, a signed-in session and the membership), so the console pages are measured without the
 * mailed sign-in; returns the session cookie's value.
 */
export const insertOwnerSession = async (db: pg.Client, organizationId: string): Promise<string> => {
  const userId = randomUUID();
  const session = randomBytes(32).toString("base64url");
  const at = new Date();
  await db.query(
    "insert into users (id, first_name, last_name, created_at, updated_at) values ($1, 'Bench', 'Owner', $2, $2)",
    [userId, at],
  );
  await db.query(
    `insert into user_emails (email_key, user_id, email, position, confirmed, created_at)
     values ('owner@bench.example', $1, 'owner@bench.example', 0, true, $2)`,
    [userId, at],
  );
  await db.query(
    "insert into earner_sessions (token_hash, user_id, created_at, expires_at) values ($1, $2, $3, $3::timestamptz + interval '1 day')",
    [createHash("sha256").update(session, "utf8").digest("hex"), userId, at],
  );
  await db.query(
    "insert into memberships (id, organization_id, user_id, role, created_at, updated_at) values ($1, $2, $3, 'owner', $4, $4)",
    [randomUUID(), organizationId, userId, at],
  );
  return session;
};

/**
 * One console page as the signed-in owner over `agent`, checked to be the page meant (a 200 holding
 * `expected`); returns its milliseconds.
 */
export const timedPage = async (agent: Agent, url: string, session: string, expected: string): Promise<number> => {
  const t = performance.now();
  const answer = await request(url, {
    headers: { cookie: `laurel_session=${session}`, accept: "text/html" },
    dispatcher: agent,
  });
  const body = await answer.body.text();
  const ms = performance.now() - t;
  if (answer.statusCode !== 200 || !body.includes(expected))
    throw new Error(`${url}: ${answer.statusCode}, not ${expected}`);
  return ms;
};

/**
 * Times `sample` (which returns one call's milliseconds) `samples` times, one at a time after 30
 * untimed calls that warm the caches; logs p50 and p99 against the target and says whether p99 met it.
 */
export const timedP99 = async (
  label: string,
  sample: () => Promise<number>,
  samples: number,
  targetMs: number,
): Promise<boolean> => {
  for (let i = 0; i < 30; i++) await sample();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push(await sample());
  times.sort((a, b) => a - b);
  const p99 = percentile(times, 99);
  const met = p99 < targetMs;
  log(
    `- ${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target < ${targetMs} ms: ${met ? "met" : "not met"})`,
  );
  return met;
};
