// Benchmark of the costs that must follow the work, not the number of tenants, over one database
// holding BENCH_SCALE_ORGS organizations (default 1,000,000, synthetic rows in SQL) whose events are
// all published but for BENCH_SCALE_PENDING (default 100), those with a year of published history
// in 52 weekly partitions of `events`, and one organization holding
// BENCH_SCALE_BADGES badges (default 1,000,000):
//   - relay_poll_ms_p99: one relay batch over the pending work (its publish fails, so the batch rolls
//     back and every sample sees the same 100 pending organizations); target < 5 ms;
//   - relay_idle_cpu_percent: one relay with nothing pending, listening for NOTIFY, for
//     BENCH_SCALE_IDLE_S seconds (default 60): this process's CPU over wall time; target < 1 %;
//   - metrics_scrape_ms_p99: the two event figures /metrics reads; target < 20 ms;
//   - filtered_walk_page_ms_p99: pages 2 to 21 of a filter matching 30 % of the badges (300,000 of
//     1,000,000), five walks of five filters, through the badge store; target < 15 ms.
// The figures are the adapters' own time (no HTTP hop): what grows with the installation is the
// SQL. Then `import_100k_s` and `import_rss_growth_mib`: the import benchmark (imports.ts, a
// 100,000-row employee CSV through an API server and a worker) run as a process of its own
// (BENCH_SCALE_IMPORT=0 skips it: printed as null).
//
// Run: BENCH_ONLY=scale npm run bench, or npx node ops/bench/scale.ts with PostgreSQL running (a
// fresh database beside BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL, dropped afterwards).
// Prints its figures; the last line is one JSON object. Exits non-zero when a target is missed.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import pg from "pg";
import {
  appendEvents,
  listenForEvents,
  openDatabase,
  postgresEventFigures,
  postgresOutbox,
} from "../../adapters/db/mod.ts";
import { postgresBadgeStore } from "../../adapters/db/postgres_badge_store.ts";
import { BADGE_LIST } from "../../core/badges/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import { DEFAULT_RELAY_OPTIONS, startOutboxRelay } from "../../workers/outbox_relay.ts";
import { benchAdminUrl, createBenchDatabase, log } from "./laurel_process.ts";
import { machineInfo } from "./lib.ts";

const ORGS = Number(process.env.BENCH_SCALE_ORGS ?? 1_000_000);
const PENDING = Number(process.env.BENCH_SCALE_PENDING ?? 100);
const BADGES = Number(process.env.BENCH_SCALE_BADGES ?? 1_000_000);
const IDLE_S = Number(process.env.BENCH_SCALE_IDLE_S ?? 60);
/**
 * Polls, scrapes and pages run before the measured ones, not counted: the first statements are
 * planned and compiled, and the first hundred or so polls run before V8 has optimized the row
 * parsing (with ten, the slowest polls were the early ones); a relay runs for days.
 */
const WARM_UP = 100;
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 200);
const CHUNK = 100_000;
const HISTORY_WEEKS = 52;
const HISTORY = 1_000;
const adminUrl = benchAdminUrl();
const now = (): number => performance.now();
const p99 = (samples: number[]): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? Number.NaN;
};
const median = (samples: number[]): number =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? Number.NaN;
const round = (n: number): number => Math.round(n * 100) / 100;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** Garbage collection in this process so far, in ms (to tell the slow samples' cause apart). */
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ["gc"] });

/** One timed sample: its wall time, this process's CPU and GC time in it, and what else ran. */
interface Sample {
  i: number;
  ms: number;
  cpuMs: number;
  gcMs: number;
}
const sampled = async (i: number, fn: () => Promise<unknown>): Promise<Sample> => {
  const cpu = process.cpuUsage();
  const gc = gcMs;
  const at = now();
  await fn();
  const ms = now() - at;
  const used = process.cpuUsage(cpu);
  return { i, ms, cpuMs: (used.user + used.system) / 1000, gcMs: gcMs - gc };
};
/** PostgreSQL's own background work now (autovacuum workers and what they run), for the log. */
const background = async (client: pg.Client): Promise<string> => {
  const { rows } = await client.query<{ query: string }>(
    "select query from pg_stat_activity where backend_type = 'autovacuum worker'",
  );
  return rows.length === 0 ? "no autovacuum running" : `autovacuum: ${rows.map((r) => r.query).join("; ")}`;
};

/**
 * The five slowest samples, each with this process's CPU and GC time: a slow sample whose CPU and
 * GC are the median's waited on PostgreSQL or on the machine.
 */
const slowest = (label: string, samples: Sample[]): void => {
  const top = [...samples].sort((a, b) => b.ms - a.ms).slice(0, 5);
  const mid = [...samples].sort((a, b) => a.ms - b.ms)[Math.floor(samples.length / 2)];
  const show = (s: Sample) => `${s.i}: ${round(s.ms)} ms (cpu ${round(s.cpuMs)}, gc ${round(s.gcMs)})`;
  log(
    `slowest ${label} (sample: wall, this process's cpu and gc): ${top.map(show).join("; ")}; median ${mid ? show(mid) : "-"}`,
  );
};

/** Idle organizations: one event each, published long ago (counter and cursor at 1). */
const generateOrganizations = async (client: pg.Client): Promise<void> => {
  for (let from = 1; from <= ORGS; from += CHUNK) {
    const to = Math.min(ORGS, from + CHUNK - 1);
    await client.query(
      `with o as (
         insert into organizations (id, name, created_at, updated_at)
         select gen_random_uuid(), 'Org ' || g, now(), now() from generate_series($1::int, $2::int) g returning id
       ), r as (insert into event_relay_cursors (organization_id, published_seq) select id, 1 from o)
       insert into event_counts (organization_id, total) select id, 1 from o`,
      [from, to],
    );
  }
  await client.query("vacuum analyze organizations, event_counts, event_relay_cursors");
};

/** One organization's badges, one a minute from 2020-01-01, ids in issue order (as ops/bench/lists.ts). */
const generateBadges = async (client: pg.Client, organizationId: string, templateId: string): Promise<void> => {
  // The dashboard's counters are not measured here: their trigger is left out of the generation.
  await client.query("alter table badges disable trigger badge_counts_statement_insert");
  for (let from = 1; from <= BADGES; from += CHUNK) {
    const to = Math.min(BADGES, from + CHUNK - 1);
    await client.query(
      `insert into badges (id, organization_id, badge_template_id, state, public, issued_to_first_name,
         issued_to_last_name, recipient_email, recipient_email_key, exclusive, issued_at, evidence,
         suppress_badge_notification_email, revocation_reason, recipient_salt, state_updated_at, created_at, updated_at,
         status_index)
       select (lpad(to_hex((extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(h, 1, 3) || '8' ||
               substr(h, 4, 15))::uuid,
         $1::uuid, $2::uuid, (array['pending', 'accepted', 'accepted', 'revoked', 'rejected'])[1 + g % 5], g % 3 <> 0,
         'Bench', 'Mark' || (g % 1000), 'p' || g || '@bench.example', 'p' || g || '@bench.example', false, ts, '[]'::jsonb,
         true, case when g % 5 = 3 then 'Bench' end, 'salt', ts, ts, ts, g
       from generate_series($3::int, $4::int) g,
         lateral (select timestamptz '2020-01-01' + g * interval '1 minute' as ts, md5(g::text) as h) x`,
      [organizationId, templateId, from, to],
    );
  }
  await client.query("alter table badges enable trigger badge_counts_statement_insert");
  await client.query("vacuum analyze badges");
};

/**
 * A year of history: 52 weekly partitions of `events` before the ones the migrations made, holding
 * `HISTORY` published events of each pending organization spread over the year (counter and cursor
 * moved past them). The relay's probe of an organization's next events must not cost one index probe
 * per week of history (`events` is kept forever by default).
 */
const generateHistory = async (client: pg.Client, organizations: string[]): Promise<void> => {
  const { rows } = await client.query<{ week: string }>(
    `select min(substring(c.relname from 'events_p(\\d{8})')) as week from pg_inherits i
     join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events'::regclass`,
  );
  const w = rows[0]?.week as string;
  const first = Date.parse(`${w.slice(0, 4)}-${w.slice(4, 6)}-${w.slice(6, 8)}T00:00:00Z`);
  const week = 7 * 86_400_000;
  // A range may not be attached over rows the default partition holds; it holds none yet.
  await client.query("alter table events detach partition events_default");
  for (let k = 1; k <= HISTORY_WEEKS; k++) {
    const from = new Date(first - k * week);
    const name = `events_p${from.toISOString().slice(0, 10).replaceAll("-", "")}`;
    await client.query(
      `create table ${name} partition of events for values from ('${from.toISOString()}') to ('${new Date(from.getTime() + week).toISOString()}')`,
    );
  }
  await client.query("alter table events attach partition events_default default");
  await client.query(
    `insert into events (id, organization_id, event_type, occurred_at, detail, seq)
     select gen_random_uuid(), o, 'badge.created', $2::timestamptz + g * ($3::float8 / $4::int) * interval '1 millisecond',
       '{}'::jsonb, g
     from unnest($1::uuid[]) o, generate_series(1, $4::int) g`,
    [organizations, new Date(first - HISTORY_WEEKS * week).toISOString(), HISTORY_WEEKS * week - 1, HISTORY],
  );
  await client.query("update event_counts set total = $2 where organization_id = any($1::uuid[])", [
    organizations,
    HISTORY,
  ]);
  await client.query("update event_relay_cursors set published_seq = $2 where organization_id = any($1::uuid[])", [
    organizations,
    HISTORY,
  ]);
  await client.query("vacuum analyze events, event_counts, event_relay_cursors");
};

const main = async () => {
  const machine = machineInfo();
  log("# Laurel benchmark: costs at scale (relay poll, idle relay, /metrics figures, filtered list walk)");
  log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, Node ${machine.node}`);
  log(`${ORGS} organizations, ${PENDING} with pending events, ${BADGES} badges`);
  const database = await createBenchDatabase(adminUrl);
  const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-scale-"));
  const db = await openDatabase({ databaseUrl: database.url, dataDir, log: quiet });
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    let at = now();
    await generateOrganizations(client);
    log(`organizations generated in ${((now() - at) / 1000).toFixed(1)} s`);
    const { rows: some } = await client.query<{ id: string }>(
      "select id from organizations order by id limit $1::int",
      [PENDING + 1],
    );
    const pendingOrgs = some.slice(0, PENDING).map((r) => r.id);
    const badgeOrg = some[PENDING]?.id as string;
    at = now();
    await generateHistory(client, pendingOrgs);
    log(
      `a year of history (${HISTORY_WEEKS} weekly partitions, ${HISTORY} events per pending organization) in ${((now() - at) / 1000).toFixed(1)} s`,
    );
    for (const organizationId of pendingOrgs) {
      const events: EventRecord[] = Array.from({ length: 10 }, (_, i) => ({
        id: crypto.randomUUID(),
        organization_id: organizationId,
        event_type: "badge.created",
        occurred_at: new Date(Date.now() + i),
        detail: {},
      }));
      await appendEvents(db, events);
    }

    const outbox = postgresOutbox(db);
    const figures = postgresEventFigures(db);
    const refused = new Error("bench: publish refused, the batch rolls back");
    log(`before the relay polls: ${await background(client)}`);
    const polls: Sample[] = [];
    // The first polls plan and compile the statements; the figure is the steady poll.
    for (let i = -WARM_UP; i < SAMPLES; i++) {
      const sample = await sampled(i, () =>
        outbox
          .relayBatch(DEFAULT_RELAY_OPTIONS.batch, async () => {
            throw refused;
          })
          .catch((err) => {
            if (err !== refused) throw err;
          }),
      );
      if (i >= 0) polls.push(sample);
    }
    slowest("relay polls", polls);
    log(`after the relay polls: ${await background(client)}`);
    const poll = polls.map((p) => p.ms);
    const scrape: number[] = [];
    for (let i = -WARM_UP; i < SAMPLES; i++) {
      at = now();
      await Promise.all([figures.recordedTotal(), figures.unpublished()]);
      if (i >= 0) scrape.push(now() - at);
    }
    log(`pending events: ${await figures.unpublished()}`);
    while ((await outbox.relayBatch(DEFAULT_RELAY_OPTIONS.batch, async () => {})) > 0);

    const relay = await startOutboxRelay({
      outbox,
      publisher: { publish: async () => {} },
      metrics: { eventsPublished: () => {} } as never,
      log: quiet,
      listen: (onNotify) => listenForEvents(db, onNotify, () => {}),
    });
    const cpuBefore = process.cpuUsage();
    const wallBefore = now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
    const cpu = process.cpuUsage(cpuBefore);
    const idleCpu = ((cpu.user + cpu.system) / 1000 / (now() - wallBefore)) * 100;
    await relay.stop();

    at = now();
    const templateId = crypto.randomUUID();
    await client.query(
      `insert into badge_templates (id, organization_id, name, description, state, public, allow_duplicate_badges,
         created_at, updated_at) values ($1, $2, 'Bench', 'Bench', 'active', true, true, now(), now())`,
      [templateId, badgeOrg],
    );
    await generateBadges(client, badgeOrg, templateId);
    log(`badges generated in ${((now() - at) / 1000).toFixed(1)} s`);
    const store = postgresBadgeStore(db);
    log(`before the walks: ${await background(client)}`);
    const walks: Sample[] = [];
    for (let w = 0; w < 5; w++) {
      // 30 % of the badges, each walk a filter of its own (the first page counts it).
      const max = new Date(Date.UTC(2020, 0, 1) + (Math.floor(BADGES * 0.3) - w) * 60_000);
      const query = {
        filters: { issued_at: { kind: "range" as const, min: null, max } },
        sort: [...BADGE_LIST.defaultSort],
        page: 1,
      };
      await store.listBadges(badgeOrg, query, { page: 1, per: 50, offset: 0 });
      for (let page = 2; page <= 21; page++) {
        walks.push(
          await sampled(w * 100 + page, () =>
            store.listBadges(badgeOrg, { ...query, page }, { page, per: 50, offset: (page - 1) * 50 }),
          ),
        );
      }
    }
    slowest("walk pages (walk x 100 + page)", walks);
    log(`after the walks: ${await background(client)}`);
    const walk = walks.map((p) => p.ms);

    log(
      `medians: relay poll ${round(median(poll))} ms, metrics ${round(median(scrape))} ms, walk page ${round(median(walk))} ms`,
    );
    const result = {
      organizations: ORGS,
      pending_organizations: PENDING,
      badges: BADGES,
      relay_poll_ms_p99: round(p99(poll)),
      relay_idle_cpu_percent: round(idleCpu),
      relay_idle_s: IDLE_S,
      metrics_scrape_ms_p99: round(p99(scrape)),
      filtered_walk_page_ms_p99: round(p99(walk)),
    };
    return result;
  } finally {
    await client.end();
    await db.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/**
 * The 100,000-row import's figures, from the import benchmark (`imports.ts`) run as a process of its
 * own after the database above is dropped: it starts an API server and a worker, uploads the CSV
 * and samples the server's memory. Its last line is its JSON.
 */
const importFigures = async (): Promise<{ import_100k_s: number | null; import_rss_growth_mib: number | null }> => {
  if (process.env.BENCH_SCALE_IMPORT === "0") return { import_100k_s: null, import_rss_growth_mib: null };
  const child = spawn(process.execPath, [fileURLToPath(new URL("./imports.ts", import.meta.url))], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    process.stdout.write(chunk);
  });
  await new Promise((resolve) => child.once("close", resolve));
  const last = out.trim().split("\n").at(-1) ?? "";
  const figures = JSON.parse(last.slice(last.indexOf("{"))) as {
    import_100k_s?: number;
    import_rss_growth_mib?: number;
  };
  return { import_100k_s: figures.import_100k_s ?? null, import_rss_growth_mib: figures.import_rss_growth_mib ?? null };
};

const figures = await main();
const result = { ...figures, ...(await importFigures()) };
const missed =
  result.relay_poll_ms_p99 >= 5 ||
  result.relay_idle_cpu_percent >= 1 ||
  result.metrics_scrape_ms_p99 >= 20 ||
  result.filtered_walk_page_ms_p99 >= 15 ||
  (result.import_100k_s ?? 0) >= 60 ||
  (result.import_rss_growth_mib ?? 0) >= 100;
log(JSON.stringify(result));
process.exitCode = missed ? 1 : 0;
