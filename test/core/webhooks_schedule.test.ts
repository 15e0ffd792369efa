import t from "tap";
import {
  afterAttempt,
  DEFAULT_SCHEDULE,
  newDeliveryProgress,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_WINDOW_SECONDS,
  type RetrySchedule,
  retryDelaySeconds,
} from "../../core/webhooks/mod.ts";

const T0 = new Date("2024-03-01T12:00:00.000Z");
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const DAY = 86_400;

/** Runs a delivery against a receiver that is down for good; each attempt takes `durationS`. Times in ms. */
const runWholeWindow = (random: () => number, durationS = 15) => {
  let progress = newDeliveryProgress(T0);
  const starts: number[] = [];
  while (progress.status === "pending") {
    const startedAt = progress.nextAttemptAt as Date;
    starts.push(startedAt.getTime() - T0.getTime()); // ms: integer arithmetic, no float noise
    progress = afterAttempt(progress, {
      outcome: "timeout",
      startedAt,
      now: new Date(startedAt.getTime() + durationS * 1000),
      random,
    });
  }
  return { progress, starts };
};

for (const [label, r] of [
  ["random 0.5", 0.5],
  ["random 0 (shortest jitter)", 0],
  ["random ~1 (longest jitter)", 0.999999],
] as const) {
  t.test(`whole 25-day window with a dead receiver, ${label}`, (t) => {
    const { progress, starts } = runWholeWindow(() => r);
    t.equal(progress.status, "failed");
    t.equal(progress.nextAttemptAt, null);
    t.equal(progress.attemptsCount, starts.length);
    t.same(progress.firstAttemptAt, T0, "the window counts from the first attempt");
    t.equal(starts[0], 0, "first attempt at once");
    t.ok((starts[1] as number) <= (6 + 15) * 1000, "second attempt within seconds");
    const gaps = starts.slice(1).map((s, i) => s - (starts[i] as number));
    for (let i = 1; i < gaps.length; i++) {
      t.ok((gaps[i] as number) >= (gaps[i - 1] as number), `gap ${i + 1} >= gap ${i}`);
    }
    const last = (starts[starts.length - 1] as number) / 1000;
    t.ok(last <= RETRY_WINDOW_SECONDS, "no attempt after 25 days");
    t.ok(last > RETRY_WINDOW_SECONDS - 1.2 * DAY, "the last attempt is in the last day or so of the window");
    t.ok(
      gaps.some((g) => g >= 0.85 * DAY * 1000),
      "reaches about daily",
    );
    t.ok(
      gaps.every((g) => g <= (1.15 * DAY + 15) * 1000),
      "never waits more than a day plus jitter",
    );
    t.ok(starts.length >= 25 && starts.length <= 40, `a sensible number of attempts (${starts.length})`);
    t.end();
  });
}

t.test("jitter stays within ±jitter of the base interval, for every attempt number", (t) => {
  const s = DEFAULT_SCHEDULE;
  for (let n = 1; n <= 40; n++) {
    const base = s.intervalsSeconds[n - 1] ?? s.repeatSeconds;
    const lo = retryDelaySeconds(s, n, 0);
    const hi = retryDelaySeconds(s, n, 0.9999999);
    t.equal(lo, base * (1 - s.jitter), `attempt ${n}: lowest`);
    t.ok(hi < base * (1 + s.jitter) && hi > base * (1 + s.jitter) - 0.01, `attempt ${n}: highest`);
    t.equal(retryDelaySeconds(s, n, 0.5), base, `attempt ${n}: middle`);
  }
  t.ok(s.jitter >= 0.1 && s.jitter <= 0.2);
  t.end();
});

t.test("intervals grow even in the worst jitter case", (t) => {
  const s = DEFAULT_SCHEDULE;
  for (let n = 1; n <= s.intervalsSeconds.length; n++) {
    t.ok(
      retryDelaySeconds(s, n, 0.9999999) < retryDelaySeconds(s, n + 1, 0),
      `longest wait ${n} < shortest wait ${n + 1}`,
    );
  }
  t.end();
});

t.test("a custom schedule gives exact times and ends at the window", (t) => {
  const schedule: RetrySchedule = {
    intervalsSeconds: [1, 2],
    repeatSeconds: 10,
    jitter: 0,
    maxRetryAfterSeconds: 30,
    windowSeconds: 60,
  };
  const times: number[] = [0];
  let attempt = 1;
  for (;;) {
    const next = nextAttemptAt({
      firstAttemptAt: T0,
      attemptNumber: attempt,
      now: at(times[times.length - 1] as number),
      random: () => 0.5,
      schedule,
    });
    if (next === null) break;
    times.push((next.getTime() - T0.getTime()) / 1000);
    attempt++;
  }
  t.same(times, [0, 1, 3, 13, 23, 33, 43, 53]);
  t.end();
});

t.test("nextAttemptAt with Retry-After", (t) => {
  const schedule: RetrySchedule = { ...DEFAULT_SCHEDULE, jitter: 0 };
  const cases: { name: string; attempt: number; now: number; retryAfter?: number; expected: number | null }[] = [
    { name: "no header: schedule (5 s)", attempt: 1, now: 0, expected: 5 },
    { name: "longer Retry-After is honoured", attempt: 1, now: 0, retryAfter: 120, expected: 120 },
    { name: "shorter Retry-After never shortens the schedule", attempt: 3, now: 100, retryAfter: 2, expected: 220 },
    { name: "Retry-After 0", attempt: 1, now: 0, retryAfter: 0, expected: 5 },
    { name: "Retry-After over the cap is cut to 24 h", attempt: 1, now: 0, retryAfter: 10 * DAY, expected: DAY },
    { name: "huge Retry-After", attempt: 1, now: 0, retryAfter: Number.MAX_SAFE_INTEGER, expected: DAY },
    { name: "NaN is ignored", attempt: 1, now: 0, retryAfter: Number.NaN, expected: 5 },
    { name: "Retry-After past the window: give up", attempt: 20, now: 24.5 * DAY, retryAfter: DAY, expected: null },
    { name: "schedule past the window: give up", attempt: 30, now: 24.9 * DAY, expected: null },
    { name: "exactly at the window end is still allowed", attempt: 30, now: 24 * DAY, expected: 25 * DAY },
    { name: "already past the window", attempt: 2, now: 26 * DAY, expected: null },
  ];
  for (const c of cases) {
    const next = nextAttemptAt({
      firstAttemptAt: T0,
      attemptNumber: c.attempt,
      now: at(c.now),
      retryAfterSeconds: c.retryAfter,
      random: () => 0.5,
      schedule,
    });
    t.same(next, c.expected === null ? null : at(c.expected), c.name);
  }
  t.end();
});

t.test("parseRetryAfter", (t) => {
  const now = new Date("2015-10-21T07:27:00.000Z");
  const cases: [string | null | undefined, number | undefined][] = [
    ["120", 120],
    [" 0 ", 0],
    ["86400", 86_400],
    ["99999999999999999999999", Number.MAX_SAFE_INTEGER],
    ["Wed, 21 Oct 2015 07:28:00 GMT", 60],
    ["wed, 21 oct 2015 07:28:00 gmt", 60],
    ["Wednesday, 21-Oct-15 07:28:00 GMT", 60],
    ["Wed Oct 21 07:28:00 2015", 60],
    ["Thu Oct  1 07:28:00 2015", 0],
    ["Wed Oct 21 08:27:00 2015", 3600],
    ["Wed, 21 Oct 2015 07:27:00 GMT", 0],
    ["Tue, 20 Oct 2015 07:28:00 GMT", 0],
    ["Wed, 21 Oct 2015 07:27:00.500 GMT", undefined],
    ["Wed, 31 Feb 2015 07:28:00 GMT", undefined],
    ["Wed, 21 Foo 2015 07:28:00 GMT", undefined],
    ["Wed, 21 Oct 2015 25:28:00 GMT", undefined],
    ["2015-10-21T07:28:00Z", undefined],
    ["soon", undefined],
    ["-5", undefined],
    ["1.5", undefined],
    ["12abc", undefined],
    ["", undefined],
    [null, undefined],
    [undefined, undefined],
  ];
  for (const [value, expected] of cases) {
    t.equal(parseRetryAfter(value, now), expected, JSON.stringify(value));
  }
  t.equal(parseRetryAfter("Thu, 01 Oct 2015 07:28:00 GMT", now), 0, "a date in the past is 0");
  t.equal(parseRetryAfter("Wed, 21 Oct 2015 08:27:00 GMT", now), 3600);
  t.end();
});
