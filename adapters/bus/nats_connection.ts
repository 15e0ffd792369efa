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
