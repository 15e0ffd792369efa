import { execFile } from "node:child_process";
import { chmodSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import t from "tap";
import { freeClusterPortBase } from "../../support/cluster_ports.ts";
import { tempDir } from "../../support/services.ts";

const run = promisify(execFile);

/**
 * `npm run soak` at a small scale with only its PostgreSQL step: the whole deployment of
 * `npm run cluster` (its own PostgreSQL with failover, three NATS nodes, two API servers behind
 * haproxy, two workers) while the database's nodes are stopped for a few seconds and started again. Clients see only
 * 201s and 503s with Retry-After, and every recorded event reaches the receiver.
 */
t.test("the soak's PostgreSQL stop: 503 with Retry-After only, every event delivered", async (t) => {
  const dir = tempDir();
  // As root, the database's directory inside belongs to `postgres`, who must reach it.
  chmodSync(dir.path, 0o755);
  const env = { ...process.env, CLUSTER_DIR: dir.path, CLUSTER_PORT_BASE: String(await freeClusterPortBase()) };
  t.teardown(async () => {
    await run(process.execPath, ["ops/cluster/cluster.ts", "down"], { env }).catch(() => undefined);
    dir.remove();
  });
  const soak: { stdout: string; code?: number } = await run(
    process.execPath,
    ["ops/soak.ts", "--duration", "16", "--rate", "20", "--faults", "postgres", "--postgres-down", "4", "--json"],
    { env, maxBuffer: 1 << 24 },
  ).catch((err: { code: number; stdout: string; stderr: string }) => {
    t.comment(err.stderr);
    return err;
  });
  const report = JSON.parse(soak.stdout) as {
    recorded: number;
    delivered: number;
    lost: number;
    duplicates_with_another_webhook_id: number;
    server_errors: number;
    processes_down_at_end: string[];
    postgres_outage: { down_ms: number; answers_while_down: Record<string, number> };
    clients: Record<string, number>;
  };
  t.comment(JSON.stringify(report.clients));
  t.ok(report.recorded > 0, `events were recorded (${report.recorded})`);
  t.equal(report.delivered, report.recorded, "every recorded event reached the receiver");
  t.equal(report.lost, 0, "nothing lost");
  t.equal(report.duplicates_with_another_webhook_id, 0, "a repeated delivery keeps its webhook-id");
  t.equal(report.server_errors, 0, "no 5xx but 503 with Retry-After");
  t.same(report.processes_down_at_end, [], "every API server and worker outlived the outage");
  t.ok(report.postgres_outage.down_ms >= 4_000, "PostgreSQL was down for the time asked");
  const kinds = Object.keys(report.clients).map((k) => k.split(": ")[1]);
  t.same([...new Set(kinds)].sort(), ["201", "503 with Retry-After"], "clients saw 201 and 503 with Retry-After only");
  t.ok((report.postgres_outage.answers_while_down["503 with Retry-After"] ?? 0) > 0, "the outage was seen");
  const databaseUrl = readFileSync(`${dir.path}/database-url`, "utf8").trim();
  const base = Number(env.CLUSTER_PORT_BASE);
  t.match(
    databaseUrl,
    `@127.0.0.1:${base + 51},127.0.0.1:${base + 52}/laurel_cluster?target_session_attrs=read-write`,
    "on the cluster's own servers",
  );
  t.equal(soak.code ?? 0, 0, "the soak's exit code says it passed");
});
