import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import type { RetrySchedule, WebhookAttempt, WebhookDelivery } from "../../core/webhooks/mod.ts";
import { startLaurel, type TestLaurel, trpcMutation } from "../support/laurel.ts";
import {
  makeTestCa,
  type Receiver,
  recordEvents,
  startReceiver,
  startTestPipeline,
  type TestCa,
  trpcFailure,
  trpcQuery,
  waitFor,
  webhookEnv,
  webhookOrganization,
} from "../support/webhooks.ts";

/**
 * Webhook delivery end to end: real PostgreSQL, real NATS, a real HTTPS
 * receiver with its own CA, every delivery verified with the `standardwebhooks` package.
 */
let laurel: TestLaurel;
let ca: TestCa;
let receiver: Receiver;

/** Retries a third of a second apart, so failures come back quickly. */
const QUICK: RetrySchedule = {
  intervalsSeconds: [0.3],
  repeatSeconds: 0.3,
  jitter: 0,
  maxRetryAfterSeconds: 1,
  windowSeconds: 25 * 86_400,
};

t.before(async () => {
  ca = makeTestCa();
  laurel = await startLaurel();
  receiver = await startReceiver(ca);
});
t.teardown(async () => {
  await receiver.close();
  await laurel.close();
  ca.remove();
});

const admin = () => laurel.server.adminToken;
const deliveries = async (organization_id: string, event_id?: string) =>
  (
    (await trpcQuery(laurel.adminOrigin, admin(), "webhooks.deliveries", {
      organization_id,
      ...(event_id ? { event_id } : {}),
    })) as {
      data: WebhookDelivery[];
      metadata: { total_count: number };
    }
  ).data;
const attempts = async (organization_id: string, event_id: string) =>
  (
    (await trpcQuery(laurel.adminOrigin, admin(), "webhooks.attempts", { organization_id, event_id })) as {
      data: WebhookAttempt[];
    }
  ).data
    .slice()
    .sort((a, b) => a.attempt_number - b.attempt_number);
const api = async (path: string, auth: string) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, { headers: { authorization: auth } });
  return { status: res.status, body: (await res.json()) as { data: unknown; metadata: Record<string, unknown> } };
};

t.test("an event is posted once, signed, with the event summary", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: QUICK });
  t.teardown(() => pipeline.stop());
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200, body: "thanks" });
  const org = await webhookOrganization(laurel, { url: receiver.url, events: "all" });
  const [event] = await recordEvents(laurel.db, org.id, 1);
  const id = (event as { id: string }).id;

  await waitFor("the delivery", () => receiver.received.length === 1);
  const got = receiver.received[0] as (typeof receiver.received)[number];
  t.same(receiver.verify([org.secret]), [], "the signature verifies with standardwebhooks");
  t.equal(got.headers["webhook-id"], id, "webhook-id is the event id");
  t.equal(got.headers["content-type"], "application/json");
  t.equal(got.headers["user-agent"], "Laurel-Webhooks/1", "the worker's user agent, once");
  t.same(Object.keys(got.json).sort(), ["delivered_at", "event_type", "id", "occurred_at", "organization_id"]);
  t.match(got.json, { id, organization_id: org.id, event_type: "badge.created" });
  t.match(got.json.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, "seconds precision");
  t.match(got.json.delivered_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const [delivery] = await waitFor("the delivery to be recorded", async () => {
    const d = await deliveries(org.id, id);
    return d[0]?.status === "succeeded" ? d : undefined;
  });
  t.match(delivery, { id, event_id: id, status: "succeeded", attempts_count: 1, next_attempt_at: null });
  const [attempt] = await attempts(org.id, id);
  t.match(attempt, {
    attempt_number: 1,
    status_code: 200,
    outcome: "succeeded",
    response_excerpt: "thanks",
    error: null,
  });

  const listed = await api(`/organizations/${org.id}/events`, org.auth);
  t.equal(listed.status, 200);
  t.equal((listed.body.data as Array<{ id: string }>)[0]?.id, id, "the event is listed");

  const metrics = await (await fetch(`${laurel.adminOrigin}/metrics`)).text();
  t.match(metrics, /laurel_events_recorded_total \d+/);
  const local = await pipeline.metrics.render();
  t.match(local, /laurel_webhook_attempts_total\{outcome="succeeded"\} 1/);
  t.match(local, /laurel_webhook_deliveries_total\{result="delivered"\} 1/);
  t.match(local, /laurel_webhook_delivery_lag_seconds_count 1/);
  t.match(local, /laurel_events_published_total [1-9]/);
});

t.test("only 200 succeeds: 201, 204, 3xx, 4xx, 5xx and timeouts are retried", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: QUICK });
  t.teardown(() => pipeline.stop());
  receiver.received.length = 0;
  const org = await webhookOrganization(laurel, { url: receiver.url });
  const firstAnswers = [
    { status: 201 },
    { status: 204 },
    { status: 302, headers: { location: `https://localhost:${receiver.port}/elsewhere` } },
    { status: 404 },
    { status: 500, headers: { "retry-after": "0" } },
    { status: 200, delayMs: 2_500 },
  ];
  const events = await recordEvents(laurel.db, org.id, firstAnswers.length);
  const answerFor = new Map(events.map((e, i) => [e.id, firstAnswers[i] as { status: number }]));
  receiver.answer = (d) => {
    const first = answerFor.get(d.json.id);
    answerFor.delete(d.json.id);
    return first ?? { status: 200 };
  };
  for (const [i, e] of events.entries()) {
    const list = await waitFor(`event ${i} delivered`, async () => {
      const a = await attempts(org.id, e.id);
      return a.some((x) => x.outcome === "succeeded") ? a : undefined;
    });
    const first = firstAnswers[i] as { status: number; delayMs?: number };
    t.equal(list.length, 2, `answer ${first.status}${first.delayMs ? " (late)" : ""}: one failure, one retry`);
    if (first.delayMs) t.match(list[0], { outcome: "timeout", status_code: null });
    else t.match(list[0], { outcome: "http_error", status_code: first.status });
    t.match(list[1], { outcome: "succeeded", status_code: 200 });
  }
  t.notOk(
    receiver.received.some((d) => d.headers.host?.includes("elsewhere")),
    "the redirect was not followed",
  );
  t.same(receiver.verify([org.secret]), []);
  t.ok(
    [...receiver.byEvent().values()].every((list) => list.every((d) => d.headers["webhook-id"] === d.json.id)),
    "a retry carries the same webhook-id",
  );
});

t.test("a refused connection is a failure that is retried", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: QUICK });
  t.teardown(() => pipeline.stop());
  const closed = await freePort();
  const org = await webhookOrganization(laurel, { url: `https://localhost:${closed}/hooks` });
  const [event] = await recordEvents(laurel.db, org.id, 1);
  const id = (event as { id: string }).id;
  const list = await waitFor("three refused attempts", async () => {
    const a = await attempts(org.id, id);
    return a.length >= 3 ? a : undefined;
  });
  t.ok(
    list.every((a) => a.outcome === "connection_error" && a.status_code === null && /ECONNREFUSED/.test(a.error ?? "")),
  );
  const [delivery] = await deliveries(org.id, id);
  t.ok(delivery?.status === "pending" || delivery?.status === "delivering", "still retrying");
  // Clearing the URL ends it: the next attempt finds nothing to post to.
  await trpcMutation(laurel.adminOrigin, admin(), "webhooks.update", { organization_id: org.id, webhook_url: null });
  await waitFor("the delivery to end", async () => (await deliveries(org.id, id))[0]?.status === "failed");
});

t.test(
  "nothing is posted without a subscribed kind, a webhook_url or data services; events are still listed",
  async (t) => {
    const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: QUICK });
    t.teardown(() => pipeline.stop());
    receiver.received.length = 0;
    receiver.answer = () => ({ status: 200 });
    const unsubscribed = await webhookOrganization(laurel, { url: receiver.url, events: ["badge.deleted"] });
    const noUrl = await webhookOrganization(laurel, { url: null });
    const noDataServices = await webhookOrganization(laurel, { url: receiver.url, dataServices: false });
    const control = await webhookOrganization(laurel, { url: receiver.url, events: ["badge.created"] });
    for (const org of [unsubscribed, noUrl, noDataServices]) await recordEvents(laurel.db, org.id, 2);
    const [sent] = await recordEvents(laurel.db, control.id, 1);
    await waitFor("the control delivery", () => receiver.received.some((d) => d.json.id === sent?.id));
    await new Promise((r) => setTimeout(r, 300));
    t.same(
      receiver.received.map((d) => d.json.organization_id),
      [control.id],
      "only the organization meeting every delivery condition got a POST",
    );
    for (const org of [unsubscribed, noUrl, noDataServices]) {
      const listed = await api(`/organizations/${org.id}/events`, org.auth);
      t.equal((listed.body.data as unknown[]).length, 2, "both events are listed");
      t.same(await deliveries(org.id), [], "and no delivery exists");
    }
    const metrics = await pipeline.metrics.render();
    t.match(metrics, /laurel_webhook_not_posted_total\{reason="not_subscribed"\} 2/);
    t.match(metrics, /laurel_webhook_not_posted_total\{reason="no_webhook_url"\} 2/);
    t.match(metrics, /laurel_webhook_not_posted_total\{reason="no_data_services"\} 2/);
  },
);

t.test("SSRF: 127.0.0.1 is refused as a webhook_url, and a name resolving to it is never connected to", async (t) => {
  const org = await webhookOrganization(laurel, { url: null });
  for (const url of [
    `https://127.0.0.1:${receiver.port}/hooks`,
    "https://[::1]/hooks",
    "https://169.254.169.254/",
    "http://example.com/",
  ]) {
    const refused = await trpcFailure(laurel.adminOrigin, admin(), "webhooks.update", {
      organization_id: org.id,
      webhook_url: url,
    });
    t.equal(refused.status, 422, `${url} refused`);
    t.equal(refused.body.error.data.code, "UNPROCESSABLE_CONTENT");
    t.same(
      refused.body.error.data.errors.map((e) => e.field),
      ["webhook_url"],
      "the error names the field (and why)",
    );
    t.notOk(JSON.stringify(refused.body).includes("    at "), "no stack trace in the answer");
  }
  // A shape the schema refuses: 400, with the field named.
  const malformed = await trpcFailure(laurel.adminOrigin, admin(), "webhooks.update", { organization_id: "nope" });
  t.equal(malformed.status, 400);
  t.same(
    [...new Set(malformed.body.error.data.errors.map((e) => e.field))],
    ["organization_id"],
    "every issue names organization_id",
  );
  // `localhost` is a name, accepted when set; the worker (no WEBHOOK_ALLOWED_NETWORKS) refuses the address.
  await trpcMutation(laurel.adminOrigin, admin(), "webhooks.update", {
    organization_id: org.id,
    webhook_url: receiver.url,
  });
  const pipeline = await startTestPipeline(
    laurel,
    { ...webhookEnv(ca), WEBHOOK_ALLOWED_NETWORKS: "" },
    { schedule: QUICK },
  );
  t.teardown(() => pipeline.stop());
  receiver.received.length = 0;
  const [event] = await recordEvents(laurel.db, org.id, 1);
  const id = (event as { id: string }).id;
  const list = await waitFor("a blocked attempt", async () => {
    const a = await attempts(org.id, id);
    return a.length > 0 ? a : undefined;
  });
  t.match(list[0], { outcome: "blocked", status_code: null, error: /refused to connect to 127\.0\.0\.1 \(loopback/ });
  t.equal(receiver.received.length, 0, "nothing reached the receiver");
  await trpcMutation(laurel.adminOrigin, admin(), "webhooks.update", { organization_id: org.id, webhook_url: null });
});

t.test("secret rotation: the old secret signs beside the new one", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: QUICK });
  t.teardown(() => pipeline.stop());
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200 });
  const org = await webhookOrganization(laurel, { url: receiver.url });
  const again = (await trpcMutation(laurel.adminOrigin, admin(), "webhooks.secret", { organization_id: org.id })) as {
    secret: string;
  };
  t.same(again, { secret: org.secret }, "asking again shows the same secret");
  t.match(org.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const rotated = (await trpcMutation(laurel.adminOrigin, admin(), "webhooks.secret", {
    organization_id: org.id,
    rotate: true,
  })) as {
    secret: string;
    previous_secret: string;
    previous_secret_expires_at: string;
  };
  t.not(rotated.secret, org.secret);
  t.equal(rotated.previous_secret, org.secret);
  t.ok(Math.abs(Date.parse(rotated.previous_secret_expires_at) - Date.now() - 86_400_000) < 60_000, "for 24 hours");
  await recordEvents(laurel.db, org.id, 1);
  await waitFor("the delivery", () => receiver.received.length === 1);
  const signature = String(receiver.received[0]?.headers["webhook-signature"]);
  t.equal(signature.split(" ").length, 2, "two signatures");
  t.same(receiver.verify([rotated.secret]), [], "verifies with the new secret");
  t.same(receiver.verify([org.secret]), [], "and with the old one");
});

t.test("operators redeliver one event, or every failed one since a time", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { schedule: { ...QUICK, windowSeconds: 1 } });
  t.teardown(() => pipeline.stop());
  receiver.received.length = 0;
  const org = await webhookOrganization(laurel, { url: receiver.url });
  receiver.answer = () => ({ status: 500 });
  const since = new Date().toISOString();
  const events = await recordEvents(laurel.db, org.id, 3);
  // A one-second window: a few attempts, then failed.
  for (const e of events) {
    await waitFor("the delivery to fail", async () => (await deliveries(org.id, e.id))[0]?.status === "failed");
  }
  receiver.answer = () => ({ status: 200 });
  const before = receiver.received.length;
  const first = events[0] as { id: string };
  const redelivery = (await trpcMutation(laurel.adminOrigin, admin(), "webhooks.redeliver", {
    organization_id: org.id,
    event_id: first.id,
  })) as WebhookDelivery;
  t.match(redelivery, { event_id: first.id, status: "pending", attempts_count: 0 });
  t.not(redelivery.id, first.id, "a new delivery");
  await waitFor("the redelivery", async () => (await deliveries(org.id, first.id))[0]?.status === "succeeded");
  const refused = await trpcFailure(laurel.adminOrigin, admin(), "webhooks.redeliver", {
    organization_id: org.id,
    event_id: org.id,
  });
  t.equal(refused.status, 404, "an unknown event");
  const bulk = (await trpcMutation(laurel.adminOrigin, admin(), "webhooks.redeliverFailed", {
    organization_id: org.id,
    since,
  })) as {
    redelivered: number;
  };
  t.equal(bulk.redelivered, 2, "the two still failed");
  for (const e of events.slice(1)) {
    await waitFor("a bulk redelivery", async () => (await deliveries(org.id, e.id))[0]?.status === "succeeded");
  }
  const later = receiver.received.slice(before);
  t.same(new Set(later.map((d) => d.json.id)), new Set(events.map((e) => e.id)), "each event came again");
  t.ok(
    later.every((d) => d.headers["webhook-id"] === d.json.id),
    "with its own webhook-id",
  );
  t.same(receiver.verify([org.secret]), []);
  const none = (await trpcMutation(laurel.adminOrigin, admin(), "webhooks.redeliverFailed", {
    organization_id: org.id,
    since,
  })) as {
    redelivered: number;
  };
  t.equal(none.redelivered, 0, "nothing is failed any more");
  const bad = await trpcFailure(laurel.adminOrigin, admin(), "webhooks.redeliverFailed", {
    organization_id: org.id,
    since: "yesterday",
  });
  t.equal(bad.status, 422);
});

t.test("a slow receiver does not hold back another organization's deliveries", async (t) => {
  const slow = await startReceiver(ca);
  t.teardown(() => slow.close());
  slow.answer = () => ({ status: 200, delayMs: 1_000 });
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca, { WEBHOOK_MAX_PER_DESTINATION: "2" }), {
    schedule: QUICK,
  });
  t.teardown(() => pipeline.stop());
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200 });
  const slowOrg = await webhookOrganization(laurel, { url: slow.url });
  const fastOrg = await webhookOrganization(laurel, { url: receiver.url });
  await recordEvents(laurel.db, slowOrg.id, 40);
  await new Promise((r) => setTimeout(r, 200));
  const started = Date.now();
  const fast = await recordEvents(laurel.db, fastOrg.id, 20);
  await waitFor("the healthy organization's deliveries", () => receiver.received.length === fast.length);
  t.ok(
    Date.now() - started < 1_500,
    `healthy deliveries took ${Date.now() - started} ms, not behind 40 s of slow ones`,
  );
  t.ok(slow.received.length < 40, "the slow receiver is still being worked through");
  // Once the receiver is known to be slow, its surplus is put off in the database, not held here.
  await waitFor(
    "deferrals",
    async () => /laurel_webhook_deferred_total [1-9]/.test(await pipeline.metrics.render()),
    5_000,
  );
  t.pass("the slow receiver's surplus was put off");
  await trpcMutation(laurel.adminOrigin, admin(), "webhooks.update", {
    organization_id: slowOrg.id,
    webhook_url: null,
  });
});
