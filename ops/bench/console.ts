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

import pg from "pg";
import {
  createBenchOrganization,
  insertOwnerSession,
  log,
  runBenchProcess,
  timedP99,
  timedPage,
  withBenchLaurel,
} from "./laurel_process.ts";
import type { RunningServer } from "./lib.ts";

const DELIVERIES = Number(process.env.BENCH_CONSOLE_DELIVERIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_CONSOLE_SAMPLES ?? 300);
const TARGET_MS = 50;
const now = (): number => performance.now();

/**
 * The owner (an account, its signed-in session and its membership) and the deliveries, one a
 * second, each with one successful attempt. Returns the session cookie's value and the id of the
 * delivery half-way down the log.
 */
const generate = async (databaseUrl: string, organizationId: string): Promise<{ session: string; middle: string }> => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const session = await insertOwnerSession(db, organizationId);
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

const main = async (started: RunningServer[]): Promise<number> => {
  let failed = 0;
  const bench = { name: "console", title: "the console's webhook delivery log" };
  await withBenchLaurel(started, bench, async (laurel, databaseUrl, agent) => {
    const organizationId = (await createBenchOrganization(laurel, "Bench Console")).organization.id;
    const t0 = now();
    const { session, middle } = await generate(databaseUrl, organizationId);
    log(`${DELIVERIES.toLocaleString("en-US")} deliveries generated in ${((now() - t0) / 1000).toFixed(0)} s`);
    const page = `${laurel.origin}/console/${organizationId}/developers/webhooks`;
    const timed = async (label: string, url: string) => {
      const get = () => timedPage(agent, url, session, "Delivery log");
      if (!(await timedP99(label, get, SAMPLES, TARGET_MS))) failed++;
    };
    await timed("delivery log, newest page", page);
    await timed("delivery log, a page from the middle", `${page}?after=${middle}`);
  });
  return failed > 0 ? 1 : 0;
};

runBenchProcess(main);
