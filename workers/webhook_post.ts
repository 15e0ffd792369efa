import {
  type AttemptClassification,
  type AttemptRequest,
  buildAttemptRequest,
  concludeAttempt,
  type DeliveryEvent,
  type DeliveryProgress,
  type PostResult,
  type RetrySchedule,
  type SigningSecrets,
  type WebhookAttemptRecord,
  type WebhookCrypto,
} from "../core/webhooks/mod.ts";
import type { Log } from "./runtime.ts";

export interface PostDeps {
  crypto: Pick<WebhookCrypto, "sign">;
  post(request: AttemptRequest): Promise<PostResult>;
  clock: () => Date;
  random: () => number;
  newId: () => string;
  schedule: RetrySchedule;
  log: Log;
}

/** One attempt made: the attempt, the delivery's new state, and when the attempt ended. */
export interface Concluded {
  attempt: WebhookAttemptRecord;
  progress: DeliveryProgress;
  classification: AttemptClassification;
  result: PostResult;
  now: Date;
}

/**
 * Signs and posts one attempt of delivery `deliveryId` of `event` with the organization's
 * `secrets`; what came of it, or null when no secret could sign it (nothing is posted).
 */
export const postAttempt = async (
  deps: PostDeps,
  event: DeliveryEvent,
  deliveryId: string,
  progress: DeliveryProgress,
  secrets: SigningSecrets,
  webhookUrl: string,
): Promise<Concluded | null> => {
  const startedAt = deps.clock();
  const request = buildAttemptRequest({ event, webhookUrl, secrets, now: startedAt, crypto: deps.crypto });
  if (!request) {
    deps.log.error({ organization_id: event.organization_id }, "no signing secret: nothing posted");
    return null;
  }
  const result = await deps.post(request);
  const now = deps.clock();
  const concluded = concludeAttempt({
    attemptId: deps.newId(),
    deliveryId,
    progress,
    result,
    startedAt,
    now,
    random: deps.random,
    schedule: deps.schedule,
  });
  return {
    attempt: concluded.attempt,
    progress: concluded.progress,
    classification: concluded.classification,
    result,
    now,
  };
};
