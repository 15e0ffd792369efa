// Benchmark of the list filters and the high-volume badge feed, over one organization holding
// BENCH_LIST_BADGES badges (default 1,000,000, generated in SQL with generate_series):
//   1. `GET .../high_volume_issued_badge_search` page 2,000 (its cursor found by walking the feed);
//   2. the badge list filtered by `state` and `issued_at_min` and sorted, pages 1 and 100.
// Each is requested one at a time on one keep-alive connection over loopback, so the round trip
// is the server's time plus the loopback hop; target: p99 under 10 ms each.
//
// Run: BENCH_ONLY=lists npm run bench, or npx node ops/bench/lists.ts once `bash ops/prepare.sh test`
// has PostgreSQL running (a fresh database beside BENCH_DATABASE_URL, DATABASE_URL or
// TEST_DATABASE_URL, dropped afterwards; NATS_URL when set, else a nats-server of its own).
// Env: BENCH_LIST_BADGES (default 1000000), BENCH_LIST_SAMPLES (timed requests each, default 300).

import pg from "pg";
import { request } from "undici";
import { createBenchOrganization, log, runBenchProcess, timedP99, withBenchLaurel } from "./laurel_process.ts";
import { basicHeader, type RunningServer } from "./lib.ts";

const BADGES = Number(process.env.BENCH_LIST_BADGES ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 300);
const CHUNK = 100_000;
const TARGET_MS = 10;
const now = (): number => performance.now();

/**
 * The badges, one a minute from 2020-01-01, with UUIDv7-shaped ids in issue order; states cycle
 * pending, accepted, accepted, revoked, rejected; two in three are public.
 */
const generateBadges = async (databaseUrl: string, organizationId: string, templateId: string): Promise<void> => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (let from = 1; from <= BADGES; from += CHUNK) {
      const to = Math.min(BADGES, from + CHUNK - 1);
      await db.query(
        `insert into badges (id, organization_id, badge_template_id, state, public, issued_to_first_name,
           issued_to_last_name, recipient_email, recipient_email_key, exclusive, issued_at, evidence,
           suppress_badge_notification_email, revocation_reason, recipient_salt, state_updated_at, created_at, updated_at)
         select (lpad(to_hex((extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(h, 1, 3) || '8' ||
                 substr(h, 4, 15))::uuid,
           $1::uuid, $2::uuid, (array['pending', 'accepted', 'accepted', 'revoked', 'rejected'])[1 + g % 5], g % 3 <> 0,
           'Bench', 'Mark' || (g % 1000), 'p' || g || '@bench.example', 'p' || g || '@bench.example', false, ts, '[]'::jsonb,
           true, case when g % 5 = 3 then 'Bench' end, 'salt', ts, ts, ts
         from generate_series($3::int, $4::int) g,
           lateral (select timestamptz '2020-01-01' + g * interval '1 minute' as ts, md5(g::text) as h) x`,
        [organizationId, templateId, from, to],
      );
    }
    // As autovacuum would soon after a bulk load in production: the statistics, and the visibility
    // map that lets the list's index-only scans skip the table (measured before it, every index
    // entry read would also fetch its heap page).
    await db.query("vacuum analyze badges");
  } finally {
    await db.end();
  }
};

const main = async (started: RunningServer[]): Promise<number> => {
  let failed = 0;
  const bench = { name: "lists", title: "list filters and the high-volume badge feed" };
  await withBenchLaurel(started, bench, async (laurel, databaseUrl, agent) => {
    const created = await createBenchOrganization(laurel, "Bench Org");
    const organizationId = created.organization.id;
    const auth = basicHeader(created.authorization_token.token, "");
    const api = `${laurel.origin}/v1/organizations/${organizationId}`;
    const tpl = await fetch(`${api}/badge_templates`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench", description: "Measures lists", state: "active" }),
    });
    const templateId = ((await tpl.json()) as { data: { id: string } }).data.id;
    const t0 = now();
    await generateBadges(databaseUrl, organizationId, templateId);
    log(`${BADGES.toLocaleString("en-US")} badges generated in ${((now() - t0) / 1000).toFixed(0)} s`);

    const get = async (url: string) => {
      const t = now();
      const res = await request(url, { headers: { authorization: auth }, dispatcher: agent });
      const body = (await res.body.json()) as {
        data: unknown[];
        metadata: { next_page_url: string | null; total_count?: number };
      };
      const ms = now() - t;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      return { ms, body };
    };
    const timed = async (label: string, url: string) => {
      const total = (await get(url)).body.metadata.total_count;
      if (total !== undefined) log(`- ${label}: total_count ${total.toLocaleString("en-US")}`);
      if (!(await timedP99(label, async () => (await get(url)).ms, SAMPLES, TARGET_MS))) failed++;
    };

    const feedPage = Math.min(2_000, Math.floor(BADGES / 50) - 1);
    let url = `${api}/high_volume_issued_badge_search`;
    const walk0 = now();
    for (let page = 1; page < feedPage; page++) {
      const next = (await get(url)).body.metadata.next_page_url;
      if (!next) throw new Error(`the feed ended at page ${page}`);
      url = next;
    }
    log(`walked the feed to page ${feedPage} in ${((now() - walk0) / 1000).toFixed(1)} s`);
    await timed(`feed page ${feedPage.toLocaleString("en-US")}`, url);
    // From a quarter of the way through the history: about 30% of all badges match.
    const since = new Date(Date.UTC(2020, 0, 1) + Math.floor(BADGES / 4) * 60_000).toISOString();
    const filtered = `${api}/badges?filter=state::accepted|issued_at_min::${since}&sort=-issued_at`;
    const page100 = Math.min(100, Math.max(1, Math.floor((BADGES * 0.3) / 50)));
    await timed("badge list, state + issued_at_min + sort, page 1", filtered);
    await timed(`badge list, state + issued_at_min + sort, page ${page100}`, `${filtered}&page=${page100}`);
  });
  return failed > 0 ? 1 : 0;
};

runBenchProcess(main);
