import t from "tap";
import { oneAtATime } from "../support/services.ts";
import { assertSoakDelivered, runSoak, type SoakReport } from "../support/soak.ts";

/**
 * `npm run soak` at a small scale with only the loss of the PostgreSQL primary: the whole
 * deployment of `npm run cluster` while the primary's keeper and server are SIGKILLed under load.
 * The standby takes over, clients see only 201s and 503s with Retry-After, every badge a client was
 * told was issued exists afterwards, every recorded event reaches the receiver, issuing works again
 * within 30 s, and the old primary comes back as the standby.
 */
await oneAtATime(t, "laurel_cluster_tests");

t.test("the soak's primary kill: the standby takes over within 30 s, nothing acknowledged is lost", async (t) => {
  const { report, code } = await runSoak<
    SoakReport & {
      acknowledged: number;
      acknowledged_missing: number;
      postgres_failover_s: number | null;
      postgres_failover: {
        node: string;
        promoted_after_s: number | null;
        rejoined_as_standby_after_s: number | null;
        answers_while_failing_over: Record<string, number>;
      };
    }
  >(t, ["--duration", "60", "--rate", "10", "--faults", "postgres-primary"]);
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
  assertSoakDelivered(t, report, "every process, both PostgreSQL keepers included, runs at the end");
  t.ok((report.postgres_failover.answers_while_failing_over["503 with Retry-After"] ?? 0) > 0, "the failover was seen");
  t.equal(code, 0, "the soak's exit code says it passed");
});
