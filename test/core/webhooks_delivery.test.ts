import t from "tap";
import { Value } from "typebox/value";
import {
  ATTEMPT_OUTCOMES,
  type AttemptOutcome,
  type AttemptResult,
  afterAttempt,
  canTransition,
  classifyResponse,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  deliveryOutlook,
  newDeliveryProgress,
  normalizeEventTypes,
  notDeliveredReason,
  parseEventTypeList,
  responseExcerpt,
  shouldDeliver,
  WebhookAttempt,
  WebhookDelivery,
  WebhookSettings,
  WebhookSettingsInput,
} from "../../core/webhooks/mod.ts";

const T0 = new Date("2024-03-01T12:00:00.000Z");
const later = (s: number): Date => new Date(T0.getTime() + s * 1000);

t.test("status code x outcome: only 200 is success, every failure retries", (t) => {
  const cases: [AttemptResult, AttemptOutcome][] = [
    [{ status: 200 }, "succeeded"],
    [{ status: 201 }, "http_error"],
    [{ status: 202 }, "http_error"],
    [{ status: 204 }, "http_error"],
    [{ status: 299 }, "http_error"],
    [{ status: 301 }, "http_error"],
    [{ status: 302 }, "http_error"],
    [{ status: 307 }, "http_error"],
    [{ status: 308 }, "http_error"],
    [{ status: 400 }, "http_error"],
    [{ status: 401 }, "http_error"],
    [{ status: 404 }, "http_error"],
    [{ status: 410 }, "http_error"],
    [{ status: 429 }, "http_error"],
    [{ status: 500 }, "http_error"],
    [{ status: 502 }, "http_error"],
    [{ status: 503 }, "http_error"],
    [{ status: 100 }, "http_error"],
    [{ timedOut: true }, "timeout"],
    [{ status: 200, timedOut: true }, "timeout"],
    [{ error: "connect ECONNREFUSED 127.0.0.1:443" }, "connection_error"],
    [{ error: "self-signed certificate" }, "connection_error"],
    [{ status: 200, error: "socket hang up" }, "connection_error"],
    [{}, "connection_error"],
    [{ blocked: true }, "blocked"],
    [{ blocked: true, status: 200 }, "blocked"],
  ];
  for (const [result, outcome] of cases) {
    const c = classifyResponse(result);
    t.same(c, { outcome, succeeded: outcome === "succeeded", retry: outcome !== "succeeded" }, JSON.stringify(result));
  }
  t.same([...new Set(cases.map((c) => c[1]))].sort(), [...ATTEMPT_OUTCOMES].sort(), "every outcome covered");
  t.end();
});

t.test("state x transition", (t) => {
  const allowed = new Set([
    "pending>delivering",
    "delivering>delivering",
    "delivering>pending",
    "delivering>succeeded",
    "delivering>failed",
  ]);
  for (const from of DELIVERY_STATUSES) {
    for (const to of DELIVERY_STATUSES) {
      t.equal(canTransition(from, to), allowed.has(`${from}>${to}`), `${from} -> ${to}`);
    }
  }
  t.end();
});

t.test("afterAttempt: a receiver that fails N times then answers 200", (t) => {
  let p = newDeliveryProgress(T0);
  t.same(p, {
    status: "pending",
    attemptsCount: 0,
    firstAttemptAt: null,
    lastAttemptAt: null,
    nextAttemptAt: T0,
    succeededAt: null,
  });
  const statuses: DeliveryStatus[] = [];
  for (const outcome of ["http_error", "timeout", "connection_error", "succeeded"] as const) {
    const startedAt = p.nextAttemptAt as Date;
    p = afterAttempt(p, { outcome, startedAt, now: new Date(startedAt.getTime() + 250), random: () => 0.5 });
    statuses.push(p.status);
    t.same(p.firstAttemptAt, T0, "the window starts at the first attempt");
    t.same(p.lastAttemptAt, startedAt);
  }
  t.same(statuses, ["pending", "pending", "pending", "succeeded"]);
  t.equal(p.attemptsCount, 4);
  t.equal(p.nextAttemptAt, null);
  t.ok(p.succeededAt !== null && p.succeededAt.getTime() > T0.getTime());
  t.end();
});

t.test("afterAttempt: Retry-After and the end of the window", (t) => {
  const p1 = afterAttempt(newDeliveryProgress(T0), {
    outcome: "http_error",
    startedAt: T0,
    now: later(1),
    retryAfterSeconds: 600,
    random: () => 0.5,
  });
  t.same(p1.nextAttemptAt, later(601));
  const late = { ...p1, attemptsCount: 30, lastAttemptAt: later(24.9 * 86_400) };
  const p2 = afterAttempt(late, {
    outcome: "http_error",
    startedAt: later(24.9 * 86_400),
    now: later(24.9 * 86_400 + 1),
    random: () => 0.5,
  });
  t.equal(p2.status, "failed");
  t.equal(p2.nextAttemptAt, null);
  t.equal(p2.attemptsCount, 31);
  t.end();
});

const URL = "https://hooks.example.com/in";
t.test("delivery rule: webhook_url x subscription x data services", (t) => {
  const cases: [string | null, readonly string[] | "all", string, boolean, string | null][] = [
    [URL, "all", "badge.created", true, null],
    [URL, ["badge.created", "badge.state.changed"], "badge.created", true, null],
    [URL, ["badge.created"], "badge.deleted", true, "not_subscribed"],
    [URL, [], "badge.created", true, "not_subscribed"],
    [URL, "all", "badge.created", false, "no_data_services"],
    [null, "all", "badge.created", true, "no_webhook_url"],
    ["", "all", "badge.created", true, "no_webhook_url"],
    [null, ["badge.deleted"], "badge.created", false, "no_webhook_url"],
    // A test the organization asks for is posted whichever kinds it chose, on the other conditions.
    [URL, [], "webhook.test", true, null],
    [URL, ["badge.created"], "webhook.test", true, null],
    [URL, [], "webhook.test", false, "no_data_services"],
    [null, "all", "webhook.test", true, "no_webhook_url"],
  ];
  for (const [webhookUrl, subscribedEventTypes, eventType, hasDataServicesApplication, reason] of cases) {
    const input = { webhookUrl, subscribedEventTypes, eventType, hasDataServicesApplication };
    t.equal(notDeliveredReason(input), reason, JSON.stringify(input));
    t.equal(shouldDeliver(input), reason === null);
  }
  t.end();
});

t.test("event type selection", (t) => {
  const known = ["badge.created", "badge.deleted", "badge.state.changed"];
  t.same(normalizeEventTypes("all", known), { eventTypes: "all", errors: [] });
  t.same(normalizeEventTypes(["badge.state.changed", "badge.created", "badge.created"], known), {
    eventTypes: ["badge.created", "badge.state.changed"],
    errors: [],
  });
  t.same(normalizeEventTypes(["badge.created", "badge.exploded"], known).errors, [
    { field: "event_types.1", message: 'unknown event type "badge.exploded"' },
  ]);
  t.same(parseEventTypeList("all"), "all");
  t.same(parseEventTypeList(" ALL "), "all");
  t.same(parseEventTypeList("badge.created, badge.state.changed,"), ["badge.created", "badge.state.changed"]);
  t.same(parseEventTypeList(""), []);
  t.end();
});

t.test("responseExcerpt keeps at most maxBytes of UTF-8, whole characters", (t) => {
  const cases: [string, number, string][] = [
    ["ok", 1024, "ok"],
    ["a".repeat(2000), 1024, "a".repeat(1024)],
    ["é".repeat(600), 1024, "é".repeat(512)],
    [`a${"é".repeat(600)}`, 1024, `a${"é".repeat(511)}`],
    ["€€€", 8, "€€"],
    ["😀😀", 7, "😀"],
    ["😀😀", 8, "😀😀"],
    ["a\u0000b", 10, "a\ufffdb"],
    ["x\ud800y", 10, "x\ufffdy"],
    ["abc", 0, ""],
    ["", 10, ""],
  ];
  for (const [text, max, expected] of cases)
    t.equal(responseExcerpt(text, max), expected, `${JSON.stringify(text).slice(0, 20)} / ${max}`);
  t.equal(responseExcerpt("z".repeat(5000)).length, 1024, "default 1024 bytes");
  t.end();
});

t.test("schemas accept records and refuse bad ones", (t) => {
  const delivery = {
    id: "0190a0b0-0000-7000-8000-000000000001",
    event_id: "0190a0b0-0000-7000-8000-000000000002",
    organization_id: "0190a0b0-0000-4000-8000-000000000003",
    event_type: "badge.created",
    status: "pending",
    attempts_count: 2,
    first_attempt_at: "2024-03-01T12:00:00.000Z",
    next_attempt_at: "2024-03-01T12:02:00.000Z",
    last_attempt_at: "2024-03-01T12:00:30.000Z",
    succeeded_at: null,
    created_at: "2024-03-01T12:00:00.000Z",
  };
  t.ok(Value.Check(WebhookDelivery, delivery));
  t.notOk(Value.Check(WebhookDelivery, { ...delivery, status: "in_flight" }));
  const attempt = {
    id: "0190a0b0-0000-7000-8000-000000000004",
    delivery_id: delivery.id,
    attempt_number: 1,
    started_at: "2024-03-01T12:00:00.000Z",
    duration_ms: 15000,
    status_code: null,
    error: "timeout",
    response_excerpt: null,
    outcome: "timeout",
  };
  t.ok(Value.Check(WebhookAttempt, attempt));
  t.notOk(Value.Check(WebhookAttempt, { ...attempt, attempt_number: 0 }));
  t.notOk(Value.Check(WebhookAttempt, { ...attempt, outcome: "ok" }));
  const settings = { organization_id: delivery.organization_id, webhook_url: null, event_types: "all" };
  t.ok(Value.Check(WebhookSettings, settings));
  t.ok(Value.Check(WebhookSettings, { ...settings, webhook_url: URL, event_types: ["badge.created"] }));
  t.notOk(Value.Check(WebhookSettings, { ...settings, event_types: "some" }));
  t.ok(Value.Check(WebhookSettingsInput, {}));
  t.ok(Value.Check(WebhookSettingsInput, { webhook_url: null }));
  t.notOk(Value.Check(WebhookSettingsInput, { webhook_url: URL, extra: 1 }));
  t.end();
});

t.test("what the settings send now: the kinds, and every reason nothing is sent", async (t) => {
  const url = "https://hooks.example/laurel";
  const rows: Array<[string | null, "all" | string[], boolean, string[]]> = [
    [url, "all", true, []],
    [url, ["badge.created"], true, []],
    [url, [], true, ["not_subscribed"]],
    [null, "all", true, ["no_webhook_url"]],
    [url, "all", false, ["no_data_services"]],
    [null, [], false, ["no_webhook_url", "not_subscribed", "no_data_services"]],
  ];
  for (const [webhookUrl, kinds, data, blockers] of rows) {
    const outlook = deliveryOutlook({ webhookUrl, subscribedEventTypes: kinds, hasDataServicesApplication: data });
    t.same(outlook, { kinds, blockers }, `${webhookUrl ?? "no url"}, ${JSON.stringify(kinds)}, data services ${data}`);
    // Nothing blocks exactly when some kind of event would be posted.
    const some = kinds === "all" ? "badge.created" : (kinds[0] ?? "badge.created");
    t.equal(
      blockers.length === 0,
      shouldDeliver({ webhookUrl, subscribedEventTypes: kinds, eventType: some, hasDataServicesApplication: data }),
    );
  }
});
