import type { AuditRecord } from "../audit/mod.ts";
import type { DueDelivery } from "../messages/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import type { DeliveryProgress, DeliveryStatus } from "./delivery.ts";
import type { DeliveryEvent, WebhookAttemptRecord, WebhookDeliveryRecord, WebhookSettingsRecord } from "./records.ts";
import type { EventTypeSelection } from "./subscription.ts";

/** A delivery whose next step needs a message on the bus. */
export type { DueDelivery };

export interface WebhookSettingsStore {
  get(organizationId: string): Promise<WebhookSettingsRecord | null>;
  /** Saves the settings and their audit row in one transaction. */
  save(record: WebhookSettingsRecord, audit: AuditRecord): Promise<void>;
}

/** Key material and HMAC, filled by the crypto adapter. */
export interface WebhookCrypto {
  /** `WEBHOOK_SECRET_BYTES` random bytes in standard base64 (the part after `whsec_`). */
  newKey(): string;
  /** HMAC-SHA256 of `input` (UTF-8) under the base64 `keyBase64`, in standard base64. */
  sign(keyBase64: string, input: string): string;
}

/** What a worker needs to know about an organization to deliver to it; secrets still sealed. */
export interface StoredDeliveryTarget {
  webhookUrl: string | null;
  eventTypes: EventTypeSelection;
  hasDataServicesApplication: boolean;
  secretSealed: string | null;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

export interface DeliveryTargets {
  target(organizationId: string): Promise<StoredDeliveryTarget>;
}

/**
 * A worker asks for a delivery before attempting it. `create` is given for the first delivery of an
 * event (its id is the event id), which is created when missing.
 */
export interface DeliveryClaim {
  deliveryId: string;
  create?: DeliveryEvent;
}

/** A delivery now held by one worker until `leaseUntil`; `claimToken` proves it when recording. */
export interface ClaimedDelivery {
  record: WebhookDeliveryRecord;
  claimToken: string;
}

export interface RecordedAttempt {
  deliveryId: string;
  claimToken: string;
  attempt: WebhookAttemptRecord;
  /** The delivery after the attempt (`afterAttempt`). */
  progress: DeliveryProgress;
}

/** The first attempt of an event's first delivery, recorded after the POST. */
export interface RecordedFirstAttempt {
  event: DeliveryEvent;
  attempt: WebhookAttemptRecord;
  /** The delivery after the attempt; its id is the event id. */
  progress: DeliveryProgress;
}

/**
 * An event, or its first delivery (whose id is the event's), by id and the time it occurred as its
 * message says: events and deliveries are kept in weekly partitions of that time, so the time lets
 * a read skip every other week (a store may take it as a hint to within a millisecond).
 */
export interface EventRef {
  id: string;
  occurred_at: Date;
}

/** Delivery state for the workers and the scheduler; every method may be called by many processes. */
export interface DeliveryStore {
  /**
   * The recorded events among these. What a first delivery posts, and to which organization,
   * comes from here: a message on the bus only names the event (and its time, which only narrows
   * the read: an event recorded at another time is not found).
   */
  events(events: readonly EventRef[]): Promise<Map<string, DeliveryEvent>>;
  /**
   * Which of these first deliveries exist already (any state). A first delivery (id = event id) is
   * attempted without a claim: JetStream hands its message to one worker at a time, and a message
   * that comes back (a worker died, the relay published it twice) finds its delivery here.
   */
  existing(deliveries: readonly EventRef[]): Promise<Set<string>>;
  /** Creates first deliveries in their state after the first attempt, with that attempt. */
  recordFirst(attempts: readonly RecordedFirstAttempt[], now: Date): Promise<void>;
  /**
   * Claims each delivery that is due (pending with `next_attempt_at <= now`, or held by a worker
   * whose lease ran out), creating first deliveries as needed. Returns the claimed ones by id;
   * a delivery that is not due, ended, or held by another worker is left out.
   */
  claim(
    claims: readonly DeliveryClaim[],
    claimToken: string,
    now: Date,
    leaseUntil: Date,
  ): Promise<Map<string, ClaimedDelivery>>;
  /** Puts off deliveries (their destination is busy) without counting an attempt. */
  defer(items: readonly { claim: DeliveryClaim; until: Date }[], now: Date): Promise<void>;
  /**
   * Makes the waiting deliveries of these organizations due now, oldest event first (a receiver
   * that failed is back: what was held back for it need not wait out its put-off). Returns how many.
   */
  releasePutOff(organizationIds: readonly string[], now: Date): Promise<number>;
  /** Stores attempts and the deliveries' new state; a claim that was lost meanwhile keeps its attempt only. */
  record(attempts: readonly RecordedAttempt[]): Promise<void>;
  /** Ends claimed deliveries without an attempt: the organization no longer wants them posted. */
  abandon(items: readonly { deliveryId: string; claimToken: string }[], now: Date): Promise<void>;
  /**
   * Takes up to `limit` deliveries whose `due_at` has come and that no other scheduler holds, hands
   * them to `publish`, and (once it resolved) pushes their `due_at` to `redispatchAt`, a safety net
   * for a message that is lost. Returns how many were dispatched.
   */
  dispatchDue(
    now: Date,
    limit: number,
    redispatchAt: Date,
    publish: (due: DueDelivery[]) => Promise<void>,
  ): Promise<number>;
}

/** Puts "attempt this delivery now" messages on the bus. */
export interface DispatchPublisher {
  publish(due: readonly DueDelivery[]): Promise<void>;
}

export interface DeliveryFilter {
  organizationId: string;
  eventId?: string | undefined;
  status?: DeliveryStatus | undefined;
}

/** Operator reads and redeliveries. */
export interface DeliveryAdminStore {
  list(filter: DeliveryFilter, page: PageRequest): Promise<{ items: WebhookDeliveryRecord[]; total: number }>;
  /** Attempts of a delivery, or of every delivery of an event or of the organization, newest first. */
  attempts(
    filter: { organizationId: string; eventId?: string | undefined; deliveryId?: string | undefined },
    limit: number,
  ): Promise<WebhookAttemptRecord[]>;
  /**
   * Up to `limit` of the organization's deliveries, newest first, after the delivery `after` in that
   * order (from the newest when null). A keyset page: its cost does not grow with how far back it
   * reads, and nothing is counted.
   */
  listAfter(organizationId: string, after: string | null, limit: number): Promise<WebhookDeliveryRecord[]>;
  /** The attempts of these deliveries of the organization, newest first. */
  attemptsOf(organizationId: string, deliveryIds: readonly string[]): Promise<WebhookAttemptRecord[]>;
  latestForEvent(organizationId: string, eventId: string): Promise<WebhookDeliveryRecord | null>;
  insert(record: WebhookDeliveryRecord): Promise<void>;
  /**
   * Creates a new delivery (ids from `newId`, due at `now`) for every event whose latest delivery
   * failed at or after `since`, limited to `eventTypes`. Returns how many.
   */
  redeliverFailed(
    organizationId: string,
    since: Date,
    eventTypes: EventTypeSelection,
    now: Date,
    newId: () => string,
  ): Promise<number>;
}
