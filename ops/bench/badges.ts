// Benchmark of badges (badges and hosted Open Badges records), side by side in one run:
//   1. `GET /obi/v2/badge_assertions/<id>` on Laurel against a bare node:http server sending the same
//      bytes and headers: plain GETs (200) and conditional GETs (If-None-Match, 304); target >= 50%.
//   2. Badge issue throughput (`POST /organizations/<org>/badges`, 20 connections, a new recipient per
//      request, each writing its badge.created event and, after the response, the pending-badge
//      notification and its event) against single-row PostgreSQL INSERTs from 20 clients; target >= 20%.
//
// Run: BENCH_ONLY=badges npm run bench, or npx node ops/bench/badges.ts once `bash ops/prepare.sh test`
// has PostgreSQL running. A fresh database is created beside the one named by BENCH_DATABASE_URL,
// DATABASE_URL or TEST_DATABASE_URL (default postgres://laurel:laurel@127.0.0.1:5432/laurel) and
// dropped afterwards; NATS_URL is used when set, else a nats-server of its own is started.
// Env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_CONNECTIONS (GETs, default 50),
// BENCH_WRITE_DOCS=0|1 (default: write the `badges` section of docs/benchmarks.md only on a
// full-length run: >= 10 s measured, with a warm-up), BENCH_VERBOSE=1 (echo the servers' output).

import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";
import { benchAdminUrl, createBenchDatabase, type Laurel, log, startLaurelServer } from "./laurel_process.ts";
import {
  type BenchSettings,
  basicHeader,
  formatMs,
  formatRps,
  type LoadResult,
  laurelEntry,
  machineInfo,
  markdownTable,
  measure,
  RESULT_HEADERS,
  type RunningServer,
  resultRow,
  settingsFromEnv,
  startPeer,
  writeDocsSection,
} from "./lib.ts";

const ISSUE_CONNECTIONS = 20;
const INSERT_CLIENTS = 20;
const settings = settingsFromEnv();
const started: RunningServer[] = [];

interface Row {
  label: string;
  result: LoadResult;
  /** Conditional GETs: every answer is a 304, which autocannon counts as non-2xx. */
  expect304?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Services: a fresh PostgreSQL database, a nats-server, Laurel's API server as its own process

const adminUrl = benchAdminUrl();

const createDatabase = () => createBenchDatabase(adminUrl);
const startLaurel = async (databaseUrl: string, natsUrl: string, dataDir: string): Promise<Laurel> => {
  const laurel = await startLaurelServer(databaseUrl, natsUrl, dataDir);
  started.push(laurel.server);
  return laurel;
};

const json = async (url: string, init: RequestInit): Promise<Record<string, unknown>> => {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
};

const trpc = (laurel: Laurel, path: string, input: unknown) =>
  json(`${laurel.adminOrigin}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${laurel.adminToken}` },
    body: JSON.stringify(input),
  }).then((r) => (r.result as { data: Record<string, unknown> }).data);

interface Fixture {
  organizationId: string;
  auth: string;
  templateId: string;
  assertionUrl: string;
  body: Buffer;
  etag: string;
}

/** An organization, an active template, one accepted badge and its hosted assertion. */
const setup = async (laurel: Laurel): Promise<Fixture> => {
  const created = await trpc(laurel, "organizations.create", {
    name: "Bench Org",
    email: "bench@example.org",
    website_url: "https://bench.example",
  });
  const organizationId = (created.organization as { id: string }).id;
  const auth = basicHeader((created.authorization_token as { token: string }).token, "");
  const api = `${laurel.origin}/v1/organizations/${organizationId}`;
  const headers = { authorization: auth, "content-type": "application/json" };
  const template = await json(`${api}/badge_templates`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "Benchmarking",
      description: "Measures things carefully",
      state: "active",
      skills: ["bench"],
    }),
  });
  const templateId = (template.data as { id: string }).id;
  const badge = await json(`${api}/badges`, {
    method: "POST",
    headers,
    body: JSON.stringify(issueBody(templateId, "first@bench.example")),
  });
  const badgeId = (badge.data as { id: string }).id;
  await trpc(laurel, "badges.accept", { badge_id: badgeId });
  const assertionUrl = `${laurel.origin}/v1/obi/v2/badge_assertions/${badgeId}`;
  const res = await fetch(assertionUrl);
  const body = Buffer.from(await res.arrayBuffer());
  const etag = res.headers.get("etag");
  if (res.status !== 200 || !etag) throw new Error(`assertion: ${res.status} ${body.toString()}`);
  return { organizationId, auth, templateId, assertionUrl, body, etag };
};

const issueBody = (templateId: string, email: string) => ({
  badge_template_id: templateId,
  issued_at: "2024-03-01T10:00:00+01:00",
  issued_to_first_name: "Bench",
  issued_to_last_name: "Mark",
  recipient_email: email,
});

// ---------------------------------------------------------------------------------------------
// Runs

const run = async (
  label: string,
  request: Parameters<typeof measure>[0],
  server: RunningServer,
  s: BenchSettings,
): Promise<Row> => {
  log(`- ${label}: ${s.warmup} s warm-up + ${s.duration} s, ${s.connections} connections ...`);
  const result = await measure(request, s, server.pid);
  log(
    `  ${formatRps(result.rps)} req/s, p50 ${formatMs(result.p50)} ms, p99 ${formatMs(result.p99)} ms, non-2xx ${result.non2xx}`,
  );
  return { label, result, expect304: request.headers?.["if-none-match"] !== undefined };
};

/** A fresh recipient per request, so every POST issues a new badge. */
const runIssue = async (laurel: Laurel, fx: Fixture): Promise<Row> => {
  let n = 0;
  return run(
    `Laurel POST badges (${ISSUE_CONNECTIONS} conns)`,
    {
      url: `${laurel.origin}/v1/organizations/${fx.organizationId}/badges`,
      method: "POST",
      headers: { authorization: fx.auth, "content-type": "application/json" },
      nextBody: () => JSON.stringify(issueBody(fx.templateId, `earner${n++}@bench.example`)),
    },
    laurel.server,
    { ...settings, connections: ISSUE_CONNECTIONS },
  );
};

/** Single-row INSERTs (autocommit) from 20 clients, each waiting for its previous one. */
const runInserts = async (databaseUrl: string): Promise<Row> => {
  log(
    `- PostgreSQL single-row INSERT: ${settings.warmup} s warm-up + ${settings.duration} s, ${INSERT_CLIENTS} clients ...`,
  );
  const setupClient = new pg.Client({ connectionString: databaseUrl });
  await setupClient.connect();
  await setupClient.query(
    "create table bench_inserts (id uuid primary key, organization_id uuid not null, payload jsonb not null, created_at timestamptz(3) not null)",
  );
  await setupClient.end();
  const clients = await Promise.all(
    Array.from({ length: INSERT_CLIENTS }, async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      return c;
    }),
  );
  const org = randomUUID();
  const payload = JSON.stringify({ name: "Bench Mark", email: "earner@bench.example", state: "pending" });
  const loop = async (seconds: number, latencies: number[] | null): Promise<number> => {
    const until = performance.now() + seconds * 1000;
    let count = 0;
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < until) {
          const t = performance.now();
          await c.query("insert into bench_inserts values ($1, $2, $3, now())", [randomUUID(), org, payload]);
          latencies?.push(performance.now() - t);
          count++;
        }
      }),
    );
    return count;
  };
  try {
    if (settings.warmup > 0) await loop(settings.warmup, null);
    const latencies: number[] = [];
    const t0 = performance.now();
    const count = await loop(settings.duration, latencies);
    const wall = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
    const result: LoadResult = {
      rps: count / wall,
      p50: Number(pct(0.5).toFixed(2)),
      p99: Number(pct(0.99).toFixed(2)),
      total: count,
      non2xx: 0,
      errors: 0,
      bytesPerSecond: 0,
      serverCores: undefined,
      otherCores: undefined,
      generatorCores: 0,
    };
    log(`  ${formatRps(result.rps)} inserts/s, p50 ${result.p50} ms, p99 ${result.p99} ms`);
    return { label: `PostgreSQL INSERT (${INSERT_CLIENTS} clients)`, result };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
};

/** What the issue run wrote: badges, and events by kind (the outbox rows). */
const countWrites = async (databaseUrl: string): Promise<{ badges: number; events: Record<string, number> }> => {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const badges = Number((await c.query("select count(*) as n from badges")).rows[0].n);
    const events: Record<string, number> = {};
    for (const r of (await c.query("select event_type, count(*) as n from events group by 1 order by 1")).rows) {
      events[r.event_type as string] = Number(r.n);
    }
    return { badges, events };
  } finally {
    await c.end();
  }
};

// ---------------------------------------------------------------------------------------------

const main = async (): Promise<number> => {
  const machine = machineInfo();
  log("# Laurel benchmark: hosted assertions and badge issuing");
  log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, Node ${machine.node}`);
  const database = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-badges-"));
  let nats: LocalNats | undefined;
  const getRows: Row[] = [];
  const issueRows: Row[] = [];
  let writes: Awaited<ReturnType<typeof countWrites>> | undefined;
  let assertionBytes = 0;
  try {
    if (!process.env.NATS_URL) nats = await startLocalNats({ storeDir: join(dataDir, "nats") });
    const natsUrl = process.env.NATS_URL || (nats as LocalNats).url;
    const laurel = await startLaurel(database.url, natsUrl, dataDir);
    const fx = await setup(laurel);
    assertionBytes = fx.body.length;
    log(`Laurel on ${laurel.origin}, PostgreSQL ${new URL(database.url).host}; assertion ${fx.body.length} bytes`);

    log("\n## Hosted assertion GET");
    const conditional = { "if-none-match": fx.etag };
    getRows.push(await run("Laurel GET assertion (200)", { url: fx.assertionUrl }, laurel.server, settings));
    getRows.push(
      await run(
        "Laurel GET assertion, If-None-Match (304)",
        { url: fx.assertionUrl, headers: conditional },
        laurel.server,
        settings,
      ),
    );
    const bare = await startPeer("bare node:http", "bare_assertion_server.ts", {
      BODY_BASE64: fx.body.toString("base64"),
      ETAG: fx.etag,
    });
    started.push(bare);
    const check = await fetch(`${bare.url}/a`);
    if (Buffer.from(await check.arrayBuffer()).compare(fx.body) !== 0)
      throw new Error("the bare server sends other bytes");
    getRows.push(await run("bare node:http, same bytes (200)", { url: `${bare.url}/a` }, bare, settings));
    getRows.push(
      await run("bare node:http, If-None-Match (304)", { url: `${bare.url}/a`, headers: conditional }, bare, settings),
    );
    await bare.stop();

    log("\n## Badge issue");
    const before = await countWrites(database.url);
    issueRows.push(await runIssue(laurel, fx));
    await new Promise((r) => setTimeout(r, 2_000)); // notifications are written after the responses
    const after = await countWrites(database.url);
    writes = {
      badges: after.badges - before.badges,
      events: Object.fromEntries(Object.entries(after.events).map(([k, v]) => [k, v - (before.events[k] ?? 0)])),
    };
    log(`  written: ${writes.badges} badges; events ${JSON.stringify(writes.events)}`);
    await laurel.server.stop();
    issueRows.push(await runInserts(database.url));
  } finally {
    for (const s of started.reverse()) await s.stop();
    await nats?.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const rps = (rows: Row[], prefix: string) => rows.find((r) => r.label.startsWith(prefix))?.result.rps ?? 0;
  const ratios: [string, number, number][] = [
    [
      "assertion GET (200), Laurel / bare",
      rps(getRows, "Laurel GET assertion (200)") / rps(getRows, "bare node:http, same bytes"),
      0.5,
    ],
    [
      "assertion GET (304), Laurel / bare",
      rps(getRows, "Laurel GET assertion, If") / rps(getRows, "bare node:http, If"),
      0.5,
    ],
    ["badge issue / PostgreSQL single-row INSERT", rps(issueRows, "Laurel POST") / rps(issueRows, "PostgreSQL"), 0.2],
  ];
  const ratioTable = markdownTable(
    ["ratio", "measured", "target", "result"],
    ratios.map(([name, value, goal]) => [
      name,
      `${(value * 100).toFixed(0)}%`,
      `>= ${goal * 100}%`,
      value >= goal ? "met" : "NOT met",
    ]),
  );
  const issueNote = writes
    ? `The issue run wrote ${writes.badges} badges and ${Object.entries(writes.events)
        .map(([k, v]) => `${v} ${k}`)
        .join(", ")} (no SMTP_URL: notifications go to the log).`
    : "";
  const section = [
    "## Hosted assertions and badge issuing",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx node ops/bench/badges.ts\` on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ` +
      `${settings.warmup} s warm-up then ${settings.duration} s per row; Laurel (${laurelEntry("server")}) on PostgreSQL, one process.`,
    "",
    `### GET /obi/v2/badge_assertions/<id> (${assertionBytes} bytes), ${settings.connections} connections`,
    "",
    markdownTable(
      RESULT_HEADERS,
      getRows.map((r) => resultRow(r.label, r.result)),
    ),
    "",
    "(The If-None-Match rows count their 304s as non-2xx: every answer there is a 304.)",
    "",
    "### Issuing badges against single-row INSERTs",
    "",
    markdownTable(
      RESULT_HEADERS,
      issueRows.map((r) => resultRow(r.label, r.result)),
    ),
    "",
    issueNote,
    "",
    ratioTable,
  ].join("\n");
  log(`\n${section}\n`);
  const fullRun = settings.duration >= 10 && settings.warmup > 0;
  const write = process.env.BENCH_WRITE_DOCS === "1" || (process.env.BENCH_WRITE_DOCS !== "0" && fullRun);
  log(
    write
      ? `Wrote ${writeDocsSection("badges", section)}`
      : "docs/benchmarks.md not written (BENCH_WRITE_DOCS=0, or a short run; BENCH_WRITE_DOCS=1 forces it).",
  );
  const bad = [...getRows, ...issueRows].filter(
    (r) => r.result.errors > 0 || (r.expect304 ? r.result.non2xx < 0.99 * r.result.total : r.result.non2xx > 0),
  );
  for (const r of bad)
    log(`INVALID RUN: ${r.label}: ${r.result.non2xx} non-2xx of ${r.result.total}, ${r.result.errors} errors`);
  return bad.length > 0 ? 1 : 0;
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
