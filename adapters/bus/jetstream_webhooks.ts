import { createHmac, type KeyObject, timingSafeEqual } from "node:crypto";
import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";
import type { Subscription } from "@nats-io/transport-node";
import type { Static, TSchema } from "typebox";
import type { EventPublisher, OutboxEvent } from "../../core/events/mod.ts";
import {
  type DueDelivery,
  DueDeliverySchema,
  type EventMessage,
  EventMessageSchema,
  eventMessage,
} from "../../core/messages/mod.ts";
import type { DispatchPublisher } from "../../core/webhooks/mod.ts";
import { type BusLog, DROPPED, messageReader } from "./checked_messages.ts";
import type { NatsConnection } from "./nats_connection.ts";

/** Every recorded event, once: `laurel.events.<organization>.<event_type>`, msgID = event id. */
export const EVENTS_STREAM = "LAUREL_EVENTS";
export const EVENTS_SUBJECTS = "laurel.events";
/** "Attempt delivery X now" from the scheduler (retries, redeliveries, deferred deliveries). */
export const DISPATCH_STREAM = "LAUREL_WEBHOOK_DISPATCH";
export const DISPATCH_SUBJECTS = "laurel.webhooks.dispatch";
/** The one durable pull consumer (on each stream) that every worker process shares. */
export const WEBHOOK_CONSUMER = "laurel-webhooks";

const nanos = (ms: number): number => Math.round(ms * 1_000_000);

export interface WebhookBusOptions {
  /** Redelivery of an unacknowledged message; longer than the HTTP timeout plus bookkeeping. */
  ackWaitMs: number;
  /** Messages handed out and not yet acknowledged, across all workers. */
  maxAckPending: number;
  /** The relay's msgID dedup window (at least a few minutes). */
  duplicateWindowMs: number;
  /** How long the events stream keeps events (the database keeps them for good). */
  eventsMaxAgeMs: number;
  /** Copies of each stream and consumer: 1 (the default) on one server, 3 on a three-node cluster. */
  replicas?: number;
}

export const DEFAULT_BUS_OPTIONS: WebhookBusOptions = {
  ackWaitMs: 60_000,
  maxAckPending: 20_000,
  duplicateWindowMs: 5 * 60_000,
  eventsMaxAgeMs: 7 * 86_400_000,
  replicas: 1,
};

/** The fields of nats.js's `JetStreamApiError`: `status` is the API's HTTP-like code, `code` JetStream's own. */
type ApiErrorLike = { name?: string; status?: number; code?: number | string; message?: string };

const isNotFound = (err: unknown): boolean => {
  const e = err as ApiErrorLike;
  return (
    e.name === "StreamNotFoundError" ||
    e.name === "ConsumerNotFoundError" ||
    e.status === 404 ||
    /not found/i.test(e.message ?? "")
  );
};

const ensureStream = async (jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> => {
  try {
    const info = await jsm.streams.info(config.name);
    if (
      info.config.duplicate_window !== config.duplicate_window ||
      info.config.max_age !== config.max_age ||
      info.config.num_replicas !== config.num_replicas
    ) {
      await jsm.streams.update(config.name, {
        duplicate_window: config.duplicate_window,
        max_age: config.max_age,
        num_replicas: config.num_replicas,
      });
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.streams.add(config);
  }
};

const ensureConsumer = async (
  jsm: JetStreamManager,
  stream: string,
  config: Partial<ConsumerConfig>,
): Promise<void> => {
  try {
    const info = await jsm.consumers.info(stream, WEBHOOK_CONSUMER);
    if (
      info.config.ack_wait !== config.ack_wait ||
      info.config.max_ack_pending !== config.max_ack_pending ||
      (info.config.num_replicas ?? 0) !== config.num_replicas
    ) {
      await jsm.consumers.update(stream, WEBHOOK_CONSUMER, {
        ack_wait: config.ack_wait,
        max_ack_pending: config.max_ack_pending,
        num_replicas: config.num_replicas,
      });
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(stream, config);
  }
};

/**
 * Creates (or updates) both streams and the shared durable consumers, with `replicas` copies each;
 * safe to run from every process at start. Options are those nats-server 2.9 accepts (no 2.10
 * consumer metadata).
 */
export const ensureWebhookStreams = async (
  nc: NatsConnection,
  options: WebhookBusOptions,
  /** A cluster just started has no JetStream leader for some seconds: asked again until then. */
  patienceMs = 30_000,
): Promise<void> => {
  const deadline = performance.now() + patienceMs;
  for (;;) {
    try {
      return await ensureStreamsOnce(nc, options);
    } catch (err) {
      if (performance.now() > deadline || !isTransient(err)) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
};

/**
 * JetStream's code when a consumer asks for more replicas than its stream has. Right after a stream
 * is raised to three replicas, the cluster may not have applied the raise yet, so this passes.
 */
const CONSUMER_REPLICAS_EXCEED_STREAM = 10126;

const isTransient = (err: unknown): boolean => {
  const e = err as ApiErrorLike;
  return (
    e.status === 503 ||
    e.code === 503 ||
    e.code === "503" ||
    e.code === CONSUMER_REPLICAS_EXCEED_STREAM ||
    /unavailable|timeout|no responders|insufficient resources|no suitable peers/i.test(e.message ?? "")
  );
};

const ensureStreamsOnce = async (nc: NatsConnection, options: WebhookBusOptions): Promise<void> => {
  const jsm = await jetstreamManager(nc);
  const num_replicas = options.replicas ?? 1;
  await ensureStream(jsm, {
    name: EVENTS_STREAM,
    subjects: [`${EVENTS_SUBJECTS}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas,
    duplicate_window: nanos(options.duplicateWindowMs),
    max_age: nanos(options.eventsMaxAgeMs),
  });
  await ensureStream(jsm, {
    name: DISPATCH_STREAM,
    subjects: [`${DISPATCH_SUBJECTS}.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas,
    duplicate_window: nanos(120_000),
    max_age: 0,
  });
  for (const stream of [EVENTS_STREAM, DISPATCH_STREAM]) {
    await ensureConsumer(jsm, stream, {
      durable_name: WEBHOOK_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(options.ackWaitMs),
      max_ack_pending: options.maxAckPending,
      max_deliver: -1,
      num_replicas,
    });
  }
};

const PULL_EXPIRES_MS = 5_000;

export const eventSubject = (e: Pick<OutboxEvent, "organization_id" | "event_type">): string =>
  `${EVENTS_SUBJECTS}.${e.organization_id}.${e.event_type}`;

/**
 * Publishes a batch to JetStream, all messages at once, and resolves once the stream stored every
 * one (duplicates included). A refusal or a timeout fails the batch: the caller publishes it again,
 * and JetStream drops what it already stored by `Nats-Msg-Id` within its duplicate window.
 */
const batchPublisher = <T>(
  nc: NatsConnection,
  options: { timeoutMs?: number | undefined },
  message: (item: T) => { subject: string; body: string; msgId?: string },
) => {
  const js = jetstream(nc, { timeout: options.timeoutMs ?? 5_000 });
  return async (items: readonly T[]): Promise<void> => {
    await Promise.all(
      items.map((item) => {
        const { subject, body, msgId } = message(item);
        return js.publish(subject, body, msgId ? { msgID: msgId } : undefined);
      }),
    );
  };
};

/**
 * The relay's seal on an event message: an HMAC, with the servers' bus key, over the fields a worker
 * posts. Anything that can publish on the bus can write any message, but only a process holding the
 * key can seal one, so a worker takes a sealed message as the event's row without reading the row
 * again (one read fewer per event). A message unsealed or sealed wrongly is not refused: its
 * row is read, as for a relay of an earlier version.
 */
export interface EventMessageSeal {
  seal(message: EventMessage): EventMessage;
  sealed(message: EventMessage): boolean;
}

export const eventMessageSeal = (key: KeyObject): EventMessageSeal => {
  const mac = (m: EventMessage): Buffer =>
    createHmac("sha256", key).update(`${m.id}\n${m.organization_id}\n${m.event_type}\n${m.occurred_at}`).digest();
  return {
    seal: (m) => ({ ...m, mac: mac(m).toString("base64url") }),
    sealed: (m) => {
      if (m.mac === undefined) return false;
      const given = Buffer.from(m.mac, "base64url");
      const expected = mac(m);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
};

/** Publishes the relay's batch, sealed; resolves once JetStream stored each event (duplicates included). */
export const jetstreamEventPublisher = (
  nc: NatsConnection,
  seal: Pick<EventMessageSeal, "seal">,
  options: { timeoutMs?: number } = {},
): EventPublisher => {
  const publish = batchPublisher<OutboxEvent>(nc, options, (e) => ({
    subject: eventSubject(e),
    body: JSON.stringify(seal.seal(eventMessage(e))),
    msgId: e.id,
  }));
  return { publish };
};

export const jetstreamDispatchPublisher = (
  nc: NatsConnection,
  options: { timeoutMs?: number } = {},
): DispatchPublisher => {
  const publish = batchPublisher<DueDelivery>(nc, options, (d) => ({
    subject: `${DISPATCH_SUBJECTS}.${d.organization_id}`,
    body: JSON.stringify(d),
  }));
  return { publish };
};

/** The two work queues, each with the one schema of its messages. */
export const EVENTS_QUEUE = { stream: EVENTS_STREAM, schema: EventMessageSchema };
export const DISPATCH_QUEUE = { stream: DISPATCH_STREAM, schema: DueDeliverySchema };

/** One message of a work queue, as the workers see it: its body checked against its schema. */
export interface QueuedMessage<T> {
  stream: string;
  body: T;
  /** 1 the first time JetStream hands the message out, more when it comes back. */
  readonly deliveryCount: number;
  ack(): void;
  /** Redeliver after `delayMs` (or at once). */
  nak(delayMs?: number): void;
  /** Never redeliver. */
  term(): void;
}

class Queued<T> implements QueuedMessage<T> {
  readonly stream: string;
  readonly body: T;
  private readonly m: JsMsg;
  constructor(stream: string, body: T, m: JsMsg) {
    this.stream = stream;
    this.body = body;
    this.m = m;
  }
  get deliveryCount(): number {
    return this.m.info.deliveryCount;
  }
  ack(): void {
    this.m.ack();
  }
  nak(delayMs?: number): void {
    this.m.nak(delayMs);
  }
  term(): void {
    this.m.term();
  }
}

export interface WorkQueueConsumer {
  stop(): Promise<void>;
}

/**
 * Pulls from the shared durable consumer of `stream` for as long as the process runs. `take`
 * returns nothing, or a promise that resolves, when the caller has room for one more message (its concurrency limit), so no more are
 * held than can be worked on. NATS restarts are survived: the client re-pulls, and if the pull
 * loop ends anyway it is started again. `stop` pulls no more and hands back (NAK, redelivered at
 * once to another worker) every message received and not yet handed to `handle`, so none waits
 * for AckWait after a clean stop.
 */
export const consumeWorkQueue = <S extends TSchema>(
  nc: NatsConnection,
  queue: { stream: string; schema: S },
  options: { batch: number; take: () => Promise<void> | undefined; log: BusLog },
  handle: (m: QueuedMessage<Static<S>>) => void,
): WorkQueueConsumer => {
  const { stream } = queue;
  const read = messageReader(queue.schema, options.log);
  let stopped = false;
  let current: ConsumerMessages | undefined;
  let pulling: Consumer | undefined;
  /** Received after `stop`: handed back once the pull subscription is gone, so not to itself. */
  const handBack: JsMsg[] = [];
  let onStop: () => void = () => {};
  const stopping = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  const loop = async (): Promise<void> => {
    const js = jetstream(nc);
    while (!stopped) {
      try {
        const consumer = await js.consumers.get(stream, WEBHOOK_CONSUMER);
        pulling = consumer;
        // Pull requests live on the consumer's leader only: short-lived ones (and heartbeats every
        // 2.5 s) mean a leader lost in a cluster costs seconds before the next pull, not a minute.
        current = await consumer.consume({ max_messages: options.batch, expires: PULL_EXPIRES_MS });
        for await (const m of current) {
          const body = read(m.subject, m.data);
          if (body === DROPPED) {
            // Its text would not change on redelivery: it is never handed out again.
            m.term();
            continue;
          }
          if (!stopped) {
            const wait = options.take();
            // Stopping does not wait for a free slot: the message goes back instead.
            if (wait) await Promise.race([wait, stopping]);
          }
          if (stopped) handBack.push(m);
          else handle(new Queued(stream, body, m));
        }
      } catch (err) {
        if (!stopped) options.log.warn({ err, stream }, "work queue interrupted; pulling again");
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 500));
    }
  };
  const running = loop();
  return {
    stop: async () => {
      stopped = true;
      onStop();
      // Draining the pull subscription (rather than dropping it) still receives what the server
      // sent before it saw the unsubscribe; the loop above hands each of those back.
      const sub = (current as { sub?: Subscription } | undefined)?.sub;
      await sub?.drain().catch(() => {});
      await current?.close();
      await running;
      // nats-server before 2.11 loses a NAKed message's place in the redelivery queue when, at that
      // moment, a pull request whose subscriber is gone (ours, drained above) still waits on the
      // consumer: the message is then handed out only after AckWait. Asking for the consumer's
      // info makes the server drop such requests first.
      if (handBack.length > 0) await pulling?.info(false).catch(() => undefined);
      for (const m of handBack) m.nak();
      await nc.flush().catch(() => {});
    },
  };
};
