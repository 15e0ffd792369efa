// Benchmark of the console's dashboard over one organization holding BENCH_DASHBOARD_BADGES badges
// (default 1,000,000, generated in SQL with generate_series, spread over the last 40 weeks, a fifth
// accepted, some revoked and rejected) and 10,000 events: `GET /console/<org>` as its owner, the
// counts, the 12-week chart and the latest events. The counters are filled from the generated rows
// with the migration's own aggregate (the trigger that keeps them is off while the rows are
// generated, then on again). Requests go one at a time on one keep-alive connection over loopback,
// so the round trip is the server's time plus the loopback hop; target: p99 under 50 ms. A run
// checks that the page shows the generated total, so the counters are what is read.
//
// Run: BENCH_ONLY=dashboard npm run bench, or npx node ops/bench/dashboard.ts once
// `bash ops/prepare.sh test` has PostgreSQL running (a fresh database beside BENCH_DATABASE_URL,
// DATABASE_URL or TEST_DATABASE_URL, dropped afterwards; NATS_URL when set, else a nats-server of
// its own). Env: BENCH_DASHBOARD_BADGES (default 1000000), BENCH_DASHBOARD_SAMPLES (default 300).

import { randomUUID } from "node:crypto";
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

const BADGES = Number(process.env.BENCH_DASHBOARD_BADGES ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 300);
const EVENTS = 10_000;
const TARGET_MS = 50;
const now = (): number => performance.now();

/** The owner (an account, its signed-in session and its membership), a template, the badges and events. */
const generate = async (databaseUrl: string, organizationId: string): Promise<string> => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const session = await insertOwnerSession(db, organizationId);
    const at = new Date();
    const templateId = randomUUID();
    await db.query(
      `insert into badge_templates (id, organization_id, name, description, state, public, allow_duplicate_badges, created_at, updated_at)
       values ($1, $2, 'Bench template', 'Generated', 'active', true, true, $3, $3)`,
      [templateId, organizationId, at],
    );
    // The counters are filled below from the rows, as the migration fills them.
    await db.query("alter table badges disable trigger badge_counts_statement_insert");
    await db.query(
      `insert into badges (id, organization_id, badge_template_id, state, public, issued_to_first_name,
         issued_to_last_name, recipient_email, recipient_email_key, exclusive, issued_at, suppress_badge_notification_email,
         recipient_salt, state_updated_at, created_at, updated_at, status_index)
       select gen_random_uuid(), $1::uuid, $2::uuid,
         case when g % 5 = 0 then 'accepted' when g % 97 = 0 then 'revoked' when g % 89 = 0 then 'rejected' else 'pending' end,
         true, 'Bench', 'Earner ' || g, 'e' || g || '@bench.example', 'e' || g || '@bench.example', false, ts, true,
         'salt', ts + interval '1 day', ts, ts, g
       from generate_series(1, $3::int) g,
         lateral (select $4::timestamptz - (g::float8 / $3::int) * interval '280 days' as ts) x`,
      [organizationId, templateId, BADGES, at],
    );
    await db.query("alter table badges enable trigger badge_counts_statement_insert");
    await db.query(
      `insert into badge_state_counts (organization_id, state, n)
       select organization_id, state, count(*) from badges where organization_id = $1::uuid group by organization_id, state`,
      [organizationId],
    );
    await db.query(
      `insert into badge_week_counts (organization_id, week, issued, accepted)
       select organization_id, week, sum(issued), sum(accepted) from (
         select organization_id, badge_week(issued_at) as week, 1 as issued, 0 as accepted from badges where organization_id = $1::uuid
         union all
         select organization_id, badge_week(state_updated_at), 0, 1 from badges where organization_id = $1::uuid and state = 'accepted'
       ) x group by organization_id, week`,
      [organizationId],
    );
    await db.query(
      `insert into events (id, organization_id, event_type, occurred_at, detail, seq)
       select gen_random_uuid(), $1::uuid, 'badge.created', $3::timestamptz - (($2::int - g) * interval '1 second'),
         jsonb_build_object('badge', jsonb_build_object('id', gen_random_uuid())), g
       from generate_series(1, $2::int) g`,
      [organizationId, EVENTS, at],
    );
    await db.query(
      `insert into event_counts (organization_id, total) values ($1, $2)
       on conflict (organization_id) do update set total = excluded.total`,
      [organizationId, EVENTS],
    );
    await db.query("vacuum analyze badges");
    await db.query("vacuum analyze events");
    return session;
  } finally {
    await db.end();
  }
};

const main = async (started: RunningServer[]): Promise<number> => {
  let failed = 0;
  const bench = { name: "dashboard", title: "the console's dashboard" };
  await withBenchLaurel(started, bench, async (laurel, databaseUrl, agent) => {
    const organizationId = (await createBenchOrganization(laurel, "Bench Dashboard")).organization.id;
    const t0 = now();
    const session = await generate(databaseUrl, organizationId);
    log(`${BADGES.toLocaleString("en-US")} badges generated in ${((now() - t0) / 1000).toFixed(0)} s`);
    const page = `${laurel.origin}/console/${organizationId}`;
    const total = `data-count="issued"><a href="/console/${organizationId}/badges"><span class="count-n">${BADGES.toLocaleString("en-GB")}</span>`;
    const get = () => timedPage(agent, page, session, total);
    if (!(await timedP99(`dashboard of ${BADGES.toLocaleString("en-US")} badges`, get, SAMPLES, TARGET_MS))) failed++;
  });
  return failed > 0 ? 1 : 0;
};

runBenchProcess(main);
