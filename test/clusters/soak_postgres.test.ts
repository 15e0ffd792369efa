import { readFileSync } from "node:fs";
import t from "tap";
import { oneAtATime } from "../support/services.ts";
import { assertSoakDelivered, runSoak, type SoakReport } from "../support/soak.ts";

/**
 * `npm run soak` at a small scale with only its PostgreSQL step: the whole deployment of
 * `npm run cluster` (its own PostgreSQL with failover, three NATS nodes, two API servers behind
 * haproxy, two workers) while the database's nodes are stopped for a few seconds and started again. Clients see only
 * 201s and 503s with Retry-After, and every recorded event reaches the receiver.
 */
await oneAtATime(t, "laurel_cluster_tests");

t.test("the soak's PostgreSQL stop: 503 with Retry-After only, every event delivered", async (t) => {
  const { report, code, clusterDir, portBase } = await runSoak<
    SoakReport & { postgres_outage: { down_ms: number; answers_while_down: Record<string, number> } }
  >(t, ["--duration", "16", "--rate", "20", "--faults", "postgres", "--postgres-down", "4"]);
  t.comment(JSON.stringify(report.clients));
  t.ok(report.recorded > 0, `events were recorded (${report.recorded})`);
  assertSoakDelivered(t, report, "every API server and worker outlived the outage");
  t.ok(report.postgres_outage.down_ms >= 4_000, "PostgreSQL was down for the time asked");
  t.ok((report.postgres_outage.answers_while_down["503 with Retry-After"] ?? 0) > 0, "the outage was seen");
  const databaseUrl = readFileSync(`${clusterDir}/database-url`, "utf8").trim();
  t.match(
    databaseUrl,
    `@127.0.0.1:${portBase + 51},127.0.0.1:${portBase + 52}/laurel_cluster?target_session_attrs=read-write`,
    "on the cluster's own servers",
  );
  t.equal(code, 0, "the soak's exit code says it passed");
});
