import type { RevocationBroadcast } from "../../core/credentials/mod.ts";
import type { NatsConnection } from "./nats_connection.ts";

export const REVOCATIONS_SUBJECT = "laurel.revocations";

export type Revocation = { kind: "application"; clientId: string } | { kind: "token"; digest: string };

/**
 * Revocations spread to every API process over core NATS. Each process drops the credential from its
 * cache; the database stays the source of truth, so a process that missed a message (started later)
 * still refuses the credential on its next look-up.
 */
export const natsRevocationBroadcast = (nc: NatsConnection, local: (r: Revocation) => void): RevocationBroadcast => {
  const send = async (r: Revocation): Promise<void> => {
    local(r);
    nc.publish(REVOCATIONS_SUBJECT, JSON.stringify(r));
    // Flush before the HTTP answer goes out, so peers hear of it before the caller can try again.
    await nc.flush();
  };
  return {
    applicationRevoked: (clientId) => send({ kind: "application", clientId }),
    tokenRevoked: (digest) => send({ kind: "token", digest }),
  };
};

export const subscribeRevocations = (nc: NatsConnection, onRevocation: (r: Revocation) => void): (() => void) => {
  const sub = nc.subscribe(REVOCATIONS_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      try {
        onRevocation(msg.json<Revocation>());
      } catch {
        // a malformed message from elsewhere on the bus is ignored
      }
    },
  });
  return () => sub.unsubscribe();
};
