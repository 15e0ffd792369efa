import { type EventType, webhookSummary } from "../events/mod.ts";
import { isoMillis, isoMillisOrNull } from "../shared/mod.ts";
import {
  type AttemptClassification,
  type AttemptResult,
  afterAttempt,
  classifyResponse,
  type DeliveryProgress,
} from "./delivery.ts";
import { responseExcerpt } from "./excerpt.ts";
import type { WebhookCrypto } from "./ports.ts";
import type { DeliveryEvent, WebhookAttemptRecord, WebhookDeliveryRecord } from "./records.ts";
import { DEFAULT_SCHEDULE, parseRetryAfter, type RetrySchedule } from "./retry_schedule.ts";
import type { WebhookAttempt, WebhookDelivery } from "./shapes.ts";
import {
  activeSecrets,
  parseWebhookSecret,
  type SigningSecrets,
  signingInput,
  webhookHeaders,
  webhookTimestamp,
} from "./signing.ts";

/** What goes on the wire for one attempt. */
export interface AttemptRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * The POST of one attempt: the event's summary (`webhookSummary`) with `delivered_at` = `now`,
 * signed afresh per Standard Webhooks with every active secret (`webhook-id` is the event id, the
 * same for every attempt and redelivery, so a receiver can drop duplicates). Returns null when no
 * secret can sign: an unsigned delivery is never sent.
 */
export const buildAttemptRequest = (input: {
  event: DeliveryEvent;
  webhookUrl: string;
  secrets: SigningSecrets;
  now: Date;
  crypto: Pick<WebhookCrypto, "sign">;
}): AttemptRequest | null => {
  const { event, now } = input;
  const keys: string[] = [];
  for (const secret of activeSecrets({ ...input.secrets, now })) {
    // An unusable secret signs nothing; the others still do.
    const key = parseWebhookSecret(secret);
    if (key !== undefined) keys.push(key);
  }
  if (keys.length === 0) return null;
  const body = JSON.stringify(
    webhookSummary(
      {
        id: event.event_id,
        organization_id: event.organization_id,
        // The delivery's row holds a recorded event's type.
        event_type: event.event_type as EventType,
        occurred_at: event.occurred_at,
      },
      now,
    ),
  );
  const timestampSeconds = webhookTimestamp(now);
  const toSign = signingInput(event.event_id, timestampSeconds, body);
  return {
    url: input.webhookUrl,
    body,
    headers: {
      "content-type": "application/json",
      ...webhookHeaders({
        webhookId: event.event_id,
        timestampSeconds,
        signaturesBase64: keys.map((key) => input.crypto.sign(key, toSign)),
      }),
    },
  };
};

/** What the HTTP adapter saw. */
export interface PostResult extends AttemptResult {
  /** Wall time of the request. */
  durationMs: number;
  /** The `Retry-After` header, as received. */
  retryAfter?: string | null | undefined;
  /** The start of the response body (the adapter reads only the first bytes). */
  body?: string | null | undefined;
}

export const ATTEMPT_ERROR_MAX_LENGTH = 500;

/**
 * The attempt record and the delivery's next state after a POST: success only on 200, otherwise
 * the next time on the schedule (a `Retry-After` may lengthen the wait) or `failed` when the 25-day
 * window is over.
 */
export const concludeAttempt = (input: {
  attemptId: string;
  deliveryId: string;
  progress: DeliveryProgress;
  result: PostResult;
  startedAt: Date;
  now: Date;
  random: () => number;
  schedule?: RetrySchedule;
}): { attempt: WebhookAttemptRecord; progress: DeliveryProgress; classification: AttemptClassification } => {
  const { result } = input;
  const classification = classifyResponse(result);
  const progress = afterAttempt(input.progress, {
    outcome: classification.outcome,
    startedAt: input.startedAt,
    now: input.now,
    retryAfterSeconds: parseRetryAfter(result.retryAfter, input.now),
    random: input.random,
    schedule: input.schedule ?? DEFAULT_SCHEDULE,
  });
  const error =
    result.error !== undefined
      ? result.error.slice(0, ATTEMPT_ERROR_MAX_LENGTH)
      : result.timedOut
        ? "no complete answer within the timeout"
        : null;
  return {
    classification,
    progress,
    attempt: {
      id: input.attemptId,
      delivery_id: input.deliveryId,
      attempt_number: progress.attemptsCount,
      started_at: input.startedAt,
      duration_ms: Math.max(0, Math.round(result.durationMs)),
      status_code: result.status ?? null,
      error,
      response_excerpt: result.body == null ? null : responseExcerpt(result.body),
      outcome: classification.outcome,
    },
  };
};

export const webhookDeliveryJson = (r: WebhookDeliveryRecord): WebhookDelivery => ({
  id: r.id,
  event_id: r.event_id,
  organization_id: r.organization_id,
  event_type: r.event_type,
  status: r.progress.status,
  attempts_count: r.progress.attemptsCount,
  first_attempt_at: isoMillisOrNull(r.progress.firstAttemptAt),
  next_attempt_at: isoMillisOrNull(r.progress.nextAttemptAt),
  last_attempt_at: isoMillisOrNull(r.progress.lastAttemptAt),
  succeeded_at: isoMillisOrNull(r.progress.succeededAt),
  created_at: isoMillis(r.created_at),
});

export const webhookAttemptJson = (a: WebhookAttemptRecord): WebhookAttempt => ({
  id: a.id,
  delivery_id: a.delivery_id,
  attempt_number: a.attempt_number,
  started_at: isoMillis(a.started_at),
  duration_ms: a.duration_ms,
  status_code: a.status_code,
  error: a.error,
  response_excerpt: a.response_excerpt,
  outcome: a.outcome,
});
