// The public badge page (HTML) against a bare node:http server sending the same bytes and headers,
// 50 connections each. Target: Laurel at least 50% of the bare server's requests per second.
//
// Run: BENCH_ONLY=web npm run bench, or `npx node ops/bench/web.ts` with DATABASE_URL (a database
// it may write to) and NATS_URL set. Env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default
// 3), BENCH_CONNECTIONS (default 50), BENCH_VERBOSE=1. Prints its figures; writes no file.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLaurelServer } from "./laurel_process.ts";
import {
  basicHeader,
  formatMs,
  formatRps,
  markdownTable,
  measure,
  RESULT_HEADERS,
  type RunningServer,
  resultRow,
  settingsFromEnv,
  startPeer,
} from "./lib.ts";

const settings = settingsFromEnv();
const log = (message: string): void => void process.stdout.write(`${message}\n`);
const databaseUrl = process.env.DATABASE_URL;
const natsUrl = process.env.NATS_URL;
if (!databaseUrl || !natsUrl) throw new Error("DATABASE_URL and NATS_URL must be set (npm run bench sets both)");

const json = async (url: string, init: RequestInit): Promise<Record<string, unknown>> => {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
};

const started: RunningServer[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-web-"));
try {
  const laurel = await startLaurelServer(databaseUrl, natsUrl, dataDir);
  started.push(laurel.server);
  const { origin, adminOrigin, adminToken } = laurel;
  const trpc = async (path: string, input: unknown) =>
    (
      (await json(`${adminOrigin}/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify(input),
      })) as { result: { data: Record<string, unknown> } }
    ).result.data;

  // One accepted, public badge: what a shared link opens.
  const created = await trpc("organizations.create", { name: "Bench Web Org", email: "bench@example.org" });
  const orgId = (created.organization as { id: string }).id;
  const headers = {
    authorization: basicHeader((created.authorization_token as { token: string }).token, ""),
    "content-type": "application/json",
  };
  const api = `${origin}/v1/organizations/${orgId}`;
  const template = await json(`${api}/badge_templates`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "Web bench",
      description: "A badge page under load",
      state: "active",
      skills: ["a", "b"],
    }),
  });
  const badge = await json(`${api}/badges`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      badge_template_id: (template.data as { id: string }).id,
      issued_at: "2024-03-01T10:00:00Z",
      issued_to_first_name: "Bench",
      issued_to_last_name: "Page",
      recipient_email: "page@bench.example",
      suppress_badge_notification_email: true,
    }),
  });
  const badgeId = (badge.data as { id: string }).id;
  await trpc("badges.accept", { badge_id: badgeId });
  const pageUrl = `${origin}/badges/${badgeId}`;
  const res = await fetch(pageUrl);
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`badge page: ${res.status} ${body.toString()}`);
  const pageHeaders: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!["content-length", "date", "connection", "keep-alive", "set-cookie"].includes(name)) pageHeaders[name] = value;
  });
  const bare = await startPeer("bare-page", "bare_page_server.ts", {
    BODY_BASE64: body.toString("base64"),
    HEADERS_JSON: JSON.stringify(pageHeaders),
  });
  started.push(bare);

  log(
    `Public badge page, ${body.length} bytes; ${settings.warmup} s warm-up + ${settings.duration} s, ${settings.connections} connections`,
  );
  const laurelResult = await measure({ url: pageUrl }, settings, laurel.server.pid);
  const bareResult = await measure({ url: `${bare.url}/badges/${badgeId}` }, settings, bare.pid);
  const ratio = laurelResult.rps / bareResult.rps;
  log(
    markdownTable(RESULT_HEADERS, [
      resultRow("Laurel GET /badges/<id>", laurelResult),
      resultRow("bare node:http, same bytes", bareResult),
    ]),
  );
  log(
    `Laurel ${formatRps(laurelResult.rps)} req/s (p99 ${formatMs(laurelResult.p99)} ms) = ${(ratio * 100).toFixed(0)}% of bare ${formatRps(bareResult.rps)} req/s; target >= 50%: ${ratio >= 0.5 ? "met" : "not met"}`,
  );
  if (laurelResult.non2xx > 0 || laurelResult.errors > 0) throw new Error("Laurel answered errors under load");
} finally {
  for (const s of started.reverse()) await s.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
