import type { RevocationBroadcast } from "../../core/credentials/mod.ts";
import { type Revocation, RevocationSchema } from "../../core/messages/mod.ts";
import type { BusLog } from "./checked_messages.ts";
import { broadcastJson, type Channel, type NatsConnection, subscribeChecked } from "./nats_connection.ts";

export type { Revocation };

export const REVOCATIONS: Channel<typeof RevocationSchema> = {
  subject: "laurel.revocations",
  schema: RevocationSchema,
};

/**
 * Revocations spread to every API process over core NATS. Each process drops the credential from its
 * cache; the database stays the source of truth, so a process that missed a message (started later)
 * still refuses the credential on its next look-up.
 */
export const natsRevocationBroadcast = (nc: NatsConnection, local: (r: Revocation) => void): RevocationBroadcast => {
  const send = async (r: Revocation): Promise<void> => {
    local(r);
    // Flushed before the HTTP answer goes out: the message has reached NATS, and peers apply it
    // when they read it (usually well within a millisecond; never later than their 30 s cache).
    await broadcastJson(nc, REVOCATIONS, r);
  };
  return {
    applicationRevoked: (clientId) => send({ kind: "application", clientId }),
    tokenRevoked: (digest) => send({ kind: "token", digest }),
  };
};

export const subscribeRevocations = (
  nc: NatsConnection,
  onRevocation: (r: Revocation) => void,
  log: BusLog,
): (() => void) => subscribeChecked(nc, REVOCATIONS, log, onRevocation);
