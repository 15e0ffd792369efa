import { mkdirSync } from "node:fs";
import { join } from "node:path";
import t, { type Test } from "tap";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { tempDir } from "../support/services.ts";
import {
  makeTestCa,
  type Receiver,
  recordEvents,
  spawnWorker,
  startReceiver,
  startTestPipeline,
  type TestCa,
  waitFor,
  webhookEnv,
  webhookOrganization,
} from "../support/webhooks.ts";

/** Scale-out and failure: worker processes die, NATS restarts; no event is lost. */
let ca: TestCa;
let receiver: Receiver;

t.before(async () => {
  ca = makeTestCa();
  receiver = await startReceiver(ca);
});
t.teardown(async () => {
  await receiver.close();
  ca.remove();
});

const succeeded = async (laurel: TestLaurel, organizationId: string): Promise<number> => {
  const rows = await laurel.db.all<{ n: string }>(
    "select count(*) as n from webhook_deliveries where organization_id = ? and status = 'succeeded'",
    [organizationId],
  );
  return Number(rows[0]?.n ?? 0);
};

const byStatus = (laurel: TestLaurel, organizationId: string) =>
  laurel.db.all(
    "select status, count(*) as n, min(next_attempt_at) as next from webhook_deliveries where organization_id = ? group by 1",
    [organizationId],
  );

/** Every event arrived, verified, and any duplicate carries its event's own webhook-id. */
const checkReceived = (t: Test, ids: string[], secret: string): void => {
  const byEvent = receiver.byEvent();
  const missing = ids.filter((id) => !byEvent.has(id));
  t.same(missing, [], `all ${ids.length} events were delivered`);
  const duplicates = [...byEvent.values()].filter((list) => list.length > 1).length;
  t.ok(
    [...byEvent.values()].every((list) => list.every((d) => d.headers["webhook-id"] === d.json.id)),
    `duplicates (${duplicates} events) only with the same webhook-id`,
  );
  t.same(receiver.verify([secret]), [], "every POST verifies with standardwebhooks");
};

t.test("two worker processes, one killed with SIGKILL mid-run while 5,000 events flow", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  receiver.received.length = 0;
  // A little latency, so the killed worker has requests in flight.
  receiver.answer = () => ({ status: 200, delayMs: Math.random() < 0.2 ? 20 : 0 });
  const org = await webhookOrganization(laurel, { url: receiver.url });
  const env = {
    // A higher per-destination cap than the default 4: this test is about losing nothing, and one
    // receiver stands for the whole load.
    ...webhookEnv(ca, { WEBHOOK_SCHEDULER_INTERVAL_MS: "100", WEBHOOK_MAX_PER_DESTINATION: "16" }),
    DATABASE_URL: laurel.database?.url as string,
    NATS_URL: laurel.nats.url,
    DATA_DIR: laurel.dataDir,
  };
  const a = await spawnWorker(env);
  const b = await spawnWorker(env);
  t.teardown(async () => {
    await Promise.all([a.stop(), b.stop()]);
  });

  const ids: string[] = [];
  let killedAt = -1;
  for (let batch = 0; batch < 50; batch++) {
    ids.push(...(await recordEvents(laurel.db, org.id, 100)).map((e) => e.id));
    if (killedAt < 0 && receiver.received.length >= 1_000) {
      a.child.kill("SIGKILL");
      killedAt = receiver.received.length;
    }
    await new Promise((r) => setTimeout(r, 40));
  }
  if (killedAt < 0) {
    a.child.kill("SIGKILL");
    killedAt = receiver.received.length;
  }
  t.ok(killedAt < ids.length, `worker A killed after ${killedAt} deliveries`);
  await waitFor(
    "every delivery to succeed",
    async () => (await succeeded(laurel, org.id)) === ids.length,
    60_000,
    200,
  ).catch(async (err) => {
    t.comment(`deliveries by status: ${JSON.stringify(await byStatus(laurel, org.id))}`);
    throw err;
  });
  t.equal(a.child.signalCode, "SIGKILL");
  checkReceived(t, ids, org.secret);
  t.ok(b.output().length > 0 && b.child.exitCode === null, "worker B kept going");
});

t.test("NATS restarted mid-run: nothing is lost", async (t) => {
  const store = tempDir("laurel-nats-restart-");
  mkdirSync(join(store.path, "js"), { recursive: true });
  let nats: LocalNats = await startLocalNats({ storeDir: join(store.path, "js") });
  const port = Number(new URL(nats.url).port);
  const testNats = {
    ...nats,
    dir: store.path,
    stop: async () => {
      await nats.stop();
    },
  };
  const laurel = await startLaurel({ nats: testNats });
  t.teardown(async () => {
    await laurel.close();
    await nats.stop();
    store.remove();
  });
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200 });
  const org = await webhookOrganization(laurel, { url: receiver.url });
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca, { WEBHOOK_MAX_PER_DESTINATION: "16" }));
  t.teardown(() => pipeline.stop());

  const ids: string[] = [];
  for (let batch = 0; batch < 30; batch++) {
    if (batch === 10) {
      await nats.stop();
      t.pass(`NATS stopped after ${receiver.received.length} deliveries`);
    }
    if (batch === 20) {
      nats = await startLocalNats({ storeDir: join(store.path, "js"), port });
      t.pass("NATS started again on the same port and store");
    }
    ids.push(...(await recordEvents(laurel.db, org.id, 50)).map((e) => e.id));
    await new Promise((r) => setTimeout(r, 100));
  }
  await waitFor("every delivery to succeed", async () => (await succeeded(laurel, org.id)) === ids.length, 90_000, 200);
  checkReceived(t, ids, org.secret);
});
