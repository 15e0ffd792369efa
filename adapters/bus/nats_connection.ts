import { connect, type NatsConnection } from "@nats-io/transport-node";

export type { NatsConnection };

/** Connects with endless reconnects: a NATS restart must not end the process. */
export const connectNats = (url: string, name: string): Promise<NatsConnection> =>
  connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // No stack trace captured ahead of every request: it cost more than the rest of a JetStream
    // publish on the relay's hot path.
    noAsyncTraces: true,
  });

/** Reachable now: connected (not reconnecting) and answering a round trip. */
export const natsHealthy = async (nc: NatsConnection): Promise<boolean> => {
  if (nc.isClosed()) return false;
  try {
    await Promise.race([nc.flush(), new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 1000))]);
    return true;
  } catch {
    return false;
  }
};

/**
 * Publishes `body` as JSON on core NATS and flushes, so every subscriber has it before the caller
 * answers its own client (the caches these messages clear must not outlive the change).
 */
export const broadcastJson = async (nc: NatsConnection, subject: string, body: unknown): Promise<void> => {
  nc.publish(subject, JSON.stringify(body));
  await nc.flush();
};

/**
 * Calls `onMessage` with each JSON body on `subject`; a malformed message from elsewhere on the bus
 * (not JSON, or a shape `onMessage` throws on) is ignored.
 */
export const subscribeJson = (
  nc: NatsConnection,
  subject: string,
  onMessage: (body: unknown) => void,
): (() => void) => {
  const sub = nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err) return;
      try {
        onMessage(msg.json<unknown>());
      } catch {
        // a malformed message from elsewhere on the bus is ignored
      }
    },
  });
  return () => sub.unsubscribe();
};

/**
 * Calls `onReconnect` each time the connection comes back after a loss: messages published while
 * it was away (revocations, invalidations) never arrived, so what they would have cleared must go.
 */
export const watchReconnects = (nc: NatsConnection, onReconnect: () => void): void => {
  void (async () => {
    for await (const status of nc.status()) if (status.type === "reconnect") onReconnect();
  })();
};
