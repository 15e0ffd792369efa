import t from "tap";
import { Value } from "typebox/value";
import {
  buildAttemptRequest,
  concludeAttempt,
  DEFAULT_SCHEDULE,
  DESTINATION_POLICY,
  type DeliveryEvent,
  destinationIsFailing,
  newDeliveryProgress,
  type PostResult,
  putOffSeconds,
  WebhookAttempt,
  WebhookDelivery,
  webhookAttemptJson,
  webhookDeliveryJson,
} from "../../core/webhooks/mod.ts";

const T0 = new Date("2024-03-01T12:00:00.250Z");
const later = (s: number): Date => new Date(T0.getTime() + s * 1000);
const KEY_A = `${"A".repeat(43)}=`;
const KEY_B = `${"B".repeat(43)}=`;
const event: DeliveryEvent = {
  event_id: "0190a0b0-0000-7000-8000-000000000002",
  organization_id: "0190a0b0-0000-4000-8000-000000000003",
  event_type: "badge.created",
  occurred_at: new Date("2024-03-01T11:59:59.999Z"),
};
/** A transparent "HMAC", so the test sees exactly what was signed with which key. */
const crypto = { sign: (key: string, input: string) => `${key.slice(0, 1)}:${input}` };

t.test("an attempt's request: the event summary, signed afresh with every active secret", (t) => {
  const req = buildAttemptRequest({
    event,
    webhookUrl: "https://hooks.example/x",
    secrets: { current: `whsec_${KEY_A}`, previous: null, previousExpiresAt: null },
    now: T0,
    crypto,
  });
  if (!req) throw new Error("no request");
  t.equal(req.url, "https://hooks.example/x");
  t.same(JSON.parse(req.body), {
    id: event.event_id,
    organization_id: event.organization_id,
    event_type: "badge.created",
    occurred_at: "2024-03-01T11:59:59Z",
    delivered_at: "2024-03-01T12:00:00Z",
  });
  t.equal(req.headers["content-type"], "application/json");
  t.equal(req.headers["webhook-id"], event.event_id, "webhook-id is the event id");
  t.equal(req.headers["webhook-timestamp"], "1709294400");
  t.equal(req.headers["webhook-signature"], `v1,A:${event.event_id}.1709294400.${req.body}`);
  t.same(
    Object.keys(req.headers),
    ["content-type", "webhook-id", "webhook-timestamp", "webhook-signature"],
    "headers in their order",
  );

  const later10 = buildAttemptRequest({
    event,
    webhookUrl: "https://hooks.example/x",
    secrets: { current: `whsec_${KEY_A}`, previous: null, previousExpiresAt: null },
    now: later(10),
    crypto,
  });
  t.not(later10?.headers["webhook-signature"], req.headers["webhook-signature"], "a later attempt is signed anew");
  t.equal(JSON.parse(later10?.body ?? "{}").delivered_at, "2024-03-01T12:00:10Z");
  t.end();
});

t.test("rotation: both secrets sign for 24 hours, then only the new one", (t) => {
  const secrets = { current: `whsec_${KEY_B}`, previous: `whsec_${KEY_A}`, previousExpiresAt: later(86_400) };
  const during = buildAttemptRequest({ event, webhookUrl: "https://h.example/", secrets, now: later(100), crypto });
  t.match(during?.headers["webhook-signature"], /^v1,B:\S+ v1,A:\S+$/);
  const after = buildAttemptRequest({ event, webhookUrl: "https://h.example/", secrets, now: later(86_400), crypto });
  t.match(after?.headers["webhook-signature"], /^v1,B:\S+$/);
  t.equal(
    buildAttemptRequest({
      event,
      webhookUrl: "https://h.example/",
      secrets: { current: null, previous: null, previousExpiresAt: null },
      now: T0,
      crypto,
    }),
    null,
    "no secret, no request: nothing is ever sent unsigned",
  );
  t.equal(
    buildAttemptRequest({
      event,
      webhookUrl: "https://h.example/",
      secrets: { current: "not-a-secret", previous: null, previousExpiresAt: null },
      now: T0,
      crypto,
    }),
    null,
  );
  t.end();
});

const conclude = (result: PostResult, progress = newDeliveryProgress(T0), now = later(1)) =>
  concludeAttempt({
    attemptId: "0190a0b0-0000-7000-8000-000000000009",
    deliveryId: event.event_id,
    progress,
    result,
    startedAt: progress.nextAttemptAt ?? T0,
    now,
    random: () => 0.5,
  });

t.test("concluding an attempt: outcome, attempt record, and the delivery's next state", (t) => {
  const ok = conclude({ status: 200, durationMs: 12.6, body: "fine" });
  t.match(ok.attempt, {
    attempt_number: 1,
    status_code: 200,
    outcome: "succeeded",
    duration_ms: 13,
    response_excerpt: "fine",
    error: null,
  });
  t.match(ok.progress, { status: "succeeded", attemptsCount: 1, nextAttemptAt: null, succeededAt: later(1) });

  const busy = conclude({ status: 503, durationMs: 5, retryAfter: "600", body: "later" });
  t.match(busy.attempt, { outcome: "http_error", status_code: 503 });
  t.same(busy.progress.nextAttemptAt, later(601), "Retry-After lengthens the first 5 s wait");
  t.equal(busy.progress.status, "pending");

  const plain = conclude({ status: 204, durationMs: 5 });
  t.same(plain.progress.nextAttemptAt, later(6), "the schedule's 5 s otherwise");
  t.equal(plain.attempt.response_excerpt, null);

  const slow = conclude({ timedOut: true, durationMs: 15_000 });
  t.match(slow.attempt, { outcome: "timeout", status_code: null, error: "no complete answer within the timeout" });

  const refused = conclude({ error: `ECONNREFUSED: ${"x".repeat(2000)}`, durationMs: 1 });
  t.equal(refused.attempt.outcome, "connection_error");
  t.equal(refused.attempt.error?.length, 500, "errors are cut to 500 characters");

  const blocked = conclude({ blocked: true, error: "refused to connect to 10.0.0.1 (private address)", durationMs: 0 });
  t.equal(blocked.attempt.outcome, "blocked");
  t.equal(blocked.progress.status, "pending", "a blocked address is retried (DNS or the allowlist may change)");

  const long = conclude({ status: 500, durationMs: 1, body: "é".repeat(1000) });
  t.equal(long.attempt.response_excerpt?.length, 512, "the excerpt keeps 1024 bytes of UTF-8");

  // An attempt late in the window: no room for another one.
  const late = {
    ...newDeliveryProgress(T0),
    attemptsCount: 30,
    firstAttemptAt: T0,
    nextAttemptAt: later(24.9 * 86_400),
  };
  const last = conclude({ status: 500, durationMs: 1 }, late, later(24.9 * 86_400 + 1));
  t.match(last.progress, { status: "failed", attemptsCount: 31, nextAttemptAt: null });
  t.equal(last.attempt.attempt_number, 31);
  t.end();
});

t.test("put-off time: the queue ahead, bounded, jittered; a failing destination", (t) => {
  const at = (ahead: number, random: number): number => Math.round(putOffSeconds(ahead, random) * 1000) / 1000;
  t.equal(at(3, 0.5), 3);
  t.equal(at(3, 0), 2.4, "-20%");
  t.equal(at(3, 1), 3.6, "+20%");
  t.equal(at(0, 0.5), 0.2, "at least 0.2 s");
  t.equal(at(10 * 86_400, 0.5), 6 * 3600, "at most 6 hours");
  t.equal(at(3, 7), 3.6, "random is clamped");
  t.notOk(destinationIsFailing(9));
  t.ok(destinationIsFailing(DESTINATION_POLICY.failingAfter), "failing after 10 failures in a row");
  t.ok(DESTINATION_POLICY.shortPutOffSeconds <= 60, "only short waits stay in JetStream");
  t.end();
});

t.test("delivery and attempt JSON match their schemas", (t) => {
  const progress = conclude({ status: 500, durationMs: 3 });
  const delivery = webhookDeliveryJson({
    id: event.event_id,
    ...event,
    created_at: T0,
    progress: progress.progress,
  });
  t.ok(Value.Check(WebhookDelivery, delivery));
  t.match(delivery, {
    status: "pending",
    attempts_count: 1,
    first_attempt_at: T0.toISOString(),
    next_attempt_at: later(6).toISOString(),
  });
  t.ok(Value.Check(WebhookAttempt, webhookAttemptJson(progress.attempt)));
  t.equal(DEFAULT_SCHEDULE.windowSeconds, 25 * 86_400);
  t.end();
});
