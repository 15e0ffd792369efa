// One request path of the API server under load, with a CPU profile of the server and what its
// database connections were doing: the per-path tables of docs/benchmarks.md ("Where each
// request's CPU goes").
//
// Run: node ops/bench/profile_path.ts <token|list-basic|list-bearer|issue> [profile dir]
// Starts Laurel (fresh database, nats-server unless NATS_URL), prepares the run.ts fixture (and, for
// `issue`, an active template), drives the one path with autocannon (BENCH_CONNECTIONS, BENCH_WARMUP,
// BENCH_DURATION as in run.ts; `issue` uses 20 connections and a new recipient per request, as
// badges.ts), samples the database's backends every 5 ms meanwhile, stops the server so it writes
// its profile, and prints µs of CPU per request by component (ops/bench/cpu_components.ts).

import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import { log, runBenchProcess, withBenchLaurel } from "./laurel_process.ts";
import { setupLaurel } from "./laurel_setup.ts";
import { basicHeader, clientBasicHeader, type LoadRequest, measure, settingsFromEnv } from "./lib.ts";

const PATHS = ["token", "list-basic", "list-bearer", "issue"] as const;
type PathName = (typeof PATHS)[number];

const [pathArg, dirArg] = process.argv.slice(2);
if (!PATHS.includes(pathArg as PathName)) {
  process.stderr.write(`usage: node ops/bench/profile_path.ts <${PATHS.join("|")}> [profile dir]\n`);
  process.exit(2);
}
const path = pathArg as PathName;
const dir = resolve(dirArg ?? `artifacts/profiles/${path}-${Date.now()}`);
mkdirSync(dir, { recursive: true });
process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;

/**
 * Every 5 ms until stopped, what each of the database's other backends is doing (running, or the
 * wait it is in, or idle in a transaction); the shares of all samples.
 */
const sampleBackends = (databaseUrl: string) => {
  const client = new pg.Client({ connectionString: databaseUrl });
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ what: string }>(
        `select case when state = 'active' then coalesce(wait_event_type || ':' || wait_event, 'running')
            else state end as what
          from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
            and backend_type = 'client backend'`,
      );
      samples++;
      for (const { what } of rows) counts.set(what, (counts.get(what) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 5));
    }
    await client.end();
  })();
  return async (): Promise<string> => {
    running = false;
    await loop;
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([what, n]) => `  ${what}: ${(n / samples).toFixed(2)} backends on average`)
      .join("\n");
  };
};

const requestOf = async (laurel: { origin: string; adminOrigin: string; adminToken: string }): Promise<LoadRequest> => {
  const fixture = await setupLaurel(laurel.origin, {
    apiUrl: `${laurel.origin}/v1`,
    authUrl: laurel.origin,
    adminToken: laurel.adminToken,
    dataDir: dir,
    adminOrigin: laurel.adminOrigin,
  });
  const basic = basicHeader(fixture.basicToken, "");
  const token = {
    url: `${laurel.origin}/oauth/token`,
    method: "POST" as const,
    headers: {
      authorization: clientBasicHeader(fixture.clientId, fixture.clientSecret),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: `grant_type=client_credentials&scope=${fixture.scope}`,
  };
  if (path === "token") return token;
  if (path === "issue") {
    const api = `${laurel.origin}${fixture.listPath.replace(/\/oauth_applications$/, "")}`;
    const headers = { authorization: basic, "content-type": "application/json" };
    const res = await fetch(`${api}/badge_templates`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Profiling", description: "Measures things", state: "active" }),
    });
    if (res.status !== 201) throw new Error(`template: ${res.status} ${await res.text()}`);
    const templateId = ((await res.json()) as { data: { id: string } }).data.id;
    let n = 0;
    return {
      url: `${api}/badges`,
      method: "POST",
      headers,
      nextBody: () =>
        JSON.stringify({
          badge_template_id: templateId,
          issued_at: "2024-03-01T10:00:00+01:00",
          issued_to_first_name: "Bench",
          issued_to_last_name: "Mark",
          recipient_email: `earner${n++}@bench.example`,
        }),
    };
  }
  let authorization = basic;
  if (path === "list-bearer") {
    const res = await fetch(token.url, token);
    authorization = `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
  }
  return { url: `${laurel.origin}${fixture.listPath}`, method: "GET", headers: { authorization } };
};

runBenchProcess((started) =>
  withBenchLaurel(started, { name: "profile", title: `CPU profile of ${path}` }, async (laurel, databaseUrl) => {
    const request = await requestOf(laurel);
    const settings = { ...settingsFromEnv(), ...(path === "issue" ? { connections: 20 } : {}) };
    const backends = sampleBackends(databaseUrl);
    const result = await measure(request, settings, laurel.server.pid);
    const waits = await backends();
    log(
      `${path}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
        `server ${result.serverCores?.toFixed(2)} cores, rest of machine ${result.otherCores?.toFixed(2)} cores, ` +
        `non-2xx ${result.non2xx}, errors ${result.errors}`,
    );
    log(`database backends during the warm-up and the run (every 5 ms):\n${waits}`);
    await laurel.server.stop();
    const pid = laurel.server.pid;
    // The server's own profile: its migrations run in a child process that writes one too.
    const file = readdirSync(dir).find((f) => f.endsWith(`.${pid}.0.001.cpuprofile`));
    if (!file) throw new Error(`no profile written in ${dir}`);
    log(`profile: ${join(dir, file)}`);
    log(
      execFileSync(process.execPath, ["ops/bench/cpu_components.ts", join(dir, file), `${Math.round(result.rps)}/s`], {
        encoding: "utf8",
      }),
    );
    return 0;
  }),
);
