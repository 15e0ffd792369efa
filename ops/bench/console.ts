// Benchmark of the console's webhook delivery log, over one organization holding
// BENCH_CONSOLE_DELIVERIES deliveries (default 100,000, generated in SQL with generate_series):
// `GET /console/<org>/developers/webhooks`, the newest page and a page from the middle of the log
// (`?after=<delivery id>`), as its owner. Each is requested one at a time on one keep-alive
// connection over loopback, so the round trip is the server's time plus the loopback hop;
// target: p99 under 50 ms each (keyset pages, nothing counted).
//
// Run: BENCH_ONLY=console npm run bench, or npx node ops/bench/console.ts once
// `bash ops/prepare.sh test` has PostgreSQL running (a fresh database beside BENCH_DATABASE_URL,
// DATABASE_URL or TEST_DATABASE_URL, dropped afterwards; NATS_URL when set, else a nats-server of
// its own). Env: BENCH_CONSOLE_DELIVERIES (default 100000), BENCH_CONSOLE_SAMPLES (default 300).

import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { Agent, request } from "undici";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";
import { createBenchDatabase, startLaurelServer } from "./laurel_process.ts";
import { machineInfo, type RunningServer } from "./lib.ts";

const DELIVERIES = Number(process.env.BENCH_CONSOLE_DELIVERIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_CONSOLE_SAMPLES ?? 300);
const TARGET_MS = 50;
const adminUrl =
  process.env.BENCH_DATABASE_URL ||
  process.env.DATABASE_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://laurel:laurel@127.0.0.1:5432/laurel";
const started: RunningServer[] = [];
const log = (message: string): void => void process.stdout.write(`${message}\n`);
const now = (): number => performance.now();

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * The owner (an account, its signed-in session and its membership) and the deliveries, one a
 * second, each with one successful attempt. Returns the session cookie's value and the id of the
 * delivery half-way down the log.
 */
const generate = async (databaseUrl: string, organizationId: string): Promise<{ session: string; middle: string }> => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
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
    await db.query(
      `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
         first_attempt_at, last_attempt_at, succeeded_at, created_at)
       select gen_random_uuid(), gen_random_uuid(), $1::uuid, 'badge.created', ts, 'succeeded', 1, ts, ts, ts, ts
       from generate_series(1, $2::int) g, lateral (select timestamptz '2026-01-01' + g * interval '1 second' as ts) x`,
      [organizationId, DELIVERIES],
    );
    await db.query(
      `insert into webhook_attempts (id, delivery_id, attempt_number, started_at, duration_ms, status_code, outcome)
       select gen_random_uuid(), d.id, 1, d.created_at, 12, 200, 'succeeded' from webhook_deliveries d
       where d.organization_id = $1::uuid`,
      [organizationId],
    );
    await db.query("vacuum analyze webhook_deliveries");
    await db.query("vacuum analyze webhook_attempts");
    const middle = await db.query<{ id: string }>(
      `select id from webhook_deliveries where organization_id = $1::uuid
       order by created_at desc, id desc offset $2 limit 1`,
      [organizationId, Math.floor(DELIVERIES / 2)],
    );
    return { session, middle: middle.rows[0]?.id ?? "" };
  } finally {
    await db.end();
  }
};

const main = async (): Promise<number> => {
  const machine = machineInfo();
  log("# Laurel benchmark: the console's webhook delivery log");
  log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, Node ${machine.node}`);
  const database = await createBenchDatabase(adminUrl);
  const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-console-"));
  let nats: LocalNats | undefined;
  const agent = new Agent({ connections: 1 });
  let failed = 0;
  try {
    if (!process.env.NATS_URL) nats = await startLocalNats({ storeDir: join(dataDir, "nats") });
    const laurel = await startLaurelServer(database.url, process.env.NATS_URL || (nats as LocalNats).url, dataDir);
    started.push(laurel.server);
    const res = await fetch(`${laurel.adminOrigin}/trpc/organizations.create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${laurel.adminToken}` },
      body: JSON.stringify({ name: "Bench Console", email: "bench@example.org" }),
    });
    const created = ((await res.json()) as { result: { data: { organization: { id: string } } } }).result.data;
    const organizationId = created.organization.id;
    const t0 = now();
    const { session, middle } = await generate(database.url, organizationId);
    log(`${DELIVERIES.toLocaleString("en-US")} deliveries generated in ${((now() - t0) / 1000).toFixed(0)} s`);
    const page = `${laurel.origin}/console/${organizationId}/developers/webhooks`;
    const get = async (url: string): Promise<number> => {
      const t = now();
      const answer = await request(url, {
        headers: { cookie: `laurel_session=${session}`, accept: "text/html" },
        dispatcher: agent,
      });
      const body = await answer.body.text();
      const ms = now() - t;
      if (answer.statusCode !== 200 || !body.includes("Delivery log")) throw new Error(`${url}: ${answer.statusCode}`);
      return ms;
    };
    const timed = async (label: string, url: string) => {
      for (let i = 0; i < 30; i++) await get(url);
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) times.push(await get(url));
      times.sort((a, b) => a - b);
      const p99 = percentile(times, 99);
      if (!(p99 < TARGET_MS)) failed++;
      log(
        `- ${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target < ${TARGET_MS} ms: ${p99 < TARGET_MS ? "met" : "not met"})`,
      );
    };
    await timed("delivery log, newest page", page);
    await timed("delivery log, a page from the middle", `${page}?after=${middle}`);
  } finally {
    await agent.close();
    for (const s of started.reverse()) await s.stop();
    await nats?.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return failed > 0 ? 1 : 0;
};

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void Promise.all(started.map((s) => s.stop())).finally(() => process.exit(130)));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    void Promise.all(started.map((s) => s.stop())).finally(() => process.exit(1));
  },
);
