import type { Database } from "./orm.ts";
import { EVENTS_CHANNEL } from "./postgres_event_log.ts";

interface PgClient {
  query(sql: string): Promise<unknown>;
  on(event: "notification", listener: (message: { payload?: string }) => void): unknown;
  on(event: "error", listener: (err: Error) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
}

interface KnexClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<unknown>;
}

export interface EventsListener {
  /** False once the connection broke: the caller falls back to polling faster. */
  alive(): boolean;
  close(): Promise<void>;
}

/**
 * LISTENs for `appendEvents`' notifications on a connection of its own (taken from the pool for
 * good), so the relay wakes as soon as events commit. PostgreSQL only: PGlite is in-process and the
 * relay polls it instead. Returns null when listening is not possible.
 */
export const listenForEvents = async (
  db: Database,
  onNotify: (organizationId?: string) => void,
  onError: (err: unknown) => void,
): Promise<EventsListener | null> => {
  if (db.kind !== "postgresql") return null;
  const knexClient = (db.orm.em.getConnection() as unknown as { getKnex(): { client: KnexClient } }).getKnex().client;
  let client: PgClient;
  try {
    client = await knexClient.acquireConnection();
  } catch (err) {
    onError(err);
    return null;
  }
  let alive = true;
  const onConnectionError = (err: Error): void => {
    alive = false;
    onError(err);
  };
  // The payload names the organization whose events committed (empty from older writers).
  const onNotification = (message: { payload?: string }): void => onNotify(message.payload || undefined);
  client.on("notification", onNotification);
  client.on("error", onConnectionError);
  try {
    await client.query(`listen ${EVENTS_CHANNEL}`);
  } catch (err) {
    alive = false;
    onError(err);
  }
  return {
    alive: () => alive,
    close: async () => {
      client.off("notification", onNotification as (...args: never[]) => void);
      client.off("error", onConnectionError as (...args: never[]) => void);
      if (alive) await client.query(`unlisten ${EVENTS_CHANNEL}`).catch(() => undefined);
      await knexClient.releaseConnection(client).catch(() => undefined);
    },
  };
};
