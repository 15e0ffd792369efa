import { jetstreamManager } from "@nats-io/jetstream";
import t from "tap";
import {
  connectNats,
  DEFAULT_BUS_OPTIONS,
  DISPATCH_STREAM,
  EVENTS_STREAM,
  ensureWebhookStreams,
  WEBHOOK_CONSUMER,
} from "../../adapters/bus/mod.ts";
import { readConfig } from "../../apps/config.ts";
import { startTestNatsCluster, type TestNatsCluster } from "../support/nats_cluster.ts";
import { waitFor } from "../support/webhooks.ts";

/** Replicated streams on a three-node JetStream cluster, reached through a NATS_URL of three servers. */
let cluster: TestNatsCluster;
t.before(async () => {
  cluster = await startTestNatsCluster(3);
});
t.teardown(() => cluster.stop());

t.test("NATS_STREAM_REPLICAS is 1 by default, a positive integer otherwise", async (t) => {
  t.equal(readConfig({}).webhooks.streamReplicas, 1);
  t.equal(readConfig({ NATS_STREAM_REPLICAS: "3" }).webhooks.streamReplicas, 3);
  t.throws(() => readConfig({ NATS_STREAM_REPLICAS: "0" }).webhooks, /NATS_STREAM_REPLICAS/);
});

t.test("streams made with one replica are raised to three, with their consumers", async (t) => {
  t.equal(cluster.url.split(",").length, 3, "NATS_URL names the three servers");
  const nc = await connectNats(cluster.url, "laurel-test");
  t.teardown(() => nc.close());
  const jsm = await jetstreamManager(nc, { timeout: 10_000 });

  await ensureWebhookStreams(nc, { ...DEFAULT_BUS_OPTIONS, replicas: 1 });
  for (const stream of [EVENTS_STREAM, DISPATCH_STREAM]) {
    const info = await jsm.streams.info(stream);
    t.equal(info.config.num_replicas, 1, `${stream} starts with one replica`);
  }

  await ensureWebhookStreams(nc, { ...DEFAULT_BUS_OPTIONS, replicas: 3 });
  for (const stream of [EVENTS_STREAM, DISPATCH_STREAM]) {
    const info = await jsm.streams.info(stream);
    t.equal(info.config.num_replicas, 3, `${stream} has three replicas`);
    // The consumer's new configuration goes through the cluster's metadata leader: a read right
    // after the update may still answer the old one, so the test waits for it (and fails if it never comes).
    const consumer = await waitFor(`${stream}'s consumer on three replicas`, async () => {
      const info = await jsm.consumers.info(stream, WEBHOOK_CONSUMER);
      return info.config.num_replicas === 3 ? info : undefined;
    });
    t.equal(consumer.config.num_replicas, 3, `its consumer ${WEBHOOK_CONSUMER} has three replicas`);
  }
  // The new peers are elected and catch up in the background: a leader and two current replicas soon after.
  for (const stream of [EVENTS_STREAM, DISPATCH_STREAM]) {
    const cluster = await waitFor(`${stream} on three nodes`, async () => {
      const info = (await jsm.streams.info(stream)).cluster;
      const current = (info?.replicas ?? []).filter((r) => r.current).length;
      return info?.leader && current === 2 ? info : undefined;
    });
    t.ok(cluster.leader, `${stream} has a leader and two current replicas`);
  }

  // Safe to run again, from every process, with the same count.
  await ensureWebhookStreams(nc, { ...DEFAULT_BUS_OPTIONS, replicas: 3 });
  t.equal((await jsm.streams.info(EVENTS_STREAM)).config.num_replicas, 3);
});

t.test("the streams answer while one node of three is down", async (t) => {
  const nc = await connectNats(cluster.url, "laurel-test");
  t.teardown(() => nc.close());
  const leader = await cluster.leaderOf(nc, EVENTS_STREAM);
  await leader.kill();
  const js = (await import("@nats-io/jetstream")).jetstream(nc);
  const deadline = Date.now() + 20_000;
  let stored = false;
  while (!stored && Date.now() < deadline) {
    try {
      await js.publish(`laurel.events.org.badge.created`, "{}", { timeout: 2_000 });
      stored = true;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  t.ok(stored, "a new leader was elected and stores events");
  const next = await cluster.leaderOf(nc, EVENTS_STREAM);
  t.not(next.spec.name, leader.spec.name, "another node leads the stream");
  await leader.start();
});
