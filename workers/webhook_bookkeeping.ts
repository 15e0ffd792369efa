import { batcher } from "../adapters/batch/mod.ts";
import type {
  ClaimedDelivery,
  DeliveryClaim,
  DeliveryEvent,
  DeliveryStore,
  EventRef,
  RecordedAttempt,
  RecordedFirstAttempt,
} from "../core/webhooks/mod.ts";

/** What the bookkeeping reads and writes of the deliveries. */
export type BookkeepingStore = Pick<
  DeliveryStore,
  "events" | "existing" | "recordFirst" | "claim" | "defer" | "record" | "abandon" | "releasePutOff"
>;

export interface BookkeepingDeps {
  deliveries: BookkeepingStore;
  clock: () => Date;
  newId: () => string;
  /**
   * Whether a failed batch was refused because of one of its rows (then its items are recorded one
   * by one, and only the refused one fails) rather than because the store is away.
   */
  isRowRefusal?: (err: unknown) => boolean;
}

/** Attempts recorded per statement at most, and how long a batch that is not full may wait. */
const RECORD_BATCH = 1_000;
const RECORD_LINGER_MS = 20;

/**
 * The claims, in the order asked, from what the store claimed: a delivery asked for twice in one
 * batch is attempted once (the second ask gets nothing).
 */
export const claimedOnce = (
  claims: readonly DeliveryClaim[],
  claimed: ReadonlyMap<string, ClaimedDelivery>,
): Array<ClaimedDelivery | undefined> => {
  const seen = new Set<string>();
  return claims.map((c) => {
    if (seen.has(c.deliveryId)) return undefined;
    seen.add(c.deliveryId);
    return claimed.get(c.deliveryId);
  });
};

/** A message that came twice in one batch: its delivery is recorded once. */
export const firstAttemptsOnce = (attempts: readonly RecordedFirstAttempt[]): RecordedFirstAttempt[] => {
  const seen = new Set<string>();
  return attempts.filter((a) => !seen.has(a.event.event_id) && seen.add(a.event.event_id));
};

/**
 * The worker's reads and writes of deliveries, each call batched with the others of its kind so
 * that many messages share one statement.
 */
export const webhookBookkeeping = (deps: BookkeepingDeps, leaseMs: number) => {
  const isolateFailures = deps.isRowRefusal ?? (() => false);
  const claim = batcher<DeliveryClaim, ClaimedDelivery | undefined>(
    async (claims) => {
      const now = deps.clock();
      const claimed = await deps.deliveries.claim(claims, deps.newId(), now, new Date(now.getTime() + leaseMs));
      return claimedOnce(claims, claimed);
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
    { maxItems: RECORD_BATCH, maxInFlight: 2, lingerMs: RECORD_LINGER_MS, isolateFailures },
  );
  const recordFirst = batcher<RecordedFirstAttempt, void>(
    async (attempts) => {
      await deps.deliveries.recordFirst(firstAttemptsOnce(attempts), deps.clock());
      return attempts.map(() => undefined);
    },
    { maxItems: RECORD_BATCH, maxInFlight: 2, lingerMs: RECORD_LINGER_MS, isolateFailures },
  );
  const defer = batcher<{ claim: DeliveryClaim; until: Date }, void>(
    async (items) => {
      await deps.deliveries.defer(items, deps.clock());
      return items.map(() => undefined);
    },
    { maxItems: 500, maxInFlight: 1 },
  );
  const event = batcher<EventRef, DeliveryEvent | undefined>(
    async (refs) => {
      const found = await deps.deliveries.events(refs);
      return refs.map((r) => found.get(r.id));
    },
    { maxItems: 500, maxInFlight: 2 },
  );
  const existing = batcher<EventRef, boolean>(
    async (refs) => {
      const found = await deps.deliveries.existing(refs);
      return refs.map((r) => found.has(r.id));
    },
    { maxItems: 500, maxInFlight: 2 },
  );
  return {
    /** The recorded event of a first delivery, or undefined when there is none. */
    event,
    /** Whether a first delivery is recorded already (its message came back). */
    existing,
    /** Holds a delivery for `leaseMs`; undefined when another holds it or it is settled. */
    claim,
    /** Puts a delivery off until a time (a slow destination's backlog). */
    defer,
    /** Stores a claimed delivery's attempt and new state. */
    record,
    /** Stores a first delivery with its first attempt. */
    recordFirst,
    /** Ends a claimed delivery without an attempt. */
    abandon: (deliveryId: string, claimToken: string): Promise<void> =>
      deps.deliveries.abandon([{ deliveryId, claimToken }], deps.clock()),
  };
};

export type WebhookBookkeeping = ReturnType<typeof webhookBookkeeping>;
