import { batcher } from "../adapters/batch/mod.ts";
import { boundedCache } from "../adapters/cache/mod.ts";
import type { SecretBox } from "../core/credentials/mod.ts";
import type { DueDelivery, EventMessage } from "../core/messages/mod.ts";
import {
  type AttemptClassification,
  type AttemptRequest,
  buildAttemptRequest,
  type ClaimedDelivery,
  concludeAttempt,
  type DeliveryClaim,
  type DeliveryEvent,
  type DeliveryProgress,
  type DeliveryStore,
  type DeliveryTargets,
  destinationKey,
  type EventTypeSelection,
  type NotDeliveredReason,
  newDeliveryProgress,
  notDeliveredReason,
  openSecrets,
  type PostResult,
  type RecordedAttempt,
  type RecordedFirstAttempt,
  type RetrySchedule,
  type SigningSecrets,
  type WebhookAttemptRecord,
  type WebhookCrypto,
} from "../core/webhooks/mod.ts";
import { destinationLimits } from "./destination_limits.ts";
import { type Log, type PipelineMetrics, semaphore } from "./runtime.ts";

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
  deliveries: Pick<
    DeliveryStore,
    "events" | "existing" | "recordFirst" | "claim" | "defer" | "record" | "abandon" | "releasePutOff"
  >;
  targets: DeliveryTargets;
  secrets: Pick<SecretBox, "open">;
  crypto: Pick<WebhookCrypto, "sign">;
  post(request: AttemptRequest): Promise<PostResult>;
  /** `laurel.events.>`: every recorded event (first deliveries). */
  events: Subscribe<EventMessage>;
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

interface Target {
  webhookUrl: string | null;
  destination: string | null;
  eventTypes: EventTypeSelection;
  hasDataServicesApplication: boolean;
  secrets: SigningSecrets;
}

/** Attempts recorded per statement at most, and how long a batch that is not full may wait. */
const RECORD_BATCH = 1_000;
const RECORD_LINGER_MS = 20;

/**
 * A queue's slots: `work` for messages before and during their POST (the concurrency), `tail` for
 * every message taken and not yet settled, bookkeeping included; a message needs both to be taken.
 */
const workSlots = (concurrency: number) => {
  const work = semaphore(concurrency);
  const tail = semaphore(4 * concurrency);
  const acquireSlowly = async (): Promise<void> => {
    await tail.acquire();
    await work.acquire();
  };
  return {
    work,
    tail,
    /** Resolved at once (no promise per message) while both are free, as they mostly are. */
    acquire(): Promise<void> | undefined {
      if (!tail.tryAcquire()) return acquireSlowly();
      if (!work.tryAcquire()) return work.acquire();
      return undefined;
    },
  };
};

/** What `post` returns: the attempt, the delivery's new state, and when the attempt ended. */
interface Concluded {
  attempt: WebhookAttemptRecord;
  progress: DeliveryProgress;
  classification: AttemptClassification;
  now: Date;
}

/** A message's work slot, released once (when its POST is over, or at the latest when settled). */
class WorkSlot {
  private held = true;
  private readonly work: { release(): void };
  constructor(work: { release(): void }) {
    this.work = work;
  }
  release(): void {
    if (!this.held) return;
    this.held = false;
    this.work.release();
  }
}

/**
 * Delivers webhooks from the two shared work queues. For each message: the organization's target
 * (`notDeliveredReason` decides whether to post at all), a per-destination slot (or the delivery
 * is put off), the signed POST, and the attempt recorded with the delivery's next state in one
 * statement; only then is the message acknowledged. An event's first delivery needs no claim:
 * JetStream hands its message to one worker at a time, and a message that comes back finds the
 * delivery recorded.
 * Retries and redeliveries (the scheduler's dispatches) are claimed in PostgreSQL first, so a
 * duplicate message or a second worker never attempts one twice at once. A worker killed at any
 * point loses nothing: the message comes back after AckWait, or the scheduler re-dispatches the
 * delivery when its lease ends; the receiver may then see the same `webhook-id` again.
 */
export const startWebhookWorker = (deps: WebhookWorkerDeps, options: WebhookWorkerOptions): WebhookWorker => {
  // First deliveries and the scheduler's dispatches (retries) have slots of their own: a wave of
  // retries to a dead receiver cannot keep other organizations' new events waiting.
  const firstSlots = workSlots(options.concurrency);
  const dispatchSlots = workSlots(options.concurrency);
  const limits = destinationLimits(options.perDestination);
  const rowRefused = deps.isRowRefusal ?? (() => false);
  // One entry per organization with deliveries under way; the settings-change message drops one.
  const targetCache = boundedCache<{ target: Promise<Target>; value?: Target }>({
    maxEntries: 10_000,
    maxBytes: 32 * 1024 * 1024,
    ttlMs: options.targetCacheMs,
  });
  let inFlight = 0;
  let idle: (() => void) | undefined;

  const loadTarget = async (organizationId: string): Promise<Target> => {
    const t = await deps.targets.target(organizationId);
    let destination: string | null = null;
    try {
      destination = t.webhookUrl ? destinationKey(t.webhookUrl) : null;
    } catch {
      destination = null;
    }
    return {
      webhookUrl: t.webhookUrl,
      destination,
      eventTypes: t.eventTypes,
      hasDataServicesApplication: t.hasDataServicesApplication,
      secrets: openSecrets(deps, {
        secret_sealed: t.secretSealed,
        previous_secret_sealed: t.previousSecretSealed,
        previous_secret_expires_at: t.previousSecretExpiresAt,
      }),
    };
  };
  /** The organization's target when the cache holds it loaded and fresh (no promise to await). */
  const cachedTarget = (organizationId: string): Target | undefined => {
    return targetCache.get(organizationId)?.value;
  };
  const targetOf = (organizationId: string): Promise<Target> => {
    const hit = targetCache.get(organizationId);
    if (hit) return hit.target;
    const target = loadTarget(organizationId);
    if (options.targetCacheMs > 0) {
      const entry: { target: Promise<Target>; value?: Target } = { target };
      targetCache.set(organizationId, entry);
      target.then(
        (value) => {
          entry.value = value;
        },
        () => {
          if (targetCache.get(organizationId) === entry) targetCache.delete(organizationId);
        },
      );
    }
    return target;
  };

  const claim = batcher<DeliveryClaim, ClaimedDelivery | undefined>(
    async (claims) => {
      const now = deps.clock();
      const claimed = await deps.deliveries.claim(claims, deps.newId(), now, new Date(now.getTime() + options.leaseMs));
      // A delivery asked for twice in one batch is attempted once.
      const seen = new Set<string>();
      return claims.map((c) => {
        if (seen.has(c.deliveryId)) return undefined;
        seen.add(c.deliveryId);
        return claimed.get(c.deliveryId);
      });
    },
    { maxItems: 500, maxInFlight: 2 },
  );
  // Recording comes after the POST, off the latency path (the receiver has the event already;
  // only the acknowledgement waits): some milliseconds of waiting buy larger batches, so fewer
  // statements and commits for PostgreSQL under load.
  const record = batcher<RecordedAttempt, void>(
    async (attempts) => {
      await deps.deliveries.record(attempts);
      return attempts.map(() => undefined);
    },
    { maxItems: RECORD_BATCH, maxInFlight: 2, lingerMs: RECORD_LINGER_MS, isolateFailures: rowRefused },
  );
  const defer = batcher<{ claim: DeliveryClaim; until: Date }, void>(
    async (items) => {
      await deps.deliveries.defer(items, deps.clock());
      return items.map(() => undefined);
    },
    { maxItems: 500, maxInFlight: 1 },
  );

  const eventRow = batcher<string, DeliveryEvent | undefined>(
    async (ids) => {
      const found = await deps.deliveries.events(ids);
      return ids.map((id) => found.get(id));
    },
    { maxItems: 500, maxInFlight: 2 },
  );
  const existing = batcher<string, boolean>(
    async (ids) => {
      const found = await deps.deliveries.existing(ids);
      return ids.map((id) => found.has(id));
    },
    { maxItems: 500, maxInFlight: 2 },
  );
  const recordFirst = batcher<RecordedFirstAttempt, void>(
    async (attempts) => {
      // A message that came twice in one batch: its delivery is recorded once.
      const seen = new Set<string>();
      const once = attempts.filter((a) => !seen.has(a.event.event_id) && seen.add(a.event.event_id));
      await deps.deliveries.recordFirst(once, deps.clock());
      return attempts.map(() => undefined);
    },
    { maxItems: RECORD_BATCH, maxInFlight: 2, lingerMs: RECORD_LINGER_MS, isolateFailures: rowRefused },
  );

  /**
   * Signs and posts one attempt of delivery `deliveryId` of `event`; the delivery's new state, or
   * null when nothing could sign it.
   */
  const post = async (
    event: DeliveryEvent,
    deliveryId: string,
    progress: DeliveryProgress,
    target: Target,
    webhookUrl: string,
  ): Promise<Concluded | null> => {
    const startedAt = deps.clock();
    const request = buildAttemptRequest({
      event,
      webhookUrl,
      secrets: target.secrets,
      now: startedAt,
      crypto: deps.crypto,
    });
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
    if (target.destination) {
      const released = limits.observe(target.destination, result.durationMs, concluded.classification.succeeded);
      if (released.length > 0) releaseHeldBack(target.destination, released, now);
    }
    return {
      attempt: concluded.attempt,
      progress: concluded.progress,
      classification: concluded.classification,
      now,
    };
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
   * (the writes are batched) missed that release: released again, coalesced per destination.
   */
  const late = new Map<string, Set<string>>();
  const releaseLate = (destination: string, organizationId: string): void => {
    const pending = late.get(destination);
    if (pending) {
      pending.add(organizationId);
      return;
    }
    late.set(destination, new Set([organizationId]));
    setTimeout(() => {
      const organizations = late.get(destination) ?? new Set<string>();
      late.delete(destination);
      releaseHeldBack(destination, [...organizations], deps.clock());
    }, 100).unref();
  };

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
   * consumer capacity. Returns false when put off (the message is settled).
   */
  const slotFor = (
    destination: string,
    organizationId: string,
    request: DeliveryClaim,
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
    request: DeliveryClaim,
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
      await defer({ claim: request, until: new Date(deps.clock().getTime() + delayMs) });
      if (limits.recoveries(destination) !== recoveries) releaseLate(destination, organizationId);
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
    webhookUrl: string,
    m: WorkMessage<unknown>,
    slot: WorkSlot,
  ) => {
    const destination = target.destination as string;
    // (slotFor, with the claim for a put-off built only when needed)
    const got = limits.acquire(destination);
    const putOff = { deliveryId: event.event_id, create: event };
    if (got !== true && !(await putOffUnless(got, destination, event.organization_id, putOff, m))) {
      return;
    }
    let done: Concluded | null;
    try {
      // Only a message that came back can find its delivery made (a relay publishing an event
      // twice is dropped by JetStream's msgID window).
      if (m.deliveryCount > 1 && (await existing(event.event_id))) return m.ack();
      // A new delivery (its id is the event's); recordFirst stores it with its first attempt.
      done = await post(event, event.event_id, newDeliveryProgress(deps.clock()), target, webhookUrl);
    } finally {
      // The destination's slot is for the request only, not for the bookkeeping after it; nor is
      // the message's work slot.
      limits.release(destination);
      slot.release();
    }
    if (done) {
      await recordFirst({ event, attempt: done.attempt, progress: done.progress });
      count(event, done);
    }
    m.ack();
  };

  /** A retry, redelivery or put-off delivery: claimed first, so no two workers attempt it at once. */
  const deliverClaimed = async (
    request: DeliveryClaim,
    organizationId: string,
    m: WorkMessage<unknown>,
    slot: WorkSlot,
  ): Promise<void> => {
    const target = await targetOf(organizationId);
    const destination = target.destination;
    if (destination) {
      const got = slotFor(destination, organizationId, request, m);
      if (got !== true && !(await got)) return;
    }
    let held: ClaimedDelivery | undefined;
    let reason: NotDeliveredReason | null = null;
    let done: Concluded | null = null;
    try {
      held = await claim(request);
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
      await deps.deliveries.abandon([{ deliveryId: held.record.id, claimToken: held.claimToken }], deps.clock());
      if (reason) deps.metrics.notPosted(reason);
      deps.metrics.failed();
      return m.ack();
    }
    await record({
      deliveryId: held.record.id,
      claimToken: held.claimToken,
      attempt: done.attempt,
      progress: done.progress,
    });
    count(held.record, done);
    m.ack();
  };

  /**
   * Only the message's event id is taken: anything that can publish on the bus could write any
   * organization or type beside it, so those come from the event's row.
   */
  const onEvent = async (m: WorkMessage<EventMessage>, slot: WorkSlot): Promise<void> => {
    const eventId = m.body.id;
    const event = await eventRow(eventId);
    if (!event) {
      deps.log.warn({ event_id: eventId }, "message for an event that is not recorded dropped");
      return m.ack();
    }
    const target = cachedTarget(event.organization_id) ?? (await targetOf(event.organization_id));
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
    await deliverFirst(event, target, target.webhookUrl, m, slot);
  };

  /** The dispatch's organization is a hint, checked against the delivery it claims. */
  const onDispatch = async (m: WorkMessage<DueDelivery>, slot: WorkSlot): Promise<void> => {
    await deliverClaimed({ deliveryId: m.body.delivery_id }, m.body.organization_id, m, slot);
  };

  let failures = 0;
  const run = <T>(
    handler: (m: WorkMessage<T>, slot: WorkSlot) => Promise<void>,
    slots: ReturnType<typeof workSlots>,
  ) => {
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
          failures = 0;
          settled(slot);
        },
        (err: unknown) => {
          try {
            if (failures % 20 === 0) deps.log.error({ err }, "webhook delivery failed; the message will come back");
            failures++;
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
    forget: (organizationId) => {
      targetCache.delete(organizationId);
    },
    stop: async () => {
      await Promise.all(subscriptions.map((s) => s.stop()));
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
    },
  };
};
