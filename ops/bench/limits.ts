/**
 * What the request limits and the bounded caches cost, side by side in one run: two
 * `apps/server.ts` processes on one database and nats-server, A with every limit on (set above the
 * load, so the limiter runs on every request and never refuses) and B with `RATE_LIMITS=off` and
 * plain Map caches in place of the bounded ones (`unbounded_caches.ts`); nothing else differs. A
 * third process runs the migrations and makes the fixture, and stops before A and B start, so
 * neither measured process did more than the other beforehand. Each of BENCH_ROUNDS (3) rounds
 * starts a fresh pair (in turn order) and measures the token endpoint, an authenticated list
 * (Basic) and a hosted assertion GET in windows A B B A or B A A B alternately, so drift over the
 * run and the luck of one process cancel; the table gives the pooled ratio A / B per request
 * (at most 5% cost wanted: ratio >= 0.95) and the lowest and highest ratio of one round, which
 * shows how far the machine moved meanwhile. About 4 minutes at this benchmark's defaults (5 s
 * windows after 1 s of warm-up; BENCH_DURATION, BENCH_WARMUP and BENCH_CONNECTIONS set them as
 * for the other benchmarks). With
 * BENCH_LIMITS_CONTROL=1, A is started exactly like B: the ratios then show the noise alone.
 * With two or more cores and `taskset` (util-linux), the load generator (this process) runs on
 * core 0 and the measured servers on core 1 (BENCH_PIN=0 turns it off): unpinned, the scheduler
 * moving the two about made identical processes read up to 25% apart.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
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
  laurelEntry,
  markdownTable,
  measure,
  type RunningServer,
  settingsFromEnv,
  startServer,
  writeDocsSection,
} from "./lib.ts";

// Short windows, many of them: the machine's speed drifts from minute to minute, and finer
// alternation cancels more of it than a few long windows do.
const settings = settingsFromEnv({ BENCH_DURATION: "5", BENCH_WARMUP: "1", ...process.env });
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("BENCH_ROUNDS must be a positive integer");
/** `BENCH_LIMITS_CONTROL=1`: A runs exactly like B, so the ratios show what the machine alone moves. */
const control = process.env.BENCH_LIMITS_CONTROL === "1";
const log = (line: string): void => console.log(line);
const started: RunningServer[] = [];

const canPin = (): boolean => {
  if (process.env.BENCH_PIN === "0" || availableParallelism() < 2) return false;
  try {
    execFileSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const pinned = canPin();

const launch = async (
  name: string,
  env: Record<string, string>,
  dataDir: string,
  adminToken: string,
  nodeArgs: string[] = [],
) => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await startServer({
    name,
    command: pinned ? "taskset" : process.execPath,
    args: [...(pinned ? ["-c", "1", process.execPath] : []), ...nodeArgs, laurelEntry("server")],
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
    const setup = await launch("laurel-setup", BENCH_RATE_LIMITS, dataDir, adminToken);
    const o = setup.origin;
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
    await setup.server.stop();
    started.splice(started.indexOf(setup.server), 1);
    const off = { ...BENCH_RATE_LIMITS, RATE_LIMITS: "off" };
    const unbounded = ["--import", "./ops/bench/unbounded_caches.ts"];
    const startOn = () =>
      control
        ? launch("laurel-unlimited-a", off, dataDir, adminToken, unbounded)
        : launch("laurel-limited", BENCH_RATE_LIMITS, dataDir, adminToken);
    const startOff = () => launch("laurel-unlimited", off, dataDir, adminToken, unbounded);

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
    const results = requests.map(() => ({ on: [] as LoadResult[], off: [] as LoadResult[], rounds: [] as number[] }));
    for (let round = 0; round < rounds; round++) {
      // A fresh pair each round, started in turn order: one process can run faster than an
      // identical one for its whole life (placement, memory layout), and that must average out too.
      const first = round % 2 === 0 ? await startOn() : await startOff();
      const second = round % 2 === 0 ? await startOff() : await startOn();
      const [limited, unlimited] = round % 2 === 0 ? [first, second] : [second, first];
      const windows = round % 2 === 0 ? (["on", "off", "off", "on"] as const) : (["off", "on", "on", "off"] as const);
      for (const [i, [label, request]] of requests.entries()) {
        const own = results[i] as (typeof results)[number];
        const before = { on: own.on.length, off: own.off.length };
        for (const side of windows) {
          const target = side === "on" ? limited : unlimited;
          const result = await measure(request(target.origin), settings, target.server.pid);
          if (result.non2xx > 0)
            throw new Error(
              `${label} (limits ${side}): ${result.non2xx} answers not 2xx (${JSON.stringify(result.statusCodes)})`,
            );
          log(
            `- round ${round + 1}, ${label}, limits ${side}: ${formatRps(result.rps)} req/s, p99 ${formatMs(result.p99)} ms`,
          );
          own[side].push(result);
        }
        const sum = (side: "on" | "off") => own[side].slice(before[side]).reduce((total, r) => total + r.rps, 0);
        own.rounds.push(sum("on") / sum("off"));
      }
      for (const server of [limited, unlimited]) {
        await server.server.stop();
        started.splice(started.indexOf(server.server), 1);
      }
    }
    const rows = requests.map(([label], i) => {
      const own = results[i] as (typeof results)[number];
      const rps = (side: "on" | "off") => own[side].reduce((sum, r) => sum + r.rps, 0) / own[side].length;
      const p99 = (side: "on" | "off") => Math.max(...own[side].map((r) => r.p99));
      const ratio = rps("on") / rps("off");
      // The server's own CPU per answer: less moved than req/s by what else the machine runs.
      const cpuUs = (side: "on" | "off") =>
        (own[side].reduce((sum, r) => sum + (r.serverCores ?? 0), 0) * 1e6) /
        own[side].reduce((sum, r) => sum + r.rps, 0);
      return [
        label,
        formatRps(rps("on")),
        formatRps(rps("off")),
        `${ratio.toFixed(3)}x`,
        `${Math.min(...own.rounds).toFixed(2)}-${Math.max(...own.rounds).toFixed(2)}`,
        `${cpuUs("on").toFixed(0)} / ${cpuUs("off").toFixed(0)}`,
        `${formatMs(p99("on"))} / ${formatMs(p99("off"))}`,
        ratio >= 0.95 ? "met" : "NOT met",
      ];
    });
    const table = markdownTable(
      [
        "request",
        "req/s limits on",
        "req/s limits off",
        "on / off",
        "rounds on / off",
        "server CPU µs/req on / off",
        "p99 ms on / off",
        "cost <= 5%",
      ],
      rows,
    );
    log(table);
    const section = [
      "## Request limits and bounded caches: cost side by side (`ops/bench/limits.ts`)",
      "",
      `${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s per window, ${rounds} rounds, each a fresh pair of processes, windows A B B A and B A A B alternately${pinned ? "; load generator on core 0, servers on core 1" : ""}.`,
      "",
      table,
    ].join("\n");
    if (process.env.BENCH_WRITE_DOCS !== "0" && !control) log(`written to ${writeDocsSection("limits", section)}`);
  } finally {
    for (const server of started.reverse()) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
