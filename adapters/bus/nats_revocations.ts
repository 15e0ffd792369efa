import type { RevocationBroadcast } from "../../core/credentials/mod.ts";
import { broadcastJson, type NatsConnection, subscribeJson } from "./nats_connection.ts";

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
    // Flushed before the HTTP answer goes out, so peers hear of it before the caller can try again.
    await broadcastJson(nc, REVOCATIONS_SUBJECT, r);
  };
  return {
    applicationRevoked: (clientId) => send({ kind: "application", clientId }),
    tokenRevoked: (digest) => send({ kind: "token", digest }),
  };
};

export const subscribeRevocations = (nc: NatsConnection, onRevocation: (r: Revocation) => void): (() => void) =>
  subscribeJson(nc, REVOCATIONS_SUBJECT, (body) => onRevocation(body as Revocation));
