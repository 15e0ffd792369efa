import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import { DEFAULT_SCHEDULE, type WebhookAttempt, type WebhookDelivery } from "../../core/webhooks/mod.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
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
 * The 25-day retry window on a fake clock: the clock and the schedule are injected, so
 * the whole window passes in seconds while everything else (PostgreSQL, JetStream, HTTPS) is real.
 */
let laurel: TestLaurel;
let ca: TestCa;
let receiver: Receiver;
let now = Date.now();
const clock = (): Date => new Date(now);

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
const delivery = async (organization_id: string, event_id: string) =>
  (
    (await trpcQuery(laurel.adminOrigin, admin(), "webhooks.deliveries", { organization_id, event_id })) as {
      data: WebhookDelivery[];
    }
  ).data[0];
const attempts = async (organization_id: string, event_id: string) =>
  (
    (await trpcQuery(laurel.adminOrigin, admin(), "webhooks.attempts", { organization_id, event_id, limit: 1000 })) as {
      data: WebhookAttempt[];
    }
  ).data
    .slice()
    .sort((a, b) => a.attempt_number - b.attempt_number);

/** Moves the fake clock to each scheduled attempt until the delivery ends; returns it. */
const walk = async (
  pipeline: { wakeScheduler(): void },
  organizationId: string,
  eventId: string,
): Promise<WebhookDelivery> => {
  let seen = 0;
  for (;;) {
    const d = await waitFor(
      `attempt ${seen + 1}`,
      async () => {
        const x = await delivery(organizationId, eventId);
        return x && x.attempts_count > seen && x.status !== "delivering" ? x : undefined;
      },
      15_000,
    );
    seen = d.attempts_count;
    if (d.status !== "pending") return d;
    now = Date.parse(d.next_attempt_at as string);
    pipeline.wakeScheduler();
  }
};

const within = (actualSeconds: number, expectedSeconds: number, jitter: number): boolean =>
  actualSeconds >= expectedSeconds * (1 - jitter) - 0.01 && actualSeconds <= expectedSeconds * (1 + jitter) + 0.01;

t.test("fails three times, then 200: exactly one more POST after each failure, each signed afresh", async (t) => {
  now = Date.now();
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { clock });
  t.teardown(() => pipeline.stop());
  const org = await webhookOrganization(laurel, { url: receiver.url });
  const answers = [{ status: 503, headers: { "retry-after": "120" } }, { status: 500 }, { status: 429 }];
  receiver.received.length = 0;
  receiver.answer = () => answers.shift() ?? { status: 200 };
  const [event] = await recordEvents(laurel.db, org.id, 1);
  const id = (event as { id: string }).id;

  const final = await walk(pipeline, org.id, id);
  t.match(final, { status: "succeeded", attempts_count: 4, next_attempt_at: null });
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.received.length, 4, "four POSTs: three failures and the success");
  t.ok(
    receiver.received.every((d) => d.headers["webhook-id"] === id),
    "all with the same webhook-id",
  );
  t.same(receiver.verify([org.secret]), [], "each verifies with standardwebhooks");
  const stamps = receiver.received.map((d) => Number(d.headers["webhook-timestamp"]));
  t.ok(
    stamps.every((s, i) => i === 0 || s > (stamps[i - 1] as number)),
    "timestamps advance: signed afresh",
  );
  t.equal(new Set(receiver.received.map((d) => d.headers["webhook-signature"])).size, 4, "four different signatures");
  t.equal(new Set(receiver.received.map((d) => d.json.delivered_at)).size, 4, "delivered_at is each attempt's time");

  const list = await attempts(org.id, id);
  t.same(
    list.map((a) => [a.outcome, a.status_code]),
    [
      ["http_error", 503],
      ["http_error", 500],
      ["http_error", 429],
      ["succeeded", 200],
    ],
  );
  const gaps = list
    .slice(1)
    .map((a, i) => (Date.parse(a.started_at) - Date.parse((list[i] as WebhookAttempt).started_at)) / 1000);
  t.ok(
    gaps[0] !== undefined && gaps[0] >= 120 && gaps[0] <= 121,
    `Retry-After: 120 is honoured (${gaps[0]} s, not 5 s)`,
  );
  t.ok(within(gaps[1] as number, 30, DEFAULT_SCHEDULE.jitter), `then the schedule's 30 s ±15% (${gaps[1]} s)`);
  t.ok(within(gaps[2] as number, 120, DEFAULT_SCHEDULE.jitter), `then 2 min ±15% (${gaps[2]} s)`);
});

t.test("a receiver down for the whole window: attempts follow the schedule and stop at 25 days", async (t) => {
  now = Date.now();
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { clock });
  t.teardown(() => pipeline.stop());
  const down = await freePort();
  const org = await webhookOrganization(laurel, { url: `https://localhost:${down}/hooks` });
  const [event] = await recordEvents(laurel.db, org.id, 1);
  const id = (event as { id: string }).id;

  const final = await walk(pipeline, org.id, id);
  t.equal(final.status, "failed", "the delivery ends failed");
  t.equal(final.next_attempt_at, null);
  const list = await attempts(org.id, id);
  t.equal(list.length, final.attempts_count);
  t.ok(
    list.every((a) => a.outcome === "connection_error"),
    "every attempt was refused",
  );
  const starts = list.map((a) => Date.parse(a.started_at));
  const first = starts[0] as number;
  const last = starts[starts.length - 1] as number;
  t.ok(last <= first + 25 * 86_400_000, "no attempt later than 25 days after the first");
  t.ok(
    last > first + 23 * 86_400_000,
    `attempts went on to the end of the window (${((last - first) / 86_400_000).toFixed(1)} days)`,
  );
  const gaps = starts.slice(1).map((s, i) => (s - (starts[i] as number)) / 1000);
  const expected = (i: number): number => DEFAULT_SCHEDULE.intervalsSeconds[i] ?? DEFAULT_SCHEDULE.repeatSeconds;
  const off = gaps
    .map((g, i) => [i + 1, g, expected(i)] as const)
    .filter(([, g, e]) => !within(g, e, DEFAULT_SCHEDULE.jitter));
  t.same(off, [], "each wait is the schedule's, ±15% jitter: 5 s, 30 s, 2 min, ... 16 h, then daily");
  t.ok(
    gaps.slice(0, 5).every((g, i) => g < (gaps[i + 1] as number)),
    "waits grow",
  );
  t.ok(list.length >= 30 && list.length <= 40, `${list.length} attempts in all`);

  // Nothing more, however long we wait.
  now += 30 * 86_400_000;
  pipeline.wakeScheduler();
  await new Promise((r) => setTimeout(r, 500));
  t.equal((await attempts(org.id, id)).length, list.length, "no attempt after the window");
  t.match(await pipeline.metrics.render(), /laurel_webhook_deliveries_total\{result="failed"\} 1/);
});
