import { readFileSync } from "node:fs";
import { connect, credsAuthenticator, type NatsConnection, type NodeConnectionOptions } from "@nats-io/transport-node";
import type { Static, TSchema } from "typebox";
import { type BusLog, DROPPED, messageReader } from "./checked_messages.ts";

export type { NatsConnection };

/** How to prove who we are to NATS and whom to trust, beside what `NATS_URL` says. */
export interface NatsSecurity {
  /** A `.creds` file (JWT and nkey seed, as `nsc` writes it): `NATS_CREDS`. Read at each connect. */
  credsFile?: string | undefined;
  /** PEM of the CA that signed the servers' certificates, for TLS: `NATS_CA_FILE`. */
  caFile?: string | undefined;
}

/**
 * Connection options for comma-separated server URLs: a user and password written in a URL
 * (`nats://user:pass@host:4222`) are taken out of it and sent as such; `tls://` URLs or a CA file
 * make the connection require TLS.
 */
export const natsConnectOptions = (url: string, name: string, security: NatsSecurity = {}): NodeConnectionOptions => {
  let user: string | undefined;
  let pass: string | undefined;
  let tls = false;
  const servers = url
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((server) => {
      if (!URL.canParse(server)) return server;
      const u = new URL(server);
      if (u.protocol === "tls:") tls = true;
      if (!u.username && !u.password) return server;
      user ??= decodeURIComponent(u.username);
      pass ??= decodeURIComponent(u.password);
      return `${u.protocol}//${u.host}`;
    });
  const credsFile = security.credsFile;
  return {
    servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // No stack trace captured ahead of every request: it cost more than the rest of a JetStream
    // publish on the relay's hot path.
    noAsyncTraces: true,
    ...(user !== undefined ? { user, pass: pass ?? "" } : {}),
    ...(credsFile ? { authenticator: credsAuthenticator(() => readFileSync(credsFile)) } : {}),
    ...(security.caFile ? { tls: { caFile: security.caFile } } : tls ? { tls: {} } : {}),
  };
};

/** Connects with endless reconnects: a NATS restart must not end the process. */
export const connectNats = (url: string, name: string, security: NatsSecurity = {}): Promise<NatsConnection> =>
  connect(natsConnectOptions(url, name, security));

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

/** A core NATS subject and the one schema of the messages on it. */
export interface Channel<S extends TSchema> {
  subject: string;
  schema: S;
}

/**
 * Publishes `body` as JSON on core NATS and flushes, so every subscriber has it before the caller
 * answers its own client (the caches these messages clear must not outlive the change).
 */
export const broadcastJson = async <S extends TSchema>(
  nc: NatsConnection,
  channel: Channel<S>,
  body: Static<S>,
): Promise<void> => {
  nc.publish(channel.subject, JSON.stringify(body));
  await nc.flush();
};

/**
 * Calls `onMessage` with each message of `channel` that is JSON of its schema; anything else is
 * logged and dropped, and a throwing `onMessage` is logged, so no message ends the subscription.
 */
export const subscribeChecked = <S extends TSchema>(
  nc: NatsConnection,
  channel: Channel<S>,
  log: BusLog,
  onMessage: (body: Static<S>) => void,
): (() => void) => {
  const read = messageReader(channel.schema, log);
  const sub = nc.subscribe(channel.subject, {
    callback: (err, msg) => {
      if (err) return log.warn({ err, subject: channel.subject }, "subscription error");
      const body = read(msg.subject, msg.data);
      if (body === DROPPED) return;
      try {
        onMessage(body);
      } catch (err) {
        log.error({ err, subject: channel.subject }, "message not handled; dropped");
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
