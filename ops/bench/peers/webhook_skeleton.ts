// The webhook drain's floor for ops/bench/webhooks.ts: the libraries the design fixes (nats.js,
// undici, node:crypto), doing the least a webhook delivery needs, with none of Laurel's code. One
// process, like a worker process with its relay:
//   - publishes each event to a JetStream stream (`js.publish` per message, a batch in flight,
//     msgID set: what the relay does);
//   - consumes them from a durable pull consumer (`consume`), signs each (Standard Webhooks HMAC),
//     POSTs it with undici's `request` to the receiver with IN_FLIGHT requests in flight (the shipped
//     per-destination cap), and acknowledges it.
// No database at all (no outbox read, no delivery or attempt recorded), no seal or schema check, no
// destination limits: what these libraries alone cost for the work every delivery does.
//
// Env: NATS_URL, RECEIVER_URL (https://host:port/path), CA_FILE, EVENTS (20000), WARMUP (5000),
// IN_FLIGHT (8), BUS_ONLY (1: consume and acknowledge, no POST). Prints "measuring" when the measured
// events start, then one line `result {"rate":…,"cpuUs":…}`: their deliveries/s from the first
// publish to the last acknowledgement, and this process's CPU per event (µs). Ends on SIGTERM.

import { createHmac, createSecretKey, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { AckPolicy, type JsMsg, jetstream, jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Agent, request } from "undici";

const env = process.env;
const EVENTS = Number(env.EVENTS ?? 20_000);
const WARMUP = Number(env.WARMUP ?? 5_000);
const IN_FLIGHT = Number(env.IN_FLIGHT ?? 8);
const PUBLISH_BATCH = 256;
const STREAM = "BENCH_SKELETON";
/** BUS_ONLY=1: consume and acknowledge without posting (what the bus alone costs). */
const BUS_ONLY = env.BUS_ONLY === "1";

const url = env.RECEIVER_URL ?? "";
const agent = new Agent({
  connections: IN_FLIGHT,
  pipelining: 1,
  connect: { ca: readFileSync(env.CA_FILE ?? "", "utf8") },
});
// The libraries' own options and node:crypto's cheap path, as Laurel uses them: no stack trace
// captured ahead of every NATS request, and the HMAC key as a KeyObject.
const secret = createSecretKey(randomBytes(32));
const nc = await connect({ servers: env.NATS_URL ?? "", noAsyncTraces: true });
const jsm = await jetstreamManager(nc);
await jsm.streams.add({ name: STREAM, subjects: [`${STREAM.toLowerCase()}.>`], storage: StorageType.File });
await jsm.consumers.add(STREAM, {
  durable_name: "skeleton",
  ack_policy: AckPolicy.Explicit,
  max_ack_pending: 20_000,
});
const js = jetstream(nc);

let acked = 0;
let inFlight = 0;
let slotFreed: (() => void) | null = null;

const deliver = async (m: JsMsg): Promise<void> => {
  if (BUS_ONLY) {
    m.ack();
    acked++;
    return;
  }
  const body = m.string();
  const id = m.headers?.get("Nats-Msg-Id") ?? "";
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("base64");
  const res = await request(url, {
    method: "POST",
    dispatcher: agent,
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": `v1,${signature}`,
    },
    body,
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
  m.ack();
  acked++;
};

const consumer = await js.consumers.get(STREAM, "skeleton");
const messages = await consumer.consume({ max_messages: 512 });
void (async () => {
  for await (const m of messages) {
    while (inFlight >= IN_FLIGHT) await new Promise<void>((r) => (slotFreed = r));
    inFlight++;
    deliver(m)
      .catch((err: unknown) => {
        console.error(err);
        process.exit(1);
      })
      .finally(() => {
        inFlight--;
        slotFreed?.();
        slotFreed = null;
      });
  }
})();

const publish = async (n: number): Promise<void> => {
  for (let sent = 0; sent < n; sent += PUBLISH_BATCH) {
    const batch = Math.min(PUBLISH_BATCH, n - sent);
    await Promise.all(
      Array.from({ length: batch }, () => {
        const id = randomUUID();
        const body = JSON.stringify({
          id,
          organization_id: "0192a000-0000-7000-8000-000000000000",
          event_type: "badge.created",
          occurred_at: new Date().toISOString(),
        });
        return js.publish(`${STREAM.toLowerCase()}.badge.created`, body, { msgID: id });
      }),
    );
  }
};

const drained = async (target: number): Promise<void> => {
  while (acked < target) await new Promise((r) => setTimeout(r, 5));
};

await publish(WARMUP);
await drained(WARMUP);
console.log("measuring");
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await publish(EVENTS);
await drained(WARMUP + EVENTS);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(`result ${JSON.stringify({ rate: EVENTS / seconds, cpuUs: (cpu.user + cpu.system) / EVENTS })}`);
// Kept until the bench stops it (SIGTERM), like a server: an exit before the result is a failure.
process.once("SIGTERM", async () => {
  messages.stop();
  await jsm.streams.delete(STREAM);
  await nc.close();
  await agent.close();
  process.exit(0);
});
