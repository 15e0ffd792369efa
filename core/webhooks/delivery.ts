import { DEFAULT_SCHEDULE, nextAttemptAt, type RetrySchedule } from "./retry_schedule.ts";

/**
 * A delivery is one event on its way to one organization's webhook_url; it is `pending` while an
 * attempt is due (now or at `next_attempt_at`), `delivering` while a worker holds it, and ends
 * `succeeded` or `failed` (window over). Both ends are final: an operator's redelivery is a new
 * delivery of the same event (same `webhook-id`, a fresh 25-day window, schedule from the start).
 */
export const DELIVERY_STATUSES = ["pending", "delivering", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Allowed moves; `delivering -> delivering` is a worker re-claiming after another one crashed. */
export const DELIVERY_TRANSITIONS = {
  pending: ["delivering"],
  delivering: ["delivering", "pending", "succeeded", "failed"],
  succeeded: [],
  failed: [],
} as const satisfies Record<DeliveryStatus, readonly DeliveryStatus[]>;

export const canTransition = (from: DeliveryStatus, to: DeliveryStatus): boolean =>
  (DELIVERY_TRANSITIONS[from] as readonly DeliveryStatus[]).includes(to);

/** What one attempt came to; also the label of the attempts metric. */
export const ATTEMPT_OUTCOMES = [
  "succeeded", // HTTP 200 within the timeout
  "http_error", // any other status: 201, 204, 3xx (redirects are not followed), 4xx, 5xx
  "timeout", // no complete answer within the timeout
  "connection_error", // refused, reset, DNS failure, TLS failure
  "blocked", // the destination address is forbidden (SSRF rule), nothing was sent
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface AttemptResult {
  /** The HTTP status, when a response head arrived. */
  status?: number | undefined;
  /** Transport error text (connection refused, TLS...). */
  error?: string | undefined;
  timedOut?: boolean | undefined;
  /** The connection was refused by the address rules. */
  blocked?: boolean | undefined;
}

export interface AttemptClassification {
  outcome: AttemptOutcome;
  succeeded: boolean;
  /** Whether the delivery should be tried again (subject to the retry window). */
  retry: boolean;
}

/**
 * Only an HTTP 200 that arrived in time, with no transport error, is success; every failure is
 * retried, a blocked address included (DNS or the allowlist may change within the window).
 *
 * @example classifyResponse({ status: 204 }) // { outcome: "http_error", succeeded: false, retry: true }
 */
export const classifyResponse = (r: AttemptResult): AttemptClassification => {
  const outcome: AttemptOutcome = r.blocked
    ? "blocked"
    : r.timedOut
      ? "timeout"
      : r.error !== undefined
        ? "connection_error"
        : r.status === undefined
          ? "connection_error"
          : r.status === 200
            ? "succeeded"
            : "http_error";
  const succeeded = outcome === "succeeded";
  return { outcome, succeeded, retry: !succeeded };
};

/** The fields of a delivery that attempts change. */
export interface DeliveryProgress {
  status: DeliveryStatus;
  attemptsCount: number;
  /** When the first attempt started (the 25-day window counts from it); null until then. */
  firstAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  succeededAt: Date | null;
}

/** A new delivery, due at once. */
export const newDeliveryProgress = (now: Date): DeliveryProgress => ({
  status: "pending",
  attemptsCount: 0,
  firstAttemptAt: null,
  lastAttemptAt: null,
  nextAttemptAt: now,
  succeededAt: null,
});

export interface AttemptRecordInput {
  outcome: AttemptOutcome;
  /** When the attempt started (becomes `firstAttemptAt` for the first one). */
  startedAt: Date;
  /** When it ended. */
  now: Date;
  retryAfterSeconds?: number | undefined;
  random: () => number;
  schedule?: RetrySchedule;
}

/**
 * The delivery after one attempt: succeeded, pending again at the next scheduled time, or failed
 * when the 25-day window has no room for another attempt. The attempt number is `attemptsCount + 1`.
 */
export const afterAttempt = (progress: DeliveryProgress, a: AttemptRecordInput): DeliveryProgress => {
  const attemptsCount = progress.attemptsCount + 1;
  const firstAttemptAt = progress.firstAttemptAt ?? a.startedAt;
  // Plain literals, in the same field order either way (no spreads: this runs for every attempt).
  if (a.outcome === "succeeded") {
    return {
      attemptsCount,
      firstAttemptAt,
      lastAttemptAt: a.startedAt,
      status: "succeeded",
      nextAttemptAt: null,
      succeededAt: a.now,
    };
  }
  const next = nextAttemptAt({
    firstAttemptAt,
    attemptNumber: attemptsCount,
    now: a.now,
    retryAfterSeconds: a.retryAfterSeconds,
    random: a.random,
    schedule: a.schedule ?? DEFAULT_SCHEDULE,
  });
  return {
    attemptsCount,
    firstAttemptAt,
    lastAttemptAt: a.startedAt,
    status: next ? "pending" : "failed",
    nextAttemptAt: next,
    succeededAt: null,
  };
};
