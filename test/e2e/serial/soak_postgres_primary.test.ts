import { execFile } from "node:child_process";
import { chmodSync } from "node:fs";
import { promisify } from "node:util";
import t from "tap";
import { freeClusterPortBase } from "../../support/cluster_ports.ts";
import { tempDir } from "../../support/services.ts";

const run = promisify(execFile);

/**
 * `npm run soak` at a small scale with only the loss of the PostgreSQL primary: the whole
 * deployment of `npm run cluster` while the primary's keeper and server are SIGKILLed under load.
 * The standby takes over, clients see only 201s and 503s with Retry-After, every badge a client was
 * told was issued exists afterwards, every recorded event reaches the receiver, issuing works again
 * within 30 s, and the old primary comes back as the standby.
 */
t.test("the soak's primary kill: the standby takes over within 30 s, nothing acknowledged is lost", async (t) => {
  const dir = tempDir();
  // As root, the database's directories inside belong to `postgres`, who must reach them.
  chmodSync(dir.path, 0o755);
  const env = { ...process.env, CLUSTER_DIR: dir.path, CLUSTER_PORT_BASE: String(await freeClusterPortBase()) };
  t.teardown(async () => {
    await run(process.execPath, ["ops/cluster/cluster.ts", "down"], { env }).catch(() => undefined);
    dir.remove();
  });
  const soak: { stdout: string; code?: number } = await run(
    process.execPath,
    ["ops/soak.ts", "--duration", "60", "--rate", "10", "--faults", "postgres-primary", "--json"],
    { env, maxBuffer: 1 << 24 },
  ).catch((err: { code: number; stdout: string; stderr: string }) => {
    t.comment(err.stderr);
    return err;
  });
  const report = JSON.parse(soak.stdout) as {
    recorded: number;
    delivered: number;
    lost: number;
    acknowledged: number;
    acknowledged_missing: number;
    duplicates_with_another_webhook_id: number;
    server_errors: number;
    processes_down_at_end: string[];
    clients: Record<string, number>;
    postgres_failover_s: number | null;
    postgres_failover: {
      node: string;
      promoted_after_s: number | null;
      rejoined_as_standby_after_s: number | null;
      answers_while_failing_over: Record<string, number>;
    };
  };
  t.comment(JSON.stringify({ clients: report.clients, failover: report.postgres_failover }));
  t.equal(report.postgres_failover.node, "node1", "the first node, the primary, was killed");
  t.ok(report.postgres_failover.promoted_after_s !== null, "the monitor promoted the standby");
  t.ok(
    report.postgres_failover_s !== null && report.postgres_failover_s < 30,
    `issuing works again within 30 s (${report.postgres_failover_s} s)`,
  );
  t.ok(report.postgres_failover.rejoined_as_standby_after_s !== null, "the old primary came back as the standby");
  t.ok(report.acknowledged > 0, `badges were acknowledged (${report.acknowledged})`);
  t.equal(report.acknowledged_missing, 0, "every acknowledged badge exists afterwards");
  t.equal(report.delivered, report.recorded, "every recorded event reached the receiver");
  t.equal(report.lost, 0, "nothing lost");
  t.equal(report.duplicates_with_another_webhook_id, 0, "a repeated delivery keeps its webhook-id");
  t.equal(report.server_errors, 0, "no 5xx but 503 with Retry-After");
  t.same(report.processes_down_at_end, [], "every process, both PostgreSQL keepers included, runs at the end");
  const kinds = Object.keys(report.clients).map((k) => k.split(": ")[1]);
  t.same([...new Set(kinds)].sort(), ["201", "503 with Retry-After"], "clients saw 201 and 503 with Retry-After only");
  t.ok((report.postgres_failover.answers_while_failing_over["503 with Retry-After"] ?? 0) > 0, "the failover was seen");
  t.equal(soak.code ?? 0, 0, "the soak's exit code says it passed");
});
