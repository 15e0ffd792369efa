/**
 * What the request limits cost, side by side in one run: two `apps/server.ts` processes on one
 * database and nats-server, A with every limit on (set above the load, so the limiter runs on
 * every request and never refuses) and B with `RATE_LIMITS=off`. The token endpoint, an
 * authenticated list (Basic) and a hosted assertion GET are measured on each in the order
 * A B B A, so drift over the run cancels; the table gives the pooled ratio A / B per request
 * (at most 5% cost wanted: ratio >= 0.95). Both processes use the bounded caches, the only
 * caches left. About 2 minutes at the default settings (BENCH_DURATION, BENCH_WARMUP,
 * BENCH_CONNECTIONS as for the other benchmarks).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminOriginOf, BENCH_RATE_LIMITS, setupLaurel } from "./laurel_setup.ts";
import {
  basicHeader,
  clientBasicHeader,
  formatMs,
  formatRps,
  freePort,
  type LoadRequest,
  type LoadResult,
  markdownTable,
  measure,
  type RunningServer,
  settingsFromEnv,
  startServer,
  writeDocsSection,
} from "./lib.ts";

const settings = settingsFromEnv();
const log = (line: string): void => console.log(line);
const started: RunningServer[] = [];

const launch = async (name: string, env: Record<string, string>, dataDir: string, adminToken: string) => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await startServer({
    name,
    command: process.execPath,
    args: ["apps/server.ts"],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `${origin}/v1`,
      AUTH_URL: origin,
      DATA_DIR: dataDir,
      LAUREL_ADMIN_TOKEN: adminToken,
      ...env,
    },
    ready: /listening on/,
    readyTimeoutMs: 120_000,
  });
  started.push(server);
  return { server, origin };
};

const post = async (url: string, headers: Record<string, string>, body: unknown): Promise<{ data: unknown }> => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: unknown };
};

const main = async (): Promise<void> => {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL)
    throw new Error("run through ops/bench.sh (DATABASE_URL, NATS_URL)");
  const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-limits-"));
  const adminToken = randomBytes(32).toString("base64url");
  try {
    // One after the other: the first runs the migrations.
    const limited = await launch("laurel-limited", BENCH_RATE_LIMITS, dataDir, adminToken);
    const unlimited = await launch("laurel-unlimited", { RATE_LIMITS: "off" }, dataDir, adminToken);
    const o = limited.origin;
    const fx = await setupLaurel(o, { apiUrl: `${o}/v1`, authUrl: o, adminToken, dataDir });
    const auth = basicHeader(fx.basicToken, "");
    const api = `${o}${fx.listPath.replace(/\/oauth_applications$/, "")}`;
    const template = (
      await post(
        `${api}/badge_templates`,
        { authorization: auth },
        { name: "Limits", description: "Costs of limits", state: "active" },
      )
    ).data as { id: string };
    const badge = (
      await post(
        `${api}/badges`,
        { authorization: auth },
        {
          badge_template_id: template.id,
          issued_at: "2024-03-01T10:00:00+01:00",
          issued_to_first_name: "Bench",
          issued_to_last_name: "Mark",
          recipient_email: "limits@bench.example",
        },
      )
    ).data as { id: string };
    const accepted = await fetch(`${adminOriginOf(o)}/trpc/badges.accept`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ badge_id: badge.id }),
    });
    if (!accepted.ok) throw new Error(`badges.accept: ${accepted.status}`);

    const requests: Array<[string, (origin: string) => LoadRequest]> = [
      [
        "token endpoint",
        (origin) => ({
          url: `${origin}/oauth/token`,
          method: "POST",
          headers: {
            authorization: clientBasicHeader(fx.clientId, fx.clientSecret),
            "content-type": "application/x-www-form-urlencoded",
          },
          body: `grant_type=client_credentials&scope=${fx.scope}`,
        }),
      ],
      [
        "authenticated list (Basic)",
        (origin) => ({ url: `${origin}${fx.listPath}`, headers: { authorization: auth } }),
      ],
      ["assertion GET", (origin) => ({ url: `${origin}/v1/obi/v2/badge_assertions/${badge.id}` })],
    ];
    const rows: string[][] = [];
    for (const [label, request] of requests) {
      const results: Record<"on" | "off", LoadResult[]> = { on: [], off: [] };
      for (const side of ["on", "off", "off", "on"] as const) {
        const target = side === "on" ? limited : unlimited;
        const result = await measure(request(target.origin), settings, target.server.pid);
        if (result.non2xx > 0) throw new Error(`${label} (limits ${side}): ${result.non2xx} answers not 2xx`);
        log(`- ${label}, limits ${side}: ${formatRps(result.rps)} req/s, p99 ${formatMs(result.p99)} ms`);
        results[side].push(result);
      }
      const rps = (side: "on" | "off") => results[side].reduce((sum, r) => sum + r.rps, 0) / results[side].length;
      const p99 = (side: "on" | "off") => Math.max(...results[side].map((r) => r.p99));
      const ratio = rps("on") / rps("off");
      rows.push([
        label,
        formatRps(rps("on")),
        formatRps(rps("off")),
        `${ratio.toFixed(3)}x`,
        `${formatMs(p99("on"))} / ${formatMs(p99("off"))}`,
        ratio >= 0.95 ? "met" : "NOT met",
      ]);
    }
    const table = markdownTable(
      ["request", "req/s limits on", "req/s limits off", "on / off", "p99 ms on / off", "cost <= 5%"],
      rows,
    );
    log(table);
    const section = [
      "## Request limits: cost side by side (`ops/bench/limits.ts`)",
      "",
      `${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s per window, windows A B B A.`,
      "",
      table,
    ].join("\n");
    if (process.env.BENCH_WRITE_DOCS !== "0") log(`written to ${writeDocsSection("limits", section)}`);
  } finally {
    for (const server of started.reverse()) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
