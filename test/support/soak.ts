import { execFile } from "node:child_process";
import { chmodSync } from "node:fs";
import { promisify } from "node:util";
import type { Test } from "tap";
import { freeClusterPortBase } from "./cluster_ports.ts";
import { childEnv } from "./processes.ts";
import { tempDir } from "./services.ts";

const run = promisify(execFile);

/** What `ops/soak.ts --json` reports whatever faults it was given. */
export interface SoakReport {
  recorded: number;
  delivered: number;
  lost: number;
  duplicates_with_another_webhook_id: number;
  server_errors: number;
  processes_down_at_end: string[];
  clients: Record<string, number>;
}

/**
 * Runs `npm run soak` (`ops/soak.ts ... --json`) with `args` on a cluster of its own in a temporary
 * directory and free ports, taken down when the test ends: every soak test starts the same way.
 * Returns the report (typed by the caller, for its faults' fields), the exit code and the cluster.
 */
export const runSoak = async <R extends SoakReport>(t: Test, args: string[]) => {
  const dir = tempDir();
  // As root, the database's directories inside belong to `postgres`, who must reach them.
  chmodSync(dir.path, 0o755);
  const env = childEnv({ CLUSTER_DIR: dir.path, CLUSTER_PORT_BASE: String(await freeClusterPortBase()) });
  t.teardown(async () => {
    await run(process.execPath, ["ops/cluster/cluster.ts", "down"], { env }).catch(() => undefined);
    dir.remove();
  });
  const soak: { stdout: string; code?: number } = await run(process.execPath, ["ops/soak.ts", ...args, "--json"], {
    env,
    maxBuffer: 1 << 24,
  }).catch((err: { code: number; stdout: string; stderr: string }) => {
    t.comment(err.stderr);
    return err;
  });
  return {
    report: JSON.parse(soak.stdout) as R,
    code: soak.code ?? 0,
    clusterDir: dir.path,
    portBase: Number(env.CLUSTER_PORT_BASE),
  };
};

/**
 * What every soak must show after its faults: each recorded event delivered once under one
 * webhook-id, no 5xx, every process running at the end, and clients that saw 201 or 503 with
 * Retry-After only.
 */
export const assertSoakDelivered = (t: Test, report: SoakReport, processesUp: string): void => {
  t.equal(report.delivered, report.recorded, "every recorded event reached the receiver");
  t.equal(report.lost, 0, "nothing lost");
  t.equal(report.duplicates_with_another_webhook_id, 0, "a repeated delivery keeps its webhook-id");
  t.equal(report.server_errors, 0, "no 5xx but 503 with Retry-After");
  t.same(report.processes_down_at_end, [], processesUp);
  const kinds = Object.keys(report.clients).map((k) => k.split(": ")[1]);
  t.same([...new Set(kinds)].sort(), ["201", "503 with Retry-After"], "clients saw 201 and 503 with Retry-After only");
};
