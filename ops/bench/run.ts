// `npm run bench` ("Foundation"): Laurel's token endpoint against oidc-provider (opaque and
// JWT) and a minimal jose token server; an authenticated 50-item list GET (Basic and Bearer)
// against a bare server sending the same number of bytes; Laurel's resident memory afterwards.
//
// Env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_CONNECTIONS (50),
// BENCH_ONLY_PEERS=1 (skip Laurel), BENCH_BODY_BYTES (bare body size when Laurel is skipped),
// BENCH_WRITE_DOCS=0|1 (default: write docs/benchmarks.md only on a full-length run with Laurel,
// i.e. >= 10 s measured, a warm-up, 50 connections), BENCH_VERBOSE=1
// (echo the servers' output). Laurel's start command and data set: ops/bench/laurel_setup.ts.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LaurelFixture, laurelLaunch, setupLaurel } from "./laurel_setup.ts";
import {
  basicHeader,
  clientBasicHeader,
  cpuBusy,
  freePort,
  type LoadRequest,
  type LoadResult,
  machineInfo,
  markdownTable,
  measure,
  mib,
  RESULT_HEADERS,
  type RunningServer,
  resultRow,
  rssKiB,
  settingsFromEnv,
  startPeer,
  startServer,
  treeRssKiB,
  writeDocsSection,
} from "./lib.ts";

const SECTION = "foundation";
const PEER_SCOPE = "issued_badges";
const PEER_CLIENT_ID = "bench-client";
const PEER_CLIENT_SECRET = randomBytes(32).toString("base64url");
const FORM = "application/x-www-form-urlencoded";

interface Row {
  label: string;
  result: LoadResult;
  /** Server RSS (KiB) right after its measured run. */
  rss: number | undefined;
}

interface Target {
  name: string;
  measured: number;
  goal: number;
}

const settings = settingsFromEnv();
const onlyPeers = process.env.BENCH_ONLY_PEERS === "1";
const machine = machineInfo();
const command = commandLine();
const started: RunningServer[] = [];

function commandLine(): string {
  const overrides = Object.entries(process.env)
    .filter(([key]) => key.startsWith("BENCH_"))
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  // `npx` sets npm_lifecycle_event too ("npx"); only a package.json script is worth naming.
  const event = process.env.npm_lifecycle_event;
  const base = event !== undefined && event !== "npx" ? `npm run ${event}` : "npx node ops/bench/run.ts";
  return [...overrides, base].join(" ");
}

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Checks made once before each measured run, so a benchmark of 401s cannot pass unnoticed.

async function fetchToken(tokenUrl: string, clientId: string, clientSecret: string, scope: string): Promise<string> {
  const response = await fetch(tokenUrl, {
    method: "POST",
    headers: { authorization: clientBasicHeader(clientId, clientSecret), "content-type": FORM },
    body: tokenBody(scope),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${tokenUrl}: expected 200, got ${response.status}: ${text}`);
  const parsed: unknown = JSON.parse(text);
  const token =
    typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>).access_token : undefined;
  const type =
    typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>).token_type : undefined;
  if (typeof token !== "string" || typeof type !== "string" || type.toLowerCase() !== "bearer") {
    throw new Error(`${tokenUrl}: no bearer access_token in ${text}`);
  }
  if (response.headers.get("cache-control") !== "no-store")
    log(`  note: ${tokenUrl} answers without Cache-Control: no-store`);
  return token;
}

function tokenBody(scope: string): string {
  return new URLSearchParams({ grant_type: "client_credentials", scope }).toString();
}

const isJwt = (token: string): boolean => token.split(".").length === 3;

async function fetchList(url: string, authorization: string): Promise<{ bytes: number; items: number }> {
  const response = await fetch(url, { headers: { authorization } });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`GET ${url}: expected 200, got ${response.status}: ${body.toString()}`);
  const parsed: unknown = JSON.parse(body.toString("utf8"));
  const data = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>).data : undefined;
  return { bytes: body.length, items: Array.isArray(data) ? data.length : -1 };
}

// ---------------------------------------------------------------------------------------------
// The runs

function tokenRequest(url: string, clientId: string, clientSecret: string, scope: string): LoadRequest {
  return {
    url: `${url}/oauth/token`,
    method: "POST",
    headers: { authorization: clientBasicHeader(clientId, clientSecret), "content-type": FORM },
    body: tokenBody(scope),
  };
}

async function runMeasured(label: string, server: RunningServer, request: LoadRequest): Promise<Row> {
  log(`- ${label}: ${settings.warmup} s warm-up + ${settings.duration} s ...`);
  const result = await measure(request, settings, server.pid);
  const rss = rssKiB(server.pid);
  log(
    `  ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, ` +
      `errors ${result.errors}, RSS ${mib(rss)}, server CPU ${result.serverCores?.toFixed(2)} cores, ` +
      `load generator ${result.generatorCores.toFixed(2)} cores, rest of machine ${result.otherCores?.toFixed(2)} cores`,
  );
  if ((result.otherCores ?? 0) > 0.3) log("  WARNING: other processes competed for the CPU during this run");
  return { label, result, rss };
}

async function benchPeerToken(
  label: string,
  file: string,
  env: Record<string, string>,
  expectJwt: boolean,
): Promise<Row> {
  const peer = await startPeer(label, file, { ...env, CLIENT_ID: PEER_CLIENT_ID, CLIENT_SECRET: PEER_CLIENT_SECRET });
  started.push(peer);
  try {
    const token = await fetchToken(`${peer.url}/oauth/token`, PEER_CLIENT_ID, PEER_CLIENT_SECRET, PEER_SCOPE);
    if (isJwt(token) !== expectJwt)
      throw new Error(`${label}: expected a ${expectJwt ? "JWT" : "opaque"} token, got ${token}`);
    return await runMeasured(label, peer, tokenRequest(peer.url, PEER_CLIENT_ID, PEER_CLIENT_SECRET, PEER_SCOPE));
  } finally {
    await peer.stop();
  }
}

interface LaurelRun {
  server: RunningServer;
  origin: string;
  fixture: LaurelFixture;
  dataDir: string;
  rssAfterSetup: number | undefined;
}

async function startLaurel(): Promise<LaurelRun> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-"));
  const adminToken = randomBytes(32).toString("base64url");
  const launch = laurelLaunch({ port, dataDir, adminToken });
  log(`Starting Laurel: ${launch.command} ${launch.args.join(" ")} (PORT=${port}, DATA_DIR=${dataDir})`);
  let server: RunningServer | undefined;
  try {
    server = await startServer({
      name: "laurel",
      command: launch.command,
      args: launch.args,
      env: launch.env,
      ...(launch.ready === undefined ? {} : { ready: launch.ready }),
      ...(launch.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: launch.readyTimeoutMs }),
    });
    started.push(server);
    const origin = `http://127.0.0.1:${port}`;
    const fixture = await setupLaurel(origin, { apiUrl: `${origin}/v1`, authUrl: origin, adminToken, dataDir });
    return { server, origin, fixture, dataDir, rssAfterSetup: rssKiB(server.pid) };
  } catch (error) {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

function databaseLabel(): string {
  const raw = process.env.DATABASE_URL;
  if (raw === undefined || raw === "") return "embedded PGlite (DATABASE_URL unset)";
  try {
    const url = new URL(raw);
    return `PostgreSQL at ${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}`;
  } catch {
    return "PostgreSQL (DATABASE_URL)";
  }
}

// ---------------------------------------------------------------------------------------------
// Report

function ratioRows(targets: readonly Target[]): string[][] {
  return targets.map((target) => {
    const ratio = target.measured;
    return [target.name, `${ratio.toFixed(2)}x`, `>= ${target.goal}x`, ratio >= target.goal ? "met" : "NOT met"];
  });
}

function tableWithRss(rows: readonly Row[]): string {
  return markdownTable(
    [...RESULT_HEADERS, "server RSS after"],
    rows.map((row) => [...resultRow(row.label, row.result), mib(row.rss)]),
  );
}

function renderSection(input: {
  tokenRows: Row[];
  listRows: Row[];
  listBytes: number;
  listNote: string;
  memoryRows: string[][];
  targets: Target[];
  idleBusy: number;
}): string {
  const date = new Date().toISOString().slice(0, 10);
  return [
    "## Foundation: token endpoint, authenticated list, memory",
    "",
    `Measured ${date} with \`${command}\` on ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, ` +
      `Node ${machine.node}, ${machine.os}.`,
    `autocannon runs in the benchmark process with ${settings.connections} connections, ` +
      `${settings.warmup} s warm-up then ${settings.duration} s measured per row; every server is one Node process ` +
      `of its own. Laurel's database: ${onlyPeers ? "not run" : databaseLabel()}. ` +
      `Other processes used ${input.idleBusy.toFixed(2)} cores just before the run. "Rest of machine" is the CPU ` +
      "used during each row by everything but the server and the load generator (other programs, kernel threads); " +
      "a load generator near 1.00 core means that row is limited by autocannon (single-threaded), not by the server.",
    "",
    "### Token issuance",
    "",
    "`POST /oauth/token`, HTTP Basic client authentication, body `grant_type=client_credentials&scope=<one scope>`.",
    "",
    tableWithRss(input.tokenRows),
    "",
    "### Authenticated GET of a 50-item list",
    "",
    `${input.listNote} Body size: ${input.listBytes} bytes.`,
    "",
    tableWithRss(input.listRows),
    "",
    "### Memory",
    "",
    markdownTable(["process", "resident memory"], input.memoryRows),
    "",
    "### Against the targets",
    "",
    input.targets.length > 0
      ? markdownTable(["ratio", "measured", "target", "result"], ratioRows(input.targets))
      : "Laurel was not measured in this run (BENCH_ONLY_PEERS=1): no ratios yet.",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  log("# Laurel benchmark: foundation");
  log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, Node ${machine.node}, ${machine.os}`);
  log(`command: ${command}`);
  log(`settings: ${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.duration} s measured`);
  if (onlyPeers) log("BENCH_ONLY_PEERS=1: Laurel is not started; only the comparison servers are measured.");
  const idleBusy = await cpuBusy(2000);
  if (idleBusy > 0.1) {
    log(
      `WARNING: other processes keep ${idleBusy.toFixed(2)} cores busy before the benchmark; figures will be low and noisy.`,
    );
  }
  log("");

  let laurel: LaurelRun | undefined;
  const tokenRows: Row[] = [];
  const listRows: Row[] = [];
  const memoryRows: string[][] = [];
  const targets: Target[] = [];
  let listBytes = positiveInt(process.env.BENCH_BODY_BYTES, 20_000);
  let listNote = "Laurel not measured (BENCH_ONLY_PEERS=1); the bare server sends a realistic 50-item envelope.";

  try {
    if (!onlyPeers) laurel = await startLaurel();

    log("## Token issuance");
    if (laurel !== undefined) {
      const { fixture, origin, server } = laurel;
      const token = await fetchToken(`${origin}/oauth/token`, fixture.clientId, fixture.clientSecret, fixture.scope);
      if (!isJwt(token)) throw new Error(`Laurel: expected a JWT access token, got ${token}`);
      tokenRows.push(
        await runMeasured(
          "Laurel (EdDSA JWT)",
          server,
          tokenRequest(origin, fixture.clientId, fixture.clientSecret, fixture.scope),
        ),
      );
    }
    tokenRows.push(await benchPeerToken("oidc-provider 9, opaque", "oidc_provider.ts", { FORMAT: "opaque" }, false));
    tokenRows.push(await benchPeerToken("oidc-provider 9, JWT (EdDSA)", "oidc_provider.ts", { FORMAT: "jwt" }, true));
    tokenRows.push(
      await benchPeerToken("node:http + jose (EdDSA JWT)", "jose_token_server.ts", { SCOPES: PEER_SCOPE }, true),
    );

    log("");
    log("## Authenticated GET of a 50-item list");
    if (laurel !== undefined) {
      const { fixture, origin, server } = laurel;
      const listUrl = `${origin}${fixture.listPath}`;
      const basic = basicHeader(fixture.basicToken, "");
      const bearer = `Bearer ${await fetchToken(`${origin}/oauth/token`, fixture.clientId, fixture.clientSecret, fixture.scope)}`;
      await fetchList(listUrl, basic); // first use sets last_used_at, which may change the body size
      const viaBasic = await fetchList(listUrl, basic);
      const viaBearer = await fetchList(listUrl, bearer);
      if (viaBasic.items !== 50) log(`  warning: ${fixture.listPath} returned ${viaBasic.items} items, not 50`);
      listBytes = viaBasic.bytes;
      listNote =
        `\`GET ${fixture.listPath.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, "<org>")}\` from the database, ` +
        `${viaBasic.items} items, Basic (authorization token) and Bearer (JWT from the token endpoint, scope ` +
        `\`${fixture.scope}\`); the bare server sends a precomputed body of the same size.`;
      log(
        `  Laurel list body: ${viaBasic.bytes} bytes (Basic), ${viaBearer.bytes} bytes (Bearer), ${viaBasic.items} items`,
      );
      listRows.push(await runMeasured("Laurel, Basic", server, { url: listUrl, headers: { authorization: basic } }));
      listRows.push(
        await runMeasured("Laurel, Bearer JWT", server, { url: listUrl, headers: { authorization: bearer } }),
      );
    }
    const bare = await startPeer("bare node:http", "bare_list_server.ts", { BODY_BYTES: String(listBytes) });
    started.push(bare);
    try {
      const check = await fetchList(`${bare.url}/list`, "none");
      if (check.bytes !== listBytes) throw new Error(`bare server sent ${check.bytes} bytes, expected ${listBytes}`);
      listRows.push(await runMeasured("bare node:http, same body", bare, { url: `${bare.url}/list` }));
    } finally {
      await bare.stop();
    }

    if (laurel !== undefined) {
      const after = rssKiB(laurel.server.pid);
      const tree = treeRssKiB(laurel.server.pid);
      memoryRows.push(["Laurel API server, after start and setup", mib(laurel.rssAfterSetup)]);
      memoryRows.push(["Laurel API server, after all runs", mib(after)]);
      if (tree !== undefined && after !== undefined && tree !== after) {
        // e.g. a helper process a TypeScript loader starts, when the server runs under one
        memoryRows.push(["Laurel API server with its child processes, after all runs", mib(tree)]);
      }
    }
    for (const row of [...tokenRows, ...listRows]) {
      if (!row.label.startsWith("Laurel")) memoryRows.push([`${row.label}, after its run`, mib(row.rss)]);
    }
  } finally {
    for (const server of started.reverse()) await server.stop();
    if (laurel !== undefined) rmSync(laurel.dataDir, { recursive: true, force: true });
  }

  const rps = (rows: Row[], label: string): number | undefined => rows.find((row) => row.label === label)?.result.rps;
  const laurelToken = rps(tokenRows, "Laurel (EdDSA JWT)");
  const opaque = rps(tokenRows, "oidc-provider 9, opaque");
  const oidcJwt = rps(tokenRows, "oidc-provider 9, JWT (EdDSA)");
  const jose = rps(tokenRows, "node:http + jose (EdDSA JWT)");
  const bareRps = rps(listRows, "bare node:http, same body");
  const listBasic = rps(listRows, "Laurel, Basic");
  const listBearer = rps(listRows, "Laurel, Bearer JWT");
  const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined || b === undefined || b === 0 ? undefined : a / b;
  const addTarget = (name: string, measured: number | undefined, goal: number): void => {
    if (measured !== undefined) targets.push({ name, measured, goal });
  };
  addTarget("Laurel token / oidc-provider opaque", ratio(laurelToken, opaque), 1.3);
  addTarget("Laurel token / node:http + jose", ratio(laurelToken, jose), 0.75);
  addTarget("Laurel list, Basic / bare server", ratio(listBasic, bareRps), 0.5);
  addTarget("Laurel list, Bearer / bare server", ratio(listBearer, bareRps), 0.5);

  log("");
  log("## Results");
  log("");
  log(`Token issuance (POST /oauth/token, Basic, one scope):\n\n${tableWithRss(tokenRows)}\n`);
  log(`Authenticated GET of a 50-item list (${listBytes} bytes):\n\n${tableWithRss(listRows)}\n`);
  if (memoryRows.length > 0) log(`Memory:\n\n${markdownTable(["process", "resident memory"], memoryRows)}\n`);
  const peerRatios = ratio(oidcJwt, opaque);
  if (peerRatios !== undefined) log(`oidc-provider JWT / opaque: ${peerRatios.toFixed(2)}x`);
  const joseVsOpaque = ratio(jose, opaque);
  if (joseVsOpaque !== undefined) log(`node:http + jose / oidc-provider opaque: ${joseVsOpaque.toFixed(2)}x`);
  if (targets.length > 0) {
    log(`\nAgainst the targets:\n\n${markdownTable(["ratio", "measured", "target", "result"], ratioRows(targets))}\n`);
  }

  const invalid = [...tokenRows, ...listRows].filter((row) => row.result.non2xx > 0 || row.result.errors > 0);
  for (const row of invalid) {
    log(`INVALID RUN: ${row.label} had ${row.result.non2xx} non-2xx responses and ${row.result.errors} errors`);
  }

  // A quick or partial run must not replace the published figures unless asked to.
  const writeDocsSetting = process.env.BENCH_WRITE_DOCS;
  const fullRun = !onlyPeers && settings.duration >= 10 && settings.warmup > 0 && settings.connections === 50;
  if (writeDocsSetting === "1" || (writeDocsSetting !== "0" && fullRun)) {
    const path = writeDocsSection(
      SECTION,
      renderSection({ tokenRows, listRows, listBytes, listNote, memoryRows, targets, idleBusy }),
    );
    log(`Wrote ${path}`);
  } else {
    log("docs/benchmarks.md not written (partial or short run; BENCH_WRITE_DOCS=1 forces it).");
  }
  return invalid.length > 0 ? 1 : 0;
}

function positiveInt(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`expected a positive integer, got "${raw}"`);
  return value;
}

// Leave no servers behind on Ctrl-C.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all(started.map((server) => server.stop())).finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    void Promise.all(started.map((server) => server.stop())).finally(() => process.exit(1));
  },
);
