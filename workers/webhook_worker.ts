import { batcher } from "../adapters/batch/mod.ts";
import type { SecretBox } from "../core/credentials/mod.ts";
import type { DueDelivery, EventMessage } from "../core/messages/mod.ts";
import {
  type AttemptRequest,
  type ClaimedDelivery,
  type DeliveryClaim,
  type DeliveryEvent,
  type DeliveryProgress,
  type DeliveryTargets,
  type NotDeliveredReason,
  newDeliveryProgress,
  notDeliveredReason,
  type PostResult,
  type RetrySchedule,
  type WebhookCrypto,
} from "../core/webhooks/mod.ts";
import { destinationLimits } from "./destination_limits.ts";
import { failureLog, type Log, type PipelineMetrics } from "./runtime.ts";
import { type BookkeepingStore, webhookBookkeeping } from "./webhook_bookkeeping.ts";
import { type Concluded, postAttempt } from "./webhook_post.ts";
import { type Target, webhookTargets } from "./webhook_targets.ts";
import { WorkSlot, type WorkSlots, workSlots } from "./work_slots.ts";

/** A message of one of the two work queues, its body checked by the bus adapter. */
export interface WorkMessage<T> {
  body: T;
  /** 1 the first time the bus hands the message out, more when it comes back. */
  deliveryCount: number;
  ack(): void;
  nak(delayMs?: number): void;
  term(): void;
}

/**
 * Starts pulling from one queue: `take` is called before each message is accepted, and its promise
 * (if it returns one: no slot free yet) awaited (the worker's concurrency limit); `handle` is
 * called without being awaited.
 */
export type Subscribe<T> = (
  take: () => Promise<void> | undefined,
  handle: (m: WorkMessage<T>) => void,
) => { stop(): Promise<void> };

export interface WebhookWorkerDeps {
  deliveries: BookkeepingStore;
  targets: DeliveryTargets;
  secrets: Pick<SecretBox, "open">;
  crypto: Pick<WebhookCrypto, "sign">;
  post(request: AttemptRequest): Promise<PostResult>;
  /** `laurel.events.>`: every recorded event (first deliveries). */
  events: Subscribe<EventMessage>;
  /**
   * Whether a message carries the relay's seal: then its fields are the event's row as the relay
   * read it. Without this every message is checked against the row.
   */
  sealed?: (message: EventMessage) => boolean;
  /** The scheduler's dispatches (retries, redeliveries, deferred and orphaned deliveries). */
  dispatches: Subscribe<DueDelivery>;
  clock: () => Date;
  random: () => number;
  newId: () => string;
  schedule: RetrySchedule;
  metrics: PipelineMetrics;
  log: Log;
  /**
   * Whether a failed bookkeeping batch was refused because of one of its rows (then its items are
   * recorded one by one, and only the refused one fails) rather than because the store is away.
   */
  isRowRefusal?: (err: unknown) => boolean;
  /**
   * Held-back deliveries were made due now (a destination recovered): the scheduler of this
   * process can send them at once instead of at its next round.
   */
  onReleased?: () => void;
}

export interface WebhookWorkerOptions {
  /**
   * Attempts (POSTs) under way at once in this process, for each of the two queues. Messages whose
   * POST is over and whose bookkeeping is still being batched are bounded separately (4x this).
   */
  concurrency: number;
  /** Requests in flight to one destination in this process. */
  perDestination: number;
  /** How long a claim holds a delivery: longer than the HTTP timeout. */
  leaseMs: number;
  /** How long an organization's settings are reused (0 to read them for every message). */
  targetCacheMs: number;
}

export interface WebhookWorker {
  /** Drops an organization's cached settings (they changed): the next event reads them anew. */
  forget(organizationId: string): void;
  /** Stops taking messages and waits for those in flight. */
  stop(): Promise<void>;
}

/** An attempt concluded; `heldBackAt`: failed, its retry held back from the destination's recoveries count then. */
type Posted = Concluded & { heldBackAt?: number };

/** How long a second copy of a message under way in this process waits before it comes back. */
const COPY_BACK_MS = 1_000;

export const startWebhookWorker = (deps: WebhookWorkerDeps, options: WebhookWorkerOptions): WebhookWorker => {
  // First deliveries and the scheduler's dispatches (retries) have slots of their own: a wave of
  // retries to a dead receiver cannot keep other organizations' new events waiting.
  const firstSlots = workSlots(options.concurrency);
  const dispatchSlots = workSlots(options.concurrency);
  const limits = destinationLimits(options.perDestination);
  const targets = webhookTargets(deps, options.targetCacheMs);
  const books = webhookBookkeeping(deps, options.leaseMs);
  /** Events whose first delivery this process is attempting or recording. */
  const firstUnderWay = new Set<string>();
  let inFlight = 0;
  let idle: (() => void) | undefined;

  /** Posts one attempt, and tells the destination's limits how it went. */
  const post = async (
    event: DeliveryEvent,
    deliveryId: string,
    progress: DeliveryProgress,
    target: Target,
    webhookUrl: string,
  ): Promise<Posted | null> => {
    const done = await postAttempt(deps, event, deliveryId, progress, target.secrets, webhookUrl);
    if (!done || !target.destination) return done;
    const released = limits.observe(target.destination, done.result.durationMs, done.classification.succeeded);
    if (released.length > 0) releaseHeldBack(target.destination, released, done.now);
    if (done.classification.succeeded || !limits.isFailing(target.destination)) return done;
    // A failed attempt to a failing destination (an outage, not one event its receiver refuses:
    // that one keeps its backoff) has its retry wait for the destination to answer again, as a
    // put-off does: the first success releases it, rather than its place in the schedule (hours).
    limits.heldBack(target.destination, event.organization_id);
    return { ...done, heldBackAt: limits.recoveries(target.destination) };
  };
  /** After a failed attempt's retry is written: a recovery that came while it was written missed it. */
  const releaseIfRecovered = (destination: string | null, organizationId: string, done: Posted): void => {
    if (destination && done.heldBackAt !== undefined && limits.recoveries(destination) !== done.heldBackAt)
      void releaseLate({ destination, organizationId });
  };

  /** The destination answered again: its held-back deliveries become due (the scheduler sends them). */
  const releaseHeldBack = (destination: string, organizationIds: readonly string[], now: Date): void => {
    deps.deliveries.releasePutOff(organizationIds, now).then(
      (n) => {
        if (n === 0) return;
        deps.log.info({ destination, released: n }, "destination recovered: held-back deliveries due now");
        deps.onReleased?.();
      },
      (err: unknown) => deps.log.warn({ err, destination }, "held-back deliveries not released; they wait their turn"),
    );
  };
  /**
   * A put-off decided while its destination failed but written after the destination recovered
   * (the writes are batched) missed that release: released again, coalesced per destination over
   * a tenth of a second.
   */
  const releaseLate = batcher<{ destination: string; organizationId: string }, void>(
    async (items, destination) => {
      releaseHeldBack(destination, [...new Set(items.map((i) => i.organizationId))], deps.clock());
      return items.map(() => undefined);
    },
    { maxItems: 10_000, maxInFlight: 1, lingerMs: 100, key: (i) => i.destination },
  );

  const count = (delivery: DeliveryEvent, c: Concluded): void => {
    deps.metrics.attempt(c.classification.outcome);
    if (c.progress.status === "succeeded") {
      deps.metrics.delivered((c.now.getTime() - delivery.occurred_at.getTime()) / 1000);
    } else if (c.progress.status === "failed") {
      deps.metrics.failed();
    }
  };

  /**
   * Takes a slot of the destination, or puts the delivery off: a short wait stays in JetStream (a
   * delayed NAK), a long one (a slow receiver's backlog) goes to the database, where it holds no
   * consumer capacity. True when the slot is taken; false when put off (the message is settled).
   * The claim for a put-off is built only when needed.
   */
  const slotFor = (
    destination: string,
    organizationId: string,
    request: () => DeliveryClaim,
    m: WorkMessage<unknown>,
  ): true | Promise<boolean> => {
    const got = limits.acquire(destination);
    if (got === true) return true;
    return putOffUnless(got, destination, organizationId, request, m);
  };
  const putOffUnless = async (
    got: boolean | Promise<boolean>,
    destination: string,
    organizationId: string,
    request: () => DeliveryClaim,
    m: WorkMessage<unknown>,
  ): Promise<boolean> => {
    if (await got) return true;
    const delayMs = limits.putOffMs(destination, deps.random());
    deps.metrics.deferred();
    if (delayMs <= limits.shortPutOffMs) {
      m.nak(delayMs);
    } else {
      limits.heldBack(destination, organizationId);
      const recoveries = limits.recoveries(destination);
      await books.defer({ claim: request(), until: new Date(deps.clock().getTime() + delayMs) });
      if (limits.recoveries(destination) !== recoveries) void releaseLate({ destination, organizationId });
      m.ack();
    }
    return false;
  };

  /**
   * An event's first delivery, attempted without a claim (its id is the event id): JetStream gives
   * the message to one worker at a time, and one that comes back finds the delivery already made.
   */
  const deliverFirst = async (
    event: DeliveryEvent,
    target: Target,
    destination: string,
    webhookUrl: string,
    m: WorkMessage<unknown>,
    slot: WorkSlot,
  ) => {
    if (firstUnderWay.has(event.event_id)) {
      // The bus handed the message out again while this process still works on it (a stale NAK
      // of a worker that stopped can do that): the copy waits until the first one is settled,
      // and then finds the delivery made, or is attempted if the first one failed.
      m.nak(COPY_BACK_MS);
      return;
    }
    firstUnderWay.add(event.event_id);
    try {
      const got = slotFor(destination, event.organization_id, () => ({ deliveryId: event.event_id, create: event }), m);
      if (got !== true && !(await got)) return;
      let done: Posted | null;
      try {
        // Only a message that came back can find its delivery made (a relay publishing an event
        // twice is dropped by JetStream's msgID window).
        if (m.deliveryCount > 1 && (await books.existing({ id: event.event_id, occurred_at: event.occurred_at })))
          return m.ack();
        // A new delivery (its id is the event's); recordFirst stores it with its first attempt.
        done = await post(event, event.event_id, newDeliveryProgress(deps.clock()), target, webhookUrl);
      } finally {
        // The destination's slot is for the request only, not for the bookkeeping after it; nor
        // is the message's work slot.
        limits.release(destination);
        slot.release();
      }
      if (done) {
        await books.recordFirst({ event, attempt: done.attempt, progress: done.progress });
        releaseIfRecovered(destination, event.organization_id, done);
        count(event, done);
      }
      m.ack();
    } finally {
      firstUnderWay.delete(event.event_id);
    }
  };

  /** A retry, redelivery or put-off delivery: claimed first, so no two workers attempt it at once. */
  const deliverClaimed = async (
    request: DeliveryClaim,
    organizationId: string,
    m: WorkMessage<unknown>,
    slot: WorkSlot,
  ): Promise<void> => {
    const target = await targets.of(organizationId);
    const destination = target.destination;
    if (destination) {
      const got = slotFor(destination, organizationId, () => request, m);
      if (got !== true && !(await got)) return;
    }
    let held: ClaimedDelivery | undefined;
    let reason: NotDeliveredReason | null = null;
    let done: Posted | null = null;
    try {
      held = await books.claim(request);
      if (!held) return m.ack();
      if (held.record.organization_id !== organizationId) {
        // A forged or garbled dispatch: nothing is posted with another organization's settings.
        // The claim lapses with its lease and the scheduler sends the delivery out again, rightly.
        deps.log.warn(
          { delivery_id: held.record.id, organization_id: organizationId },
          "dispatch names another organization than its delivery: dropped",
        );
        return m.ack();
      }
      reason = notDeliveredReason({
        webhookUrl: target.webhookUrl,
        subscribedEventTypes: target.eventTypes,
        eventType: held.record.event_type,
        hasDataServicesApplication: target.hasDataServicesApplication,
      });
      if (!reason && target.webhookUrl) {
        done = await post(held.record, held.record.id, held.record.progress, target, target.webhookUrl);
      }
    } finally {
      if (destination) limits.release(destination);
      slot.release();
    }
    if (!done) {
      // The organization stopped wanting it while it waited (or nothing can sign it).
      await books.abandon(held.record.id, held.claimToken);
      if (reason) deps.metrics.notPosted(reason);
      deps.metrics.failed();
      return m.ack();
    }
    await books.record({
      deliveryId: held.record.id,
      claimToken: held.claimToken,
      attempt: done.attempt,
      progress: done.progress,
    });
    releaseIfRecovered(destination, organizationId, done);
    count(held.record, done);
    m.ack();
  };

  /**
   * A sealed message is the relay's, which read it from the event's row. Of any other only the
   * event id is taken, and its time to find the event's week: anything that can publish on the bus
   * could write any organization or type beside it, so those come from the event's row (a time
   * that is not the event's finds none).
   */
  const eventOf = (body: EventMessage): DeliveryEvent | Promise<DeliveryEvent | undefined> =>
    deps.sealed?.(body)
      ? {
          event_id: body.id,
          organization_id: body.organization_id,
          event_type: body.event_type,
          occurred_at: new Date(body.occurred_at),
        }
      : books.event({ id: body.id, occurred_at: new Date(body.occurred_at) });

  const onEvent = async (m: WorkMessage<EventMessage>, slot: WorkSlot): Promise<void> => {
    const event = await eventOf(m.body);
    if (!event) {
      deps.log.warn({ event_id: m.body.id }, "message for an event that is not recorded dropped");
      return m.ack();
    }
    const target = targets.cached(event.organization_id) ?? (await targets.of(event.organization_id));
    const reason = notDeliveredReason({
      webhookUrl: target.webhookUrl,
      subscribedEventTypes: target.eventTypes,
      eventType: event.event_type,
      hasDataServicesApplication: target.hasDataServicesApplication,
    });
    if (reason || !target.webhookUrl || !target.destination) {
      deps.metrics.notPosted(reason ?? "no_webhook_url");
      return m.ack();
    }
    await deliverFirst(event, target, target.destination, target.webhookUrl, m, slot);
  };

  /** The dispatch's organization is a hint, checked against the delivery it claims. */
  const onDispatch = async (m: WorkMessage<DueDelivery>, slot: WorkSlot): Promise<void> => {
    await deliverClaimed({ deliveryId: m.body.delivery_id }, m.body.organization_id, m, slot);
  };

  const failures = failureLog((err) => deps.log.error({ err }, "webhook delivery failed; the message will come back"));
  const run = <T>(handler: (m: WorkMessage<T>, slot: WorkSlot) => Promise<void>, slots: WorkSlots) => {
    const settled = (slot: WorkSlot): void => {
      inFlight--;
      slot.release();
      slots.tail.release();
      if (inFlight === 0) idle?.();
    };
    return (m: WorkMessage<T>): void => {
      inFlight++;
      const slot = new WorkSlot(slots.work);
      handler(m, slot).then(
        () => {
          failures.succeeded();
          settled(slot);
        },
        (err: unknown) => {
          try {
            failures.failed(err);
            // The claim (if any) lapses with its lease; the message comes back after a pause.
            m.nak(1_000);
          } finally {
            settled(slot);
          }
        },
      );
    };
  };

  const subscriptions = [
    deps.events(firstSlots.acquire, run(onEvent, firstSlots)),
    deps.dispatches(dispatchSlots.acquire, run(onDispatch, dispatchSlots)),
  ];
  return {
    forget: targets.forget,
    stop: async () => {
      await Promise.all(subscriptions.map((s) => s.stop()));
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
    },
  };
};
