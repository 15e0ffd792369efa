// Benchmark of varied list reads: Laurel's badge and badge template lists under a
// stream of distinct requests, against a plain node:http + `pg` peer running the same statements.
//
// Data: BENCH_REAL_ORGS organizations (default 10), each with 30 badge templates made over the API
// (states, visibility, skills and reporting tags varied) and BENCH_REAL_BADGES badges (default
// 100,000) generated in SQL with generate_series and spread over its templates, then `vacuum analyze`.
//
// Requests: BENCH_REAL_REQUESTS distinct list URLs (default 1,000; 80% badge lists, 20% template
// lists) over every organization, mixing filters, sorts, page sizes and pages 1-20, each sent with
// the organization's authorization token (Basic) or an OAuth client_credentials access token
// (Bearer), at random. A URL whose page would be empty is replaced by another, so every answer has
// items. Laurel shares one read among identical requests in flight (keyed by organization and URL,
// whatever the credential); this bench must not measure that, so no URL is ever in flight twice:
// each of BENCH_CONNECTIONS connections (default 50, an undici Pool) takes the next URL of a shared
// queue of shuffled rounds of the whole set, skipping one still in flight.
//
// The peer (ops/bench/peers/list_statement_server.ts) runs, for each URL, the statements Laurel's
// list runs for it. They are captured from Laurel's own code, not rewritten: the URL is parsed by
// the REST adapter's list grammar and read through the postgres badge store (its listBadges and
// listTemplates, which the list routes call) over a `Database` that records each statement with
// its `?` numbered as adapters/db/sql.ts numbers them. Meanwhile a spy on pg's Pool records what
// pg is actually handed, and the two must match. A badge list is three statements: whether the
// organization ever issued on another's behalf, then its page and its count sent together; a
// template list is its page and its count sent together. The store counts a filter once and then
// reads only the organization's change sequence while it has not moved; each URL is read twice and
// the second read's statements (the steady state Laurel is measured in) are those captured. The peer
// authenticates nothing and builds its body with Laurel's row and JSON functions (see its header);
// before timing, every URL's answer from Laurel is checked (200, the captured item count and total)
// and the peer's body must be the same JSON.
//
// Figures: requests/s over BENCH_DURATION seconds (default 10) after BENCH_WARMUP (default 3), and
// p99 latency, for each; the target is Laurel/peer >= 0.8 (PASS/MISS printed; figures returned).
//
// Run: npx node ops/bench/real_lists.ts once `bash ops/prepare.sh test` has PostgreSQL running (a
// fresh database beside BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL, dropped afterwards;
// NATS_URL when set, else a nats-server of its own); LAUREL_DIST=1 runs the built JavaScript, as
// bench.sh does. `variedLists` is what ops/bench/real.ts calls.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import pg from "pg";
import { type Dispatcher, Pool } from "undici";
import type { Database } from "../../adapters/db/mod.ts";
import { postgresBadgeStore } from "../../adapters/db/mod.ts";
import { postgresSql, type Row, type Sql } from "../../adapters/db/sql.ts";
import { readListQuery } from "../../adapters/rest/list_query.ts";
import { BADGE_LIST, TEMPLATE_LIST } from "../../core/badges/mod.ts";
import { pageRequest } from "../../core/shared/mod.ts";
import {
  createBenchOrganization,
  type Laurel,
  log,
  percentile,
  runBenchProcess,
  withBenchLaurel,
} from "./laurel_process.ts";
import { basicHeader, clientBasicHeader, failIfExited, type RunningServer, settingsFromEnv, startPeer } from "./lib.ts";
import {
  type CapturedFile,
  type CapturedRequest,
  type CapturedStatement,
  storedValue,
} from "./peers/list_statement_server.ts";

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};

const ORGS = positive("BENCH_REAL_ORGS", 10);
const BADGES = positive("BENCH_REAL_BADGES", 100_000);
const REQUESTS = positive("BENCH_REAL_REQUESTS", 1_000);
const TEMPLATES = 30;
/** The share of badge lists in the set; the rest are template lists. */
const BADGE_SHARE = 0.8;
const CHUNK = 100_000;
const TARGET_RATIO = 0.8;
const SKILLS = ["Leadership", "Safety", "Analysis", "Writing"];
const TAGS = ["Finance", "Operations", "Engineering"];

/** A small seeded generator (mulberry32), so two runs send the same set. */
const seeded = (seed: number) => {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const shuffled = (n: number): number[] => {
    const out = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j] as number, out[i] as number];
    }
    return out;
  };
  return { next, pick, shuffled };
};

interface Organization {
  id: string;
  templateIds: string[];
  basic: string;
  bearer: string;
}

const json = async <T>(res: Response, expected: number, what: string): Promise<T> => {
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${what}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
};

/** An organization with its tokens, an OAuth application's access token and its 30 templates. */
const makeOrganization = async (laurel: Laurel, index: number): Promise<Organization> => {
  const created = await createBenchOrganization(laurel, `Bench Lists ${index + 1}`);
  const id = created.organization.id;
  const basic = basicHeader(created.authorization_token.token, "");
  const api = `${laurel.origin}/v1/organizations/${id}`;
  const post = (path: string, body: unknown, method = "POST") =>
    fetch(`${api}/${path}`, {
      method,
      headers: { authorization: basic, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const app = await json<{ data: { uid: string; secret: string } }>(
    await post("oauth_applications", { name: "Bench lists", description: "Reads the lists" }),
    201,
    "create an OAuth application",
  );
  const token = await json<{ access_token: string }>(
    await fetch(`${laurel.origin}/oauth/token`, {
      method: "POST",
      headers: {
        authorization: clientBasicHeader(app.data.uid, app.data.secret),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "issued_badges badge_templates" }),
    }),
    200,
    "client_credentials token",
  );
  const templateIds: string[] = [];
  for (let k = 0; k < TEMPLATES; k++) {
    const tpl = await json<{ data: { id: string } }>(
      await post("badge_templates", {
        name: `Template ${k + 1}`,
        description: `A template of the list benchmark, number ${k + 1}`,
        state: k % 5 === 4 ? "draft" : "active",
        public: k % 3 !== 2,
        skills: [SKILLS[k % 4], SKILLS[(k + 1) % 4]],
        reporting_tags: [TAGS[k % 3]],
      }),
      201,
      "create a template",
    );
    templateIds.push(tpl.data.id);
    if (k % 10 === 7) await json(await post(`badge_templates/${tpl.data.id}/archive`, {}, "PUT"), 200, "archive");
  }
  return { id, templateIds, basic, bearer: `Bearer ${token.access_token}` };
};

/**
 * The organization's badges, one a minute from 2020-01-01, spread over its templates, with
 * UUIDv7-shaped ids in issue order (their random part differs per organization); states cycle
 * pending, accepted, accepted, revoked, rejected; two in three are public.
 */
const generateBadges = async (db: pg.Client, org: Organization, index: number): Promise<void> => {
  for (let from = 1; from <= BADGES; from += CHUNK) {
    const to = Math.min(BADGES, from + CHUNK - 1);
    await db.query(
      `insert into badges (id, organization_id, badge_template_id, state, public, issued_to_first_name,
         issued_to_last_name, recipient_email, recipient_email_key, exclusive, issued_at, evidence,
         suppress_badge_notification_email, revocation_reason, recipient_salt, state_updated_at, created_at, updated_at)
       select (lpad(to_hex((extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(h, 1, 3) || '8' ||
               substr(h, 4, 15))::uuid,
         $1::uuid, ($2::uuid[])[1 + g % ${TEMPLATES}], (array['pending', 'accepted', 'accepted', 'revoked', 'rejected'])[1 + g % 5],
         g % 3 <> 0, 'Bench', 'Mark' || (g % 1000), 'p' || g || '@bench.example', 'p' || g || '@bench.example', false, ts,
         '[]'::jsonb, true, case when g % 5 = 3 then 'Bench' end, 'salt', ts, ts, ts
       from generate_series($3::int, $4::int) g,
         lateral (select timestamptz '2020-01-01' + g * interval '1 minute' as ts, md5($5 || ':' || g) as h) x`,
      [org.id, org.templateIds, from, to, String(index)],
    );
  }
};

// ---------------------------------------------------------------------------------------------
// The request set

interface Planned {
  organization: Organization;
  kind: "badges" | "templates";
  path: string;
  auth: string;
}

const at = (minute: number): string => new Date(Date.UTC(2020, 0, 1) + Math.floor(minute) * 60_000).toISOString();

const query = (parts: Record<string, string | number>): string => {
  const entries = Object.entries(parts).filter(([, v]) => v !== "");
  return entries.length === 0 ? "" : `?${entries.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join("&")}`;
};

/** One random list URL of one organization (duplicates are removed by the caller). */
const candidate = (rng: ReturnType<typeof seeded>, orgs: Organization[], kind: Planned["kind"]): Planned => {
  const organization = rng.pick(orgs);
  const auth = rng.next() < 0.5 ? organization.basic : organization.bearer;
  const base = `/v1/organizations/${organization.id}`;
  if (kind === "badges") {
    const filter = rng.pick([
      "",
      "state::accepted",
      "state::pending",
      "state::revoked",
      "state::rejected",
      "state::pending,accepted",
      "public::true",
      "public::false",
      `badge_template_id::${rng.pick(organization.templateIds)}`,
      `issued_at_min::${at(BADGES / 4)}`,
      `issued_at_max::${at((BADGES * 3) / 4)}`,
      `state::accepted|issued_at_min::${at(BADGES / 4)}`,
      "state::pending|public::true",
    ]);
    const sort = rng.pick([
      "",
      "-issued_at",
      "issued_at",
      "-created_at",
      "updated_at",
      "-updated_at",
      "issued_to_last_name",
    ]);
    const per = rng.pick([25, 50, 50, 100]);
    const page = 1 + Math.floor(rng.next() * 20);
    return { organization, auth, kind: "badges", path: `${base}/badges${query({ filter, sort, page, per })}` };
  }
  const filter = rng.pick([
    "",
    "state::active",
    "public::true",
    `skills::${rng.pick(SKILLS)}`,
    `reporting_tags::${rng.pick(TAGS)}`,
    "query::Template 1",
    "state::active|public::true",
  ]);
  const sort = rng.pick(["", "name", "-name", "-created_at", "updated_at", "badges_count", "-badges_count"]);
  const per = rng.pick([2, 5, 10]);
  const page = 1 + Math.floor(rng.next() * Math.min(20, Math.ceil(TEMPLATES / per)));
  return {
    organization,
    auth,
    kind: "templates",
    path: `${base}/badge_templates${query({ filter, sort, page, per })}`,
  };
};

// ---------------------------------------------------------------------------------------------
// Capturing the statements Laurel's store runs

interface Recorded {
  text: string;
  values: unknown[];
  /** How many of the read's statements had answered when this one was sent: its group. */
  group: number;
  rows: Row[];
}

/** `?` numbered `$1`, `$2`, ... as adapters/db/sql.ts numbers them (checked against pg's spy). */
const numbered = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** A `Database` over `sql` that records, while `capture.current` is set, each statement it sends. */
const recordingDatabase = (sql: Sql, capture: { current: { statements: Recorded[]; answered: number } | null }) => {
  const note = async <T>(text: string, params: readonly unknown[], send: () => Promise<T[]>): Promise<T[]> => {
    const read = capture.current;
    if (!read) return send();
    const entry: Recorded = { text: numbered(text), values: [...params], group: read.answered, rows: [] };
    read.statements.push(entry);
    try {
      const rows = await send();
      entry.rows = rows as Row[];
      return rows;
    } finally {
      read.answered++;
    }
  };
  const db: Database = {
    ...sql,
    all: <T = Row>(text: string, params: readonly unknown[] = []) => note(text, params, () => sql.all<T>(text, params)),
    one: async <T = Row>(text: string, params: readonly unknown[] = []) =>
      (
        await note(text, params, async () => {
          const row = await sql.one<T>(text, params);
          return row === undefined ? [] : [row];
        })
      )[0],
    ping: async () => true,
    close: () => sql.end(),
  };
  return db;
};

/** What pg's Pool is handed while `seen` is set: the check that the recording is what pg sends. */
const spyOnPool = (seen: { current: Array<{ text: string; values: unknown[] }> | null }): (() => void) => {
  type Query = (this: pg.Pool, ...args: unknown[]) => unknown;
  const prototype = pg.Pool.prototype as unknown as { query: Query };
  const original = prototype.query;
  prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    const config = args[0] as pg.QueryConfig | string;
    if (typeof config === "object") seen.current?.push({ text: config.text, values: [...(config.values ?? [])] });
    return original.apply(this, args);
  };
  return () => {
    prototype.query = original;
  };
};

interface Captured {
  request: CapturedRequest;
  items: number;
}

/**
 * Reads `planned` through Laurel's store twice (the first read fills its count cache, as Laurel's
 * own reads of the checks and warm-up do) and captures the second read's statements.
 */
const captureAll = async (databaseUrl: string, planned: Planned[]): Promise<Map<string, Captured>> => {
  const sql = postgresSql({ url: databaseUrl, max: 10 });
  const capture: { current: { statements: Recorded[]; answered: number } | null } = { current: null };
  const seen: { current: Array<{ text: string; values: unknown[] }> | null } = { current: null };
  const store = postgresBadgeStore(recordingDatabase(sql, capture));
  const restore = spyOnPool(seen);
  const read = async (p: Planned) => {
    if (p.kind === "badges") {
      const q = readListQuery(BADGE_LIST, { url: p.path, ignoredParameters: null });
      const page = pageRequest(q.page, q.per);
      return { page, result: await store.listBadges(p.organization.id, q, page) };
    }
    const q = readListQuery(TEMPLATE_LIST, { url: p.path, ignoredParameters: null });
    const page = pageRequest(q.page, q.per);
    return { page, result: await store.listTemplates(p.organization.id, q, page) };
  };
  const out = new Map<string, Captured>();
  try {
    for (const p of planned) await read(p);
    for (const p of planned) {
      capture.current = { statements: [], answered: 0 };
      seen.current = [];
      const { page, result } = await read(p);
      const statements = capture.current.statements;
      const key = (s: { text: string; values: unknown[] }) => JSON.stringify([s.text, s.values.map(storedValue)]);
      const recordedKeys = statements.map(key).sort();
      const sentKeys = seen.current.map(key).sort();
      if (!isDeepStrictEqual(recordedKeys, sentKeys))
        throw new Error(`${p.path}: the recorded statements differ from those pg was handed`);
      const groups: CapturedStatement[][] = [];
      let seq: number | null = null;
      for (const s of statements) {
        const role = s.text.includes(" offset $")
          ? "page"
          : s.rows[0] && ("n" in s.rows[0] || "seq" in s.rows[0])
            ? "count"
            : "other";
        if (role === "count" && s.rows[0] && "seq" in s.rows[0]) seq = Number(s.rows[0].seq);
        const group = groups[s.group] ?? [];
        groups[s.group] = group;
        group.push({ text: s.text, values: s.values.map(storedValue), role });
      }
      const roles = statements.map((s) => (s.text.includes(" offset $") ? "page" : ""));
      if (roles.filter((r) => r === "page").length !== 1) throw new Error(`${p.path}: not one page statement`);
      out.set(p.path, {
        request: { path: p.path, kind: p.kind, page, groups: groups.filter(Boolean), total: result.total, seq },
        items: result.items.length,
      });
    }
  } finally {
    capture.current = null;
    seen.current = null;
    restore();
    await sql.end();
  }
  return out;
};

// ---------------------------------------------------------------------------------------------
// Load

interface Target {
  origin: string;
  /** Each URL's body length, as checked before timing. */
  bytes: Map<string, number>;
}

interface Measured {
  rps: number;
  p99: number;
  requests: number;
}

/**
 * `connections` workers, each sending the next URL of a shared queue of shuffled rounds of `set`
 * (one still in flight is passed over for the next), for `warmup` then `duration` seconds; counts
 * the requests answered within the measured window. Every answer must be a 200 of the checked length.
 */
const drive = async (
  target: Target,
  set: Planned[],
  settings: { connections: number; duration: number; warmup: number },
  servers: readonly RunningServer[],
): Promise<Measured> => {
  const rng = seeded(7);
  const pool = new Pool(target.origin, { connections: settings.connections, pipelining: 1 });
  const inFlight = new Set<number>();
  let queue: number[] = [];
  let head = 0;
  const take = (): number => {
    if (queue.length - head < set.length) {
      queue = queue.slice(head).concat(rng.shuffled(set.length));
      head = 0;
    }
    for (let j = head; j < queue.length; j++) {
      const i = queue[j] as number;
      if (inFlight.has(i)) continue;
      queue[j] = queue[head] as number;
      queue[head++] = i;
      return i;
    }
    throw new Error("every queued request is in flight");
  };
  const started = performance.now();
  const measuredFrom = started + settings.warmup * 1000;
  const measuredTo = measuredFrom + settings.duration * 1000;
  const latencies: number[] = [];
  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop && performance.now() < measuredTo) {
      const i = take();
      const p = set[i] as Planned;
      inFlight.add(i);
      const t = performance.now();
      let res: Dispatcher.ResponseData;
      let length: number;
      try {
        res = await pool.request({ path: p.path, method: "GET", headers: { authorization: p.auth } });
        length = (await res.body.arrayBuffer()).byteLength;
      } finally {
        inFlight.delete(i);
      }
      const end = performance.now();
      if (res.statusCode !== 200 || length !== target.bytes.get(p.path)) {
        stop = true;
        throw new Error(`${target.origin}${p.path}: ${res.statusCode}, ${length} bytes`);
      }
      if (t >= measuredFrom && end <= measuredTo) latencies.push(end - t);
    }
  };
  try {
    const results = await Promise.allSettled(Array.from({ length: settings.connections }, worker));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    failIfExited(servers);
  } finally {
    await pool.close();
  }
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / settings.duration, p99: percentile(latencies, 99), requests: latencies.length };
};

/** Each URL once from Laurel and from the peer, `width` at a time: statuses, counts and bodies checked. */
const checkAll = async (
  laurelOrigin: string,
  peerOrigin: string,
  set: Planned[],
  captured: Map<string, Captured>,
): Promise<{ laurel: Map<string, number>; peer: Map<string, number>; sameBytes: number }> => {
  const laurel = new Map<string, number>();
  const peer = new Map<string, number>();
  let sameBytes = 0;
  const get = async (url: string, auth: string) => {
    const res = await fetch(url, { headers: { authorization: auth } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
    return text;
  };
  let next = 0;
  const width = 8;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < set.length) {
        const p = set[next++] as Planned;
        const expected = captured.get(p.path) as Captured;
        const fromLaurel = await get(`${laurelOrigin}${p.path}`, p.auth);
        const body = JSON.parse(fromLaurel) as { data: unknown[]; metadata: { total_count: number } };
        if (body.data.length !== expected.items || body.metadata.total_count !== expected.request.total)
          throw new Error(
            `${p.path}: Laurel answered ${body.data.length} items of ${body.metadata.total_count}, the store read ${expected.items} of ${expected.request.total}`,
          );
        const fromPeer = await get(`${peerOrigin}${p.path}`, p.auth);
        if (!isDeepStrictEqual(JSON.parse(fromPeer), body)) throw new Error(`${p.path}: the peer's body differs`);
        if (fromPeer === fromLaurel) sameBytes++;
        laurel.set(p.path, Buffer.byteLength(fromLaurel));
        peer.set(p.path, Buffer.byteLength(fromPeer));
      }
    }),
  );
  return { laurel, peer, sameBytes };
};

// ---------------------------------------------------------------------------------------------

export const variedLists = async (
  started: RunningServer[],
): Promise<{
  laurel_rps: number;
  peer_rps: number;
  ratio: number;
  p99_laurel_ms: number;
  p99_peer_ms: number;
  requests: number;
}> => {
  const settings = settingsFromEnv();
  // Each connection must always find a URL not in flight.
  if (REQUESTS <= settings.connections * 2)
    throw new Error(`BENCH_REAL_REQUESTS must exceed twice BENCH_CONNECTIONS (${settings.connections})`);
  const bench = { name: "real-lists", title: "varied list reads against a pg peer running the same statements" };
  // withBenchLaurel stops every server of the list it is given: it gets this run's own, and
  // `started` (which the process stops on a signal) holds them too while they run.
  const own: RunningServer[] = [];
  const ownFrom = started.length;
  try {
    return await withBenchLaurel(own, bench, async (laurel, databaseUrl) => {
      started.push(laurel.server);
      const now = performance.now();
      const orgs: Organization[] = [];
      for (let i = 0; i < ORGS; i++) orgs.push(await makeOrganization(laurel, i));
      log(
        `${ORGS} organizations with ${TEMPLATES} templates each in ${((performance.now() - now) / 1000).toFixed(1)} s`,
      );
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const t0 = performance.now();
        for (const [i, org] of orgs.entries()) await generateBadges(db, org, i);
        // As autovacuum would soon after a bulk load: statistics, and the visibility map the lists'
        // index-only scans rely on.
        await db.query("vacuum analyze badges");
        await db.query("vacuum analyze badge_templates");
        log(
          `${(ORGS * BADGES).toLocaleString("en-US")} badges generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
        );
      } finally {
        await db.end();
      }

      // Distinct URLs with items, drawn until each kind has its share of REQUESTS.
      const rng = seeded(52);
      const set: Planned[] = [];
      const captured = new Map<string, Captured>();
      const tried = new Set<string>();
      const wanted = {
        badges: Math.round(REQUESTS * BADGE_SHARE),
        templates: REQUESTS - Math.round(REQUESTS * BADGE_SHARE),
      };
      const t1 = performance.now();
      for (let round = 0; wanted.badges + wanted.templates > 0; round++) {
        if (round > 50) throw new Error(`only ${set.length} distinct non-empty list URLs found`);
        const batch: Planned[] = [];
        for (const kind of ["badges", "templates"] as const) {
          for (let n = 0; n < wanted[kind]; ) {
            const p = candidate(rng, orgs, kind);
            if (tried.has(p.path)) continue;
            tried.add(p.path);
            batch.push(p);
            n++;
          }
        }
        for (const [path, c] of await captureAll(databaseUrl, batch)) {
          if (c.items === 0) continue;
          const p = batch.find((b) => b.path === path) as Planned;
          captured.set(path, c);
          set.push(p);
          wanted[p.kind]--;
        }
      }
      // The set in a shuffled order, so the checks and the first round mix kinds and organizations.
      const order = rng.shuffled(set.length);
      set.splice(0, set.length, ...order.map((i) => set[i] as Planned));
      const badgeLists = set.filter((p) => p.kind === "badges").length;
      const bearer = set.filter((p) => p.auth.startsWith("Bearer ")).length;
      log(
        `${set.length} distinct URLs (${badgeLists} badge lists, ${set.length - badgeLists} template lists; ${bearer} Bearer, ${set.length - bearer} Basic), statements captured in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
      );

      const dir = mkdtempSync(join(tmpdir(), "laurel-bench-list-statements-"));
      try {
        const file = join(dir, "statements.json");
        const content: CapturedFile = { origin: laurel.origin, requests: [...captured.values()].map((c) => c.request) };
        writeFileSync(file, JSON.stringify(content));
        const peer = await startPeer("list statements (pg)", "list_statement_server.ts", {
          DATABASE_URL: databaseUrl,
          STATEMENTS: file,
        });
        own.push(peer);
        started.push(peer);

        const checked = await checkAll(laurel.origin, peer.url, set, captured);
        log(
          `checked: every URL answered 200 by Laurel with the store's item count and total; the peer's bodies are the same JSON (${checked.sameBytes} of ${set.length} byte for byte)`,
        );
        log(
          `- ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s each, Laurel then the peer`,
        );
        const l = await drive({ origin: laurel.origin, bytes: checked.laurel }, set, settings, [laurel.server, peer]);
        log(
          `- Laurel: ${Math.round(l.rps).toLocaleString("en-US")} req/s, p99 ${l.p99.toFixed(2)} ms (${l.requests} requests)`,
        );
        const p = await drive({ origin: peer.url, bytes: checked.peer }, set, settings, [laurel.server, peer]);
        log(
          `- peer:   ${Math.round(p.rps).toLocaleString("en-US")} req/s, p99 ${p.p99.toFixed(2)} ms (${p.requests} requests)`,
        );
        const ratio = l.rps / p.rps;
        log(
          `Laurel / peer: ${ratio.toFixed(2)} (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? "PASS" : "MISS"})`,
        );
        return {
          laurel_rps: l.rps,
          peer_rps: p.rps,
          ratio,
          p99_laurel_ms: l.p99,
          p99_peer_ms: p.p99,
          requests: set.length,
        };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  } finally {
    started.splice(ownFrom);
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runBenchProcess(async (started) => ((await variedLists(started)).ratio >= TARGET_RATIO ? 0 : 1));
}
