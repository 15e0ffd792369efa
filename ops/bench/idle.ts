// What Laurel costs doing nothing, and what an API process holds after start:
//   1. `npm start` (dist/apps/start.js: API, workers, embedded PGlite and its own nats-server) with no
//      traffic: CPU of the whole process tree over BENCH_IDLE_SECONDS (60) from 15 s after it became
//      healthy; target under 1% of a core.
//   2. an API server (dist/apps/server.js, `laurelEntry`) on PostgreSQL (DATABASE_URL) and NATS (NATS_URL): resident
//      memory 10 s after it listens; target at most 200 MiB.
//
// Run: BENCH_ONLY=idle npm run bench. Prints its figures; writes no file.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLaurelServer } from "./laurel_process.ts";
import { delay, descendants, freePort, laurelEntry, mib, processCpuMs, rssKiB, startServer } from "./lib.ts";

const log = (message: string): void => void process.stdout.write(`${message}\n`);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? "60");
const databaseUrl = process.env.DATABASE_URL;
const natsUrl = process.env.NATS_URL;
if (!databaseUrl || !natsUrl) throw new Error("DATABASE_URL and NATS_URL must be set (npm run bench sets both)");

const treeCpuMs = (pid: number): number =>
  [pid, ...descendants(pid)].reduce((sum, p) => sum + (processCpuMs(p) ?? 0), 0);

const healthy = async (origin: string): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${origin}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await delay(100);
  }
  throw new Error(`${origin} never became healthy`);
};

const misses: string[] = [];

// 1. npm start, idle.
{
  const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-idle-"));
  const port = await freePort();
  const env: Record<string, string> = { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir };
  const server = await startServer({
    name: "npm start",
    command: process.execPath,
    args: [laurelEntry("start")],
    env,
    unsetEnv: ["DATABASE_URL", "NATS_URL"],
    ready: /listening on/,
    readyTimeoutMs: 120_000,
  });
  try {
    await healthy(`http://127.0.0.1:${port}`);
    await delay(15_000);
    const before = treeCpuMs(server.pid);
    const started = performance.now();
    await delay(idleSeconds * 1000);
    const cpuMs = treeCpuMs(server.pid) - before;
    const wallMs = performance.now() - started;
    const percent = (100 * cpuMs) / wallMs;
    const processes = 1 + descendants(server.pid).length;
    log(
      `npm start (embedded PGlite, local nats-server), idle ${idleSeconds} s from 15 s after healthy: ` +
        `${(cpuMs / 1000).toFixed(2)} s of CPU in ${processes} processes = ${percent.toFixed(2)}% of a core; ` +
        `resident ${mib(rssKiB(server.pid))} (node) ; target < 1%: ${percent < 1 ? "met" : "NOT met"}`,
    );
    if (percent >= 1) misses.push("idle CPU");
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// 2. npm run server, memory after start.
{
  const dataDir = mkdtempSync(join(tmpdir(), "laurel-bench-rss-"));
  const laurel = await startLaurelServer(databaseUrl, natsUrl, dataDir);
  try {
    await healthy(laurel.origin);
    await delay(10_000);
    const rss = rssKiB(laurel.server.pid) ?? Number.NaN;
    const ok = rss <= 200 * 1024;
    log(
      `API process (npm run server) on PostgreSQL, 10 s after start: resident ${mib(rss)}; target <= 200 MiB: ${ok ? "met" : "NOT met"}`,
    );
    if (!ok) misses.push("API memory");
  } finally {
    await laurel.server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (misses.length > 0) {
  log(`targets not met: ${misses.join(", ")}`);
  process.exitCode = 1;
}
