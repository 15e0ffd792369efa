// The work users really send (`BENCH_ONLY=real npm run bench`), three parts in one run, each
// beside its peer measured in the same run:
//   1. varied list reads (ops/bench/real_lists.ts): 1,000 distinct list requests over 10
//      organizations of 100,000 badges, shuffled over 50 connections, against a node:http + pg server
//      running the statements captured from Laurel; target at least 0.8x of it;
//   2. the webhook drain at its floor (ops/bench/webhooks.ts, phases raw, drain and skeleton, one
//      worker process): the drain against the same libraries alone; target at least 0.9x;
//   3. many destinations (ops/bench/real_fairness.ts): 200 organizations at 1,000 events/s, 10 slow
//      and 10 dead, against the healthy ones alone; the drain rate of (2) is its backlog's yardstick.
// Last, one JSON line of the figures, for scripts. A full run (every part at its default size)
// writes the `real` section of docs/benchmarks.md.
//
// Run: BENCH_ONLY=real npm run bench (PostgreSQL, NATS and the build made by ops/bench.sh).
// Env: those of the three parts; BENCH_REAL_PARTS (lists,drain,fair: which to run),
// BENCH_WRITE_DOCS=0|1.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { log, logBenchHeader, runBenchProcess } from "./laurel_process.ts";
import { machineInfo, markdownTable, REPO_ROOT, type RunningServer, writeDocsSection } from "./lib.ts";

const PARTS = new Set((process.env.BENCH_REAL_PARTS ?? "lists,drain,fair").split(","));
const TARGETS = { list: 0.8, drain: 0.9, fairP99Ms: 500, fairFactor: 1.5, rssMiB: 128, backlog: 0.5 };

interface DrainSummary {
  drain_1_worker_eps: number | null;
  floor_eps: number | null;
  raw_eps: number | null;
}

/** The drain and its floor, from webhooks.ts in a process of its own (its output passed through). */
const drainAtFloor = async (): Promise<DrainSummary> => {
  const dir = mkdtempSync(join(tmpdir(), "laurel-real-"));
  const file = join(dir, "drain.json");
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ["ops/bench/webhooks.ts"], {
        cwd: REPO_ROOT,
        stdio: "inherit",
        env: {
          ...process.env,
          BENCH_PHASES: "raw,drain,skeleton",
          BENCH_WORKERS: "1",
          BENCH_DRAIN_COMPARE_CAP: "0",
          BENCH_WRITE_DOCS: "0",
          BENCH_SUMMARY_FILE: file,
        },
      });
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`ops/bench/webhooks.ts exited with ${code}`);
    return JSON.parse(readFileSync(file, "utf8")) as DrainSummary;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const round = (n: number | null | undefined, digits = 2): number | null =>
  n === null || n === undefined || !Number.isFinite(n) ? null : Number(n.toFixed(digits));

const main = async (started: RunningServer[]): Promise<number> => {
  logBenchHeader("the work users really send: varied reads, many destinations, the drain at its floor");
  const loadBefore = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  // Only a run of every part at its default size replaces the published figures.
  const full = PARTS.size === 3 && !Object.keys(process.env).some((k) => /^BENCH_(REAL|FAIR)_/.test(k));
  const { variedLists } = await import("./real_lists.ts");
  const lists = PARTS.has("lists") ? await variedLists(started) : null;
  const drain = PARTS.has("drain") ? await drainAtFloor() : null;
  // The fairness part reads its settings when loaded: the drain rate measured above is its yardstick.
  if (drain?.drain_1_worker_eps && process.env.BENCH_FAIR_DRAIN_RATE === undefined)
    process.env.BENCH_FAIR_DRAIN_RATE = String(drain.drain_1_worker_eps);
  const { fairness } = await import("./real_fairness.ts");
  const fair = PARTS.has("fair") ? await fairness(started) : null;
  const loadAfter = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

  const drainRatio = drain?.drain_1_worker_eps && drain.floor_eps ? drain.drain_1_worker_eps / drain.floor_eps : null;
  const line = {
    list_varied_ratio: round(lists?.ratio),
    list_varied_laurel_rps: round(lists?.laurel_rps, 0),
    list_varied_peer_rps: round(lists?.peer_rps, 0),
    fair_healthy_p99_ms: round(fair?.healthy_p99_ms, 1),
    fair_alone_p99_ms: round(fair?.alone_p99_ms, 1),
    fair_healthy_delivered_ratio: round(fair?.healthy_delivered_ratio, 4),
    fair_worker_rss_growth_mib: round(fair?.worker_rss_growth_mib, 1),
    fair_backlog_clear_ratio: round(fair?.backlog_clear_ratio),
    drain_floor_ratio: round(drainRatio),
    drain_1_worker_eps: round(drain?.drain_1_worker_eps, 0),
    drain_floor_eps: round(drain?.floor_eps, 0),
  };

  const met = (ok: boolean | null) => (ok === null ? "not run" : ok ? "met" : "NOT met");
  const rows: string[][] = [
    [
      "varied lists: Laurel / node:http + pg running Laurel's statements",
      lists ? `${lists.ratio.toFixed(2)}x (${lists.laurel_rps.toFixed(0)} / ${lists.peer_rps.toFixed(0)} req/s)` : "",
      `>= ${TARGETS.list}x`,
      met(lists ? lists.ratio >= TARGETS.list : null),
    ],
    [
      "drain (1 worker) / the libraries alone",
      drainRatio === null
        ? ""
        : `${drainRatio.toFixed(2)}x (${drain?.drain_1_worker_eps?.toFixed(0)} / ${drain?.floor_eps?.toFixed(0)} deliveries/s)`,
      `>= ${TARGETS.drain}x`,
      met(drainRatio === null ? null : drainRatio >= TARGETS.drain),
    ],
    [
      "healthy destinations' p99, 10 slow and 10 dead beside them",
      fair ? `${fair.healthy_p99_ms.toFixed(0)} ms (alone ${fair.alone_p99_ms.toFixed(0)} ms)` : "",
      `< ${TARGETS.fairP99Ms} ms and <= ${TARGETS.fairFactor}x alone`,
      met(
        fair
          ? fair.healthy_p99_ms < TARGETS.fairP99Ms && fair.healthy_p99_ms <= TARGETS.fairFactor * fair.alone_p99_ms
          : null,
      ),
    ],
    [
      "healthy events delivered in the run",
      fair ? `${(100 * fair.healthy_delivered_ratio).toFixed(2)}%` : "",
      "100%",
      met(fair ? fair.healthy_delivered_ratio >= 1 : null),
    ],
    [
      "worker processes' memory growth",
      fair ? `${fair.worker_rss_growth_mib.toFixed(0)} MiB` : "",
      `< ${TARGETS.rssMiB} MiB`,
      met(fair ? fair.worker_rss_growth_mib < TARGETS.rssMiB : null),
    ],
    [
      "dead destinations' backlog cleared / drain rate",
      fair
        ? `${fair.backlog_clear_ratio.toFixed(2)}x (${fair.backlog_clear_eps.toFixed(0)} / ${fair.drain_rate_eps.toFixed(0)} events/s)`
        : "",
      `>= ${TARGETS.backlog}x`,
      met(fair ? fair.backlog_clear_ratio >= TARGETS.backlog : null),
    ],
  ];
  const m = machineInfo();
  const section = [
    "## The work users really send",
    "",
    `Command: \`BENCH_ONLY=real npm run bench\`; machine: ${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}; ` +
      `load average before ${loadBefore}, after ${loadAfter}.`,
    "",
    markdownTable(["figure", "measured", "target", ""], rows),
    "",
    `\`${JSON.stringify(line)}\``,
  ].join("\n");
  log(`\n${section}\n`);
  const write = process.env.BENCH_WRITE_DOCS === "1" || (process.env.BENCH_WRITE_DOCS !== "0" && full);
  log(write ? `Wrote ${writeDocsSection("real", section)}` : "docs/benchmarks.md not written (a partial run).");
  log(JSON.stringify(line));
  return rows.some((r) => r[3] === "NOT met") ? 1 : 0;
};

runBenchProcess(main);
