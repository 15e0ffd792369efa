import t from "tap";
import type { RetrySchedule, WebhookDelivery } from "../../core/webhooks/mod.ts";
import { requestClientToken } from "../support/badges.ts";
import { signedInMember } from "../support/console.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";
import {
  makeTestCa,
  type Receiver,
  recordEvents,
  startReceiver,
  startTestPipeline,
  type TestCa,
  trpcQuery,
  waitFor,
  webhookEnv,
  webhookOrganization,
} from "../support/webhooks.ts";

/**
 * The console's Developers tools end to end, against the running service, its webhook pipeline
 * and a real HTTPS receiver: "redeliver failed since" brings failed deliveries to the receiver,
 * a secret rotated from the console signs what follows (checked with the Standard Webhooks
 * verifier), and an OAuth application deleted from the console loses its tokens at once.
 */
let laurel: TestLaurel;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let ca: TestCa;
let receiver: Receiver;

/** A few quick retries within a one-second window, then the delivery is failed. */
const FAIL_FAST: RetrySchedule = {
  intervalsSeconds: [0.3],
  repeatSeconds: 0.3,
  jitter: 0,
  maxRetryAfterSeconds: 1,
  windowSeconds: 1,
};

t.before(async () => {
  ca = makeTestCa();
  receiver = await startReceiver(ca);
  smtp = await startSmtpSink();
  laurel = await startLaurel({ env: { SMTP_URL: smtp.url, ...webhookEnv(ca) } });
});
t.teardown(async () => {
  await laurel?.close();
  await smtp?.close();
  await receiver?.close();
  ca?.remove();
});

const deliveriesOf = async (organization_id: string, event_id: string) =>
  (
    (await trpcQuery(laurel.adminOrigin, laurel.server.adminToken, "webhooks.deliveries", {
      organization_id,
      event_id,
    })) as { data: WebhookDelivery[] }
  ).data;

/** The console's datetime-local value (UTC, to the minute) of a moment. */
const minuteUtc = (d: Date) => d.toISOString().slice(0, 16);

t.test("redeliver failed since, from the console: each failed delivery reaches the receiver", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: FAIL_FAST });
  t.teardown(() => pipeline.stop());
  const org = await webhookOrganization(laurel, { url: receiver.url, name: "Redeliver Co" });
  const owner = await signedInMember(laurel, smtp, org.id, "redeliver-owner@example.org", "owner");
  const since = minuteUtc(new Date(Date.now() - 60_000));
  receiver.answer = () => ({ status: 500 });
  const events = await recordEvents(laurel.db, org.id, 3);
  for (const e of events) {
    await waitFor("the delivery to fail", async () => (await deliveriesOf(org.id, e.id))[0]?.status === "failed");
  }
  receiver.answer = () => ({ status: 200 });
  const before = receiver.received.length;

  await owner.get(`/console/${org.id}/developers/webhooks`);
  const answer = await owner.submit(`/console/${org.id}/developers/webhooks/redeliver_failed`, { since });
  t.equal(answer.status, 303);
  t.match(answer.location ?? "", /done=redelivered$/);
  t.match((await owner.get(answer.location ?? "")).text, /Redelivery queued/, "the page says so");
  for (const e of events) {
    await waitFor(
      "the redelivery to succeed",
      async () => (await deliveriesOf(org.id, e.id))[0]?.status === "succeeded",
    );
  }
  const arrived = receiver.received.slice(before);
  t.same(
    new Set(arrived.map((d) => d.json.id)),
    new Set(events.map((e) => e.id)),
    "every failed event arrived at the receiver again",
  );
  t.same(receiver.verify([org.secret], arrived), [], "signed with the organization's secret");
  const none = await owner.submit(`/console/${org.id}/developers/webhooks/redeliver_failed`, { since });
  t.match(none.location ?? "", /done=none_failed$/, "then nothing is left to redeliver");
});

t.test("a secret rotated from the console signs the next delivery", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca));
  t.teardown(() => pipeline.stop());
  receiver.answer = () => ({ status: 200 });
  const org = await webhookOrganization(laurel, { url: receiver.url, name: "Rotate Co" });
  const owner = await signedInMember(laurel, smtp, org.id, "rotate-owner@example.org", "owner");
  await owner.get(`/console/${org.id}/developers/webhooks`);
  const asked = await owner.submit(`/console/${org.id}/developers/webhooks/secret/rotate`);
  t.equal(asked.status, 200);
  t.match(asked.text, /Rotate the webhook signing secret\?/, "rotating asks first");
  const done = await owner.submit(`/console/${org.id}/developers/webhooks/secret/rotate`, { confirm: "yes" });
  t.equal(done.status, 303, "then redirects");
  t.notMatch(done.location ?? "", /whsec_/, "the secret is not in the address");
  const rotated = await owner.get(done.location ?? "");
  t.match(rotated.text, /Secret rotated/);
  const secret = /id="webhook-secret"[^>]*value="(whsec_[^"]+)"/.exec(rotated.text)?.[1] ?? "";
  t.match(secret, /^whsec_/, "the new secret is shown");
  t.not(secret, org.secret, "a new one");
  t.notMatch((await owner.get(done.location ?? "")).text, secret, "once: a reload no longer shows it");

  const before = receiver.received.length;
  const [event] = await recordEvents(laurel.db, org.id, 1);
  const delivery = await waitFor("the delivery", () =>
    receiver.received.slice(before).find((d) => d.json.id === event?.id),
  );
  t.same(receiver.verify([secret], [delivery]), [], "it verifies with the new secret alone");
  t.equal(
    String(delivery.headers["webhook-signature"]).split(" ").length,
    2,
    "and carries the previous secret's signature too, for its day of grace",
  );
});

t.test("an OAuth application deleted from the console: its access tokens stop working", async (t) => {
  const org = await webhookOrganization(laurel, { url: null, name: "Apps Co", dataServices: false });
  const owner = await signedInMember(laurel, smtp, org.id, "apps-owner@example.org", "owner");
  const created = await fetch(`${laurel.baseUrl}/organizations/${org.id}/oauth_applications`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "application/json" },
    body: JSON.stringify({ name: "Sync", scopes: ["badge_templates"] }),
  });
  t.equal(created.status, 201);
  const app = ((await created.json()) as { data: { id: number; uid: string; secret: string } }).data;
  const tokenRes = await requestClientToken(laurel.authUrl, app, "badge_templates");
  t.equal(tokenRes.status, 200);
  const { access_token } = (await tokenRes.json()) as { access_token: string };
  const list = () =>
    fetch(`${laurel.baseUrl}/organizations/${org.id}/badge_templates`, {
      headers: { authorization: `Bearer ${access_token}` },
    }).then((r) => r.status);
  t.equal(await list(), 200, "the token works");

  await owner.get(`/console/${org.id}/developers/oauth_applications`);
  const asked = await owner.submit(`/console/${org.id}/developers/oauth_applications/${app.id}/delete`);
  t.equal(asked.status, 200);
  t.match(asked.text, /Delete the application “Sync”\?/, "deleting asks first");
  t.equal(await list(), 200, "and changes nothing yet");
  const deleted = await owner.submit(`/console/${org.id}/developers/oauth_applications/${app.id}/delete`, {
    confirm: "yes",
  });
  t.equal(deleted.status, 303);
  t.match((await owner.get(deleted.location ?? "")).text, /Application deleted/);
  t.equal(await list(), 401, "its access token no longer works");
  const again = await requestClientToken(laurel.authUrl, app, "badge_templates");
  t.not(again.status, 200, "and it gets no new one");
  t.match(await again.text(), /invalid_client/, "an unknown client");
});
