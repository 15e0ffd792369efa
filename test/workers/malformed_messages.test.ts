import { createSecretKey, randomBytes, randomUUID } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import t from "tap";
import {
  type BusLog,
  connectNats,
  consumeWorkQueue,
  DEFAULT_BUS_OPTIONS,
  DISPATCH_QUEUE,
  DISPATCH_STREAM,
  DISPATCH_SUBJECTS,
  EVENTS_QUEUE,
  EVENTS_STREAM,
  ensureWebhookStreams,
  eventMessageSeal,
  HOSTED_INVALIDATIONS,
  jetstreamDispatchPublisher,
  jetstreamEventPublisher,
  type NatsConnection,
  natsHostedInvalidations,
  natsRevocationBroadcast,
  natsSettingsChanges,
  REVOCATIONS,
  subscribeHostedInvalidations,
  subscribeRevocations,
  subscribeSettingsChanges,
  WEBHOOK_CONSUMER,
  WEBHOOK_SETTINGS_CHANGES,
} from "../../adapters/bus/mod.ts";
import { startTestNats, type TestNats } from "../support/services.ts";

/**
 * Every message between processes is checked on receipt: whatever else is published on a subject
 * (not JSON, another shape, a value out of range) is logged and dropped, and the receiver goes on
 * with the next good message. JetStream work messages that are dropped are terminated, so they are
 * neither handed to the worker nor redelivered.
 */
let nats: TestNats;
let nc: NatsConnection;

t.before(async () => {
  nats = await startTestNats();
  nc = await connectNats(nats.url, "malformed-messages-test");
});
t.teardown(async () => {
  await nc.close();
  await nats.stop();
});

const recordingLog = () => {
  const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const errors: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const log: BusLog = {
    warn: (obj, msg) => void warnings.push({ obj: obj as Record<string, unknown>, msg }),
    error: (obj, msg) => void errors.push({ obj: obj as Record<string, unknown>, msg }),
  };
  return { log, warnings, errors };
};

const waitFor = async (what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Not JSON, JSON of no object, and objects of the wrong shape: what any client could publish. */
const GARBAGE = ["not json {", "", "null", "42", '"text"', "[]", "{}", '{"kind":"other","id":7}'];

t.test("revocations: malformed ones are logged and dropped, the next good one is handled", async (t) => {
  const { log, warnings } = recordingLog();
  const got: unknown[] = [];
  const stop = subscribeRevocations(nc, (r) => got.push(r), log);
  t.teardown(stop);
  await nc.flush();
  for (const text of [...GARBAGE, '{"kind":"token"}', '{"kind":"application","clientId":""}']) {
    nc.publish(REVOCATIONS.subject, text);
  }
  await natsRevocationBroadcast(nc, () => {}).tokenRevoked("digest-1");
  await waitFor("the good revocation", () => got.length === 1);
  t.same(got, [{ kind: "token", digest: "digest-1" }]);
  t.equal(warnings.length, GARBAGE.length + 2, "one warning per malformed message");
  for (const w of warnings) {
    t.equal(w.obj.subject, REVOCATIONS.subject);
    t.match(w.msg, /^malformed message dropped/);
  }
});

t.test("hosted invalidations: a malformed batch is dropped whole, good ones still arrive", async (t) => {
  const { log, warnings } = recordingLog();
  const got: unknown[] = [];
  const stop = subscribeHostedInvalidations(nc, (item) => got.push(item), log);
  t.teardown(stop);
  await nc.flush();
  const bad = [...GARBAGE, '[{"kind":"issuer"},{"kind":"nope"}]', '[{"kind":"assertion","id":3}]', '{"kind":"issuer"}'];
  for (const text of bad) nc.publish(HOSTED_INVALIDATIONS.subject, text);
  await natsHostedInvalidations(nc)([{ kind: "assertion", id: "a1" }, { kind: "issuer" }]);
  await waitFor("the good invalidations", () => got.length === 2);
  t.same(got, [{ kind: "assertion", id: "a1" }, { kind: "issuer" }]);
  // "[]" is a well-formed batch of nothing: not a warning.
  t.equal(warnings.length, bad.length - 1, "one warning per malformed message");
  t.ok(warnings.every((w) => w.obj.subject === HOSTED_INVALIDATIONS.subject));
});

t.test(
  "settings changes: malformed ones are dropped; a handler that throws does not end the subscription",
  async (t) => {
    const { log, warnings, errors } = recordingLog();
    const got: string[] = [];
    const stop = subscribeSettingsChanges(
      nc,
      (organizationId) => {
        got.push(organizationId);
        if (got.length === 1) throw new Error("the cache is away");
      },
      log,
    );
    t.teardown(stop);
    await nc.flush();
    const bad = [...GARBAGE, '{"organization_id":"not-a-uuid"}', '{"organization_id":null}'];
    for (const text of bad) nc.publish(WEBHOOK_SETTINGS_CHANGES.subject, text);
    const first = randomUUID();
    const second = randomUUID();
    await natsSettingsChanges(nc)(first);
    await natsSettingsChanges(nc)(second);
    await waitFor("both good changes", () => got.length === 2);
    t.same(got, [first, second]);
    t.equal(warnings.length, bad.length, "one warning per malformed message");
    t.equal(errors.length, 1, "the throwing handler is logged");
    t.equal(errors[0]?.obj.subject, WEBHOOK_SETTINGS_CHANGES.subject);
  },
);

/** The pull consumer's state: nothing handed out and unacknowledged, nothing redelivered. */
const consumerState = async (stream: string) => {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.consumers.info(stream, WEBHOOK_CONSUMER);
  return { ackPending: info.num_ack_pending, redelivered: info.num_redelivered, waiting: info.num_pending };
};

t.test("work queues: malformed messages are logged, terminated and never handed to the worker", async (t) => {
  // A short AckWait: a dropped message that was merely left unacknowledged would come back (and
  // be warned about again) within the test.
  await ensureWebhookStreams(nc, { ...DEFAULT_BUS_OPTIONS, ackWaitMs: 1_000 });
  const org = randomUUID();
  const cases = [
    {
      queue: EVENTS_QUEUE,
      stream: EVENTS_STREAM,
      subject: `laurel.events.${org}.badge.created`,
      bad: [
        ...GARBAGE,
        JSON.stringify({ id: "1; drop", organization_id: org, event_type: "badge.created", occurred_at: "x" }),
        JSON.stringify({ id: randomUUID(), organization_id: org, event_type: "badge.created" }),
        JSON.stringify({ id: randomUUID(), organization_id: 1, event_type: "", occurred_at: new Date() }),
      ],
      publishGood: async (id: string) =>
        jetstreamEventPublisher(nc, eventMessageSeal(createSecretKey(randomBytes(32)))).publish([
          { id, organization_id: org, event_type: "badge.created", occurred_at: new Date() },
        ]),
      idOf: (body: unknown) => (body as { id: string }).id,
    },
    {
      queue: DISPATCH_QUEUE,
      stream: DISPATCH_STREAM,
      subject: `${DISPATCH_SUBJECTS}.${org}`,
      bad: [
        ...GARBAGE,
        JSON.stringify({ delivery_id: "x", organization_id: "y" }),
        JSON.stringify({ delivery_id: randomUUID() }),
      ],
      publishGood: async (id: string) =>
        jetstreamDispatchPublisher(nc).publish([{ delivery_id: id, organization_id: org }]),
      idOf: (body: unknown) => (body as { delivery_id: string }).delivery_id,
    },
  ];
  for (const c of cases) {
    await t.test(c.stream, async (t) => {
      const { log, warnings } = recordingLog();
      const handled: string[] = [];
      let taken = 0;
      const consumer = consumeWorkQueue(
        nc,
        c.queue as typeof EVENTS_QUEUE,
        {
          batch: 4,
          take: () => {
            taken++;
            return undefined;
          },
          log,
        },
        (m) => {
          handled.push(c.idOf(m.body));
          t.equal(m.deliveryCount, 1, "handed out once");
          m.ack();
        },
      );
      t.teardown(() => consumer.stop());
      for (const text of c.bad) await nc.request(c.subject, text); // each stored (PubAck) before the next
      const good = [randomUUID(), randomUUID()];
      await c.publishGood(good[0] as string);
      await c.publishGood(good[1] as string);
      await waitFor("the good messages", () => handled.length === 2);
      t.same(handled, good, "only the good messages reach the worker, in order");
      t.equal(taken, 2, "a dropped message takes no worker slot");
      t.equal(warnings.length, c.bad.length, "one warning per malformed message");
      t.ok(warnings.every((w) => w.obj.subject === c.subject && /^malformed message dropped/.test(w.msg)));
      // Longer than AckWait: anything left unacknowledged would have come back by now.
      await new Promise((r) => setTimeout(r, 1_500));
      t.equal(warnings.length, c.bad.length, "no malformed message came back");
      t.same(await consumerState(c.stream), { ackPending: 0, redelivered: 0, waiting: 0 });
    });
  }
});
