import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import t from "tap";
import { eventMessageSeal } from "../../adapters/bus/mod.ts";
import { loadServerKeys } from "../../adapters/crypto/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import type { RetrySchedule } from "../../core/webhooks/mod.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import {
  makeTestCa,
  type Receiver,
  recordEvents,
  startReceiver,
  startTestPipeline,
  type TestCa,
  waitFor,
  webhookEnv,
  webhookOrganization,
} from "../support/webhooks.ts";

/**
 * Whatever is published on the work queues, the worker posts only recorded events, each to its own
 * organization's webhook, signed with that organization's secret.
 */
let laurel: TestLaurel;
let ca: TestCa;
let victimReceiver: Receiver;
let otherReceiver: Receiver;

/** One retry a second after the first attempt, then nothing soon: the test sends the dispatch. */
const ONE_RETRY: RetrySchedule = {
  intervalsSeconds: [1],
  repeatSeconds: 3600,
  jitter: 0,
  maxRetryAfterSeconds: 1,
  windowSeconds: 25 * 86_400,
};

t.before(async () => {
  ca = makeTestCa();
  laurel = await startLaurel();
  victimReceiver = await startReceiver(ca);
  otherReceiver = await startReceiver(ca);
});
t.teardown(async () => {
  await victimReceiver.close();
  await otherReceiver.close();
  await laurel.close();
  ca.remove();
});

const settle = () => new Promise((r) => setTimeout(r, 1500));

t.test("forged event messages are dropped; real events go to their own organization", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: ONE_RETRY });
  t.teardown(() => pipeline.stop());
  const victim = await webhookOrganization(laurel, { url: victimReceiver.url, events: "all", name: "Victim" });
  const other = await webhookOrganization(laurel, { url: otherReceiver.url, events: "all", name: "Other" });
  victimReceiver.received.length = 0;
  otherReceiver.received.length = 0;
  const js = jetstream(laurel.nc);

  // An event that was never recorded, in the victim's name.
  const invented = randomUUID();
  const forged = { id: invented, organization_id: victim.id, event_type: "badge.created", occurred_at: new Date() };
  await js.publish(`laurel.events.${victim.id}.badge.created`, JSON.stringify(forged), { msgID: invented });
  // Another organization's real event, in the victim's name.
  const [real] = await recordEvents(laurel.db, other.id, 1);
  const realId = (real as { id: string }).id;
  const stolen = { id: realId, organization_id: victim.id, event_type: "badge.revoked", occurred_at: new Date() };
  await js.publish(`laurel.events.${victim.id}.badge.revoked`, JSON.stringify(stolen), { msgID: `x-${realId}` });
  // The relay's sealed message of that event, its organization changed to the victim's: the seal no
  // longer holds, so the worker reads the event's row.
  const seal = eventMessageSeal(loadServerKeys({}, laurel.dataDir).busKey);
  const sealed = seal.seal({
    id: realId,
    organization_id: other.id,
    event_type: "badge.created",
    occurred_at: (real as EventRecord).occurred_at.toISOString(),
  });
  const tampered = { ...sealed, organization_id: victim.id };
  t.ok(seal.sealed(sealed) && !seal.sealed(tampered), "the seal holds only untouched");
  await js.publish(`laurel.events.${victim.id}.badge.created`, JSON.stringify(tampered), { msgID: `y-${realId}` });
  // Garbage: not a UUID (it must not stall the batch it lands in).
  await js.publish(`laurel.events.${victim.id}.badge.created`, JSON.stringify({ id: "1; drop", organization_id: 1 }));

  await waitFor("the real event at its own organization's receiver", () => otherReceiver.received.length >= 1);
  await settle();
  t.same(victimReceiver.received, [], "nothing is posted to the victim's receiver");
  for (const got of otherReceiver.received) {
    t.equal(got.json.id, realId);
    t.equal(got.json.organization_id, other.id, "the organization of the event's row");
    t.equal(got.json.event_type, "badge.created", "the type of the event's row");
  }
  t.same(otherReceiver.verify([other.secret]), [], "signed with its own organization's secret");

  // The victim's own events still arrive.
  const [own] = await recordEvents(laurel.db, victim.id, 1);
  await waitFor("the victim's own event", () => victimReceiver.received.length === 1);
  t.equal(victimReceiver.received[0]?.json.id, (own as { id: string }).id);
});

t.test("a dispatch naming another organization's delivery posts nothing there", async (t) => {
  const env = webhookEnv(ca, { WEBHOOK_SCHEDULER_INTERVAL_MS: "600000" });
  const pipeline = await startTestPipeline(laurel, env, { schedule: ONE_RETRY, schedulerIntervalMs: 600_000 });
  t.teardown(() => pipeline.stop());
  const victim = await webhookOrganization(laurel, { url: victimReceiver.url, events: "all", name: "Victim 2" });
  const other = await webhookOrganization(laurel, { url: otherReceiver.url, events: "all", name: "Other 2" });
  victimReceiver.received.length = 0;
  otherReceiver.received.length = 0;
  otherReceiver.answer = () => ({ status: 500 });
  t.teardown(() => {
    otherReceiver.answer = () => ({ status: 200 });
  });

  const [event] = await recordEvents(laurel.db, other.id, 1);
  const deliveryId = (event as { id: string }).id;
  await waitFor("the first, failed attempt", () => otherReceiver.received.length === 1);
  await new Promise((r) => setTimeout(r, 1300)); // the retry is due now

  const js = jetstream(laurel.nc);
  const forged = { delivery_id: deliveryId, organization_id: victim.id };
  await js.publish(`laurel.webhooks.dispatch.${victim.id}`, JSON.stringify(forged));
  await js.publish(`laurel.webhooks.dispatch.${victim.id}`, JSON.stringify({ delivery_id: "x", organization_id: "y" }));
  await settle();
  t.same(victimReceiver.received, [], "the other organization's delivery never reaches the victim");
  t.equal(otherReceiver.received.length, 1, "nor is it posted anywhere with the victim's settings");
});
