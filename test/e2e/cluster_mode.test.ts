import t from "tap";
import { EVENTS_STREAM } from "../../adapters/bus/mod.ts";
import { startLaurel } from "../support/laurel.ts";
import { startTestNatsCluster } from "../support/nats_cluster.ts";
import {
  makeTestCa,
  recordEvents,
  spawnWorker,
  startReceiver,
  waitFor,
  webhookEnv,
  webhookOrganization,
} from "../support/webhooks.ts";

/**
 * Cluster mode: three nats-server nodes with three-replica streams, one API server, two worker
 * processes. The node leading the events stream is killed mid-flow, then a worker: every event is
 * delivered, duplicates only with their event's own webhook-id.
 */
t.test("the stream leader and then a worker killed mid-flow: every event delivered", async (t) => {
  const ca = makeTestCa();
  const receiver = await startReceiver(ca);
  const cluster = await startTestNatsCluster(3);
  const first = cluster.nodes[0]?.running;
  if (!first) throw new Error("no node running");
  const laurel = await startLaurel({ nats: { ...first, url: cluster.url, dir: "", stop: async () => {} } });
  t.teardown(async () => {
    await laurel.close();
    await cluster.stop();
    await receiver.close();
    ca.remove();
  });
  receiver.answer = () => ({ status: 200, delayMs: Math.random() < 0.2 ? 20 : 0 });
  const org = await webhookOrganization(laurel, { url: receiver.url });
  const env = {
    ...webhookEnv(ca, { WEBHOOK_SCHEDULER_INTERVAL_MS: "100", WEBHOOK_MAX_PER_DESTINATION: "16" }),
    NATS_STREAM_REPLICAS: "3",
    DATABASE_URL: laurel.database?.url as string,
    NATS_URL: cluster.url,
    DATA_DIR: laurel.dataDir,
  };
  const a = await spawnWorker(env);
  const b = await spawnWorker(env);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  t.match(a.output(), /ready with 3 replica\(s\)/, "the worker says the streams have three replicas");

  const ids: string[] = [];
  const record = async (batches: number): Promise<void> => {
    for (let i = 0; i < batches; i++) {
      ids.push(...(await recordEvents(laurel.db, org.id, 40)).map((e) => e.id));
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await record(10);
  await waitFor("deliveries under way", () => receiver.received.length > 100, 30_000);
  const leader = await cluster.leaderOf(laurel.nc, EVENTS_STREAM);
  await leader.kill();
  const killedAt = Date.now();
  t.comment(`killed ${leader.spec.name}, the leader of ${EVENTS_STREAM}, after ${receiver.received.length} deliveries`);
  await record(10);
  const next = await cluster.leaderOf(laurel.nc, EVENTS_STREAM);
  t.not(next.spec.name, leader.spec.name, `${next.spec.name} leads the stream now`);
  t.comment(`new leader after ${Date.now() - killedAt} ms; ${receiver.received.length} received`);
  await leader.start();

  await record(5);
  a.child.kill("SIGKILL");
  t.comment(`killed worker A after ${receiver.received.length} deliveries`);
  await record(10);

  const succeeded = async (): Promise<number> => {
    const rows = await laurel.db.all<{ n: string }>(
      "select count(*) as n from webhook_deliveries where organization_id = ? and status = 'succeeded'",
      [org.id],
    );
    return Number(rows[0]?.n ?? 0);
  };
  const started = Date.now();
  const progress = setInterval(
    () => t.comment(`+${Date.now() - started} ms: ${receiver.received.length} received`),
    2000,
  );
  t.teardown(() => clearInterval(progress));
  await waitFor("every delivery to succeed", async () => (await succeeded()) === ids.length, 60_000, 200);
  const byEvent = receiver.byEvent();
  t.same(
    ids.filter((id) => !byEvent.has(id)),
    [],
    `all ${ids.length} events were delivered`,
  );
  const duplicates = [...byEvent.values()].filter((list) => list.length > 1).length;
  t.ok(
    [...byEvent.values()].every((list) => list.every((d) => d.headers["webhook-id"] === d.json.id)),
    `duplicates (${duplicates} events) only with the same webhook-id`,
  );
  t.same(receiver.verify([org.secret]), [], "every POST verifies");
  t.equal(b.child.exitCode, null, "worker B kept going");
});
