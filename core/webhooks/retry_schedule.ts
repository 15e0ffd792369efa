/**
 * When a failed delivery is tried again. Time and randomness are parameters, so a test can walk the
 * whole 25-day window with a fake clock in milliseconds.
 */

/** No attempt is scheduled later than this after the first attempt (the 25-day window; docs/interface.md, Events and webhooks). */
export const RETRY_WINDOW_SECONDS = 25 * 86_400;

export interface RetrySchedule {
  /** Waits after the 1st, 2nd, ... failed attempt, in seconds, before jitter. */
  readonly intervalsSeconds: readonly number[];
  /** Wait after every later failure, in seconds. */
  readonly repeatSeconds: number;
  /** Relative jitter: a wait `w` becomes a value in `[w * (1 - jitter), w * (1 + jitter))`. */
  readonly jitter: number;
  /** A `Retry-After` longer than this is cut to it. */
  readonly maxRetryAfterSeconds: number;
  /** No attempt later than this after the first one. */
  readonly windowSeconds: number;
}

/** About 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 16 h, then daily; ±15%. */
export const DEFAULT_SCHEDULE: RetrySchedule = {
  intervalsSeconds: [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 57_600],
  repeatSeconds: 86_400,
  jitter: 0.15,
  maxRetryAfterSeconds: 86_400,
  windowSeconds: RETRY_WINDOW_SECONDS,
};

/**
 * The wait after failed attempt number `attemptNumber` (1 for the first attempt), jitter applied.
 * `random` is a value in [0, 1); values outside are clamped.
 */
export const retryDelaySeconds = (schedule: RetrySchedule, attemptNumber: number, random: number): number => {
  const i = Math.max(1, Math.floor(attemptNumber)) - 1;
  const base = schedule.intervalsSeconds[i] ?? schedule.repeatSeconds;
  const r = Math.min(Math.max(random, 0), 1);
  return base * (1 + schedule.jitter * (2 * r - 1));
};

export interface NextAttemptInput {
  /** When the first attempt of the current delivery window started. */
  firstAttemptAt: Date;
  /** The number of the attempt that just failed: 1 for the first. */
  attemptNumber: number;
  /** When that attempt ended. */
  now: Date;
  /** From the response's `Retry-After` (see `parseRetryAfter`). */
  retryAfterSeconds?: number | undefined;
  random: () => number;
  schedule?: RetrySchedule;
}

/**
 * When to try again after a failed attempt, or null to give up (the delivery becomes `failed`).
 * The wait is the schedule's, with jitter; a `Retry-After` may lengthen it (never shorten it), up
 * to `maxRetryAfterSeconds`. An attempt that would fall later than `windowSeconds` after the first
 * attempt is not scheduled.
 *
 * @example nextAttemptAt({ firstAttemptAt: t0, attemptNumber: 1, now: t0, random: () => 0.5 }) // t0 + 5 s
 */
export const nextAttemptAt = (input: NextAttemptInput): Date | null => {
  const schedule = input.schedule ?? DEFAULT_SCHEDULE;
  let delay = retryDelaySeconds(schedule, input.attemptNumber, input.random());
  const ra = input.retryAfterSeconds;
  if (ra !== undefined && ra > delay) delay = Math.max(delay, Math.min(ra, schedule.maxRetryAfterSeconds));
  const at = input.now.getTime() + Math.round(delay * 1000);
  const deadline = input.firstAttemptAt.getTime() + schedule.windowSeconds * 1000;
  return at > deadline ? null : new Date(at);
};

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const TIME = "([0-9]{2}):([0-9]{2}):([0-9]{2})";
// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept.
const IMF_FIXDATE = new RegExp(`^[a-z]{3}, ([0-9]{2}) ([a-z]{3}) ([0-9]{4}) ${TIME} gmt$`);
const RFC850 = new RegExp(`^[a-z]{6,9}, ([0-9]{2})-([a-z]{3})-([0-9]{2}) ${TIME} gmt$`);
const ASCTIME = new RegExp(`^[a-z]{3} ([a-z]{3}) ([ 0-9][0-9]) ${TIME} ([0-9]{4})$`);

const utc = (year: number, month: string, day: string, h: string, m: string, s: string): number | undefined => {
  const mon = MONTHS.indexOf(month);
  const [d, hh, mm, ss] = [Number(day), Number(h), Number(m), Number(s)];
  if (mon < 0 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60) return undefined;
  const ms = Date.UTC(year, mon, d, hh, mm, Math.min(ss, 59));
  // Reject dates that roll over (31 Feb).
  return new Date(ms).getUTCDate() === d ? ms : undefined;
};

const parseHttpDate = (text: string, now: Date): number | undefined => {
  const s = text.toLowerCase();
  let m = IMF_FIXDATE.exec(s);
  if (m) return utc(Number(m[3]), m[2] as string, m[1] as string, m[4] as string, m[5] as string, m[6] as string);
  m = RFC850.exec(s);
  if (m) {
    // Two-digit years: the one not more than 50 years in the future (RFC 9110).
    const yy = Number(m[3]);
    const current = now.getUTCFullYear();
    let year = Math.floor(current / 100) * 100 + yy;
    if (year > current + 50) year -= 100;
    return utc(year, m[2] as string, m[1] as string, m[4] as string, m[5] as string, m[6] as string);
  }
  m = ASCTIME.exec(s);
  if (m)
    return utc(Number(m[6]), m[1] as string, (m[2] as string).trim(), m[3] as string, m[4] as string, m[5] as string);
  return undefined;
};

/**
 * Reads a `Retry-After` header: delta-seconds or an HTTP-date. Returns the wait in whole seconds
 * from `now` (0 for a date in the past), or undefined when absent or unreadable.
 *
 * @example parseRetryAfter("120", now) // 120
 */
export const parseRetryAfter = (headerValue: string | null | undefined, now: Date): number | undefined => {
  if (headerValue == null) return undefined;
  const v = headerValue.trim();
  if (/^[0-9]+$/.test(v)) return Math.min(Number(v), Number.MAX_SAFE_INTEGER);
  const at = parseHttpDate(v, now);
  if (at === undefined) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
};
