import { type HostedInvalidation, HostedInvalidationsSchema } from "../../core/messages/mod.ts";
import type { BusLog } from "./checked_messages.ts";
import { broadcastJson, type Channel, type NatsConnection, subscribeChecked } from "./nats_connection.ts";

export type { HostedInvalidation };

export const HOSTED_INVALIDATIONS: Channel<typeof HostedInvalidationsSchema> = {
  subject: "laurel.hosted_invalidations",
  schema: HostedInvalidationsSchema,
};

/**
 * Changes to hosted records spread to every API process over core NATS, as revocations do: each
 * process drops the records from its cache at once, so a revoked badge's old ETag stops matching
 * everywhere before the change is answered. A process that missed a message still renders anew
 * when its entry expires (a few seconds).
 */
export const natsHostedInvalidations =
  (nc: NatsConnection) =>
  async (items: HostedInvalidation[]): Promise<void> => {
    if (items.length === 0) return;
    // Flushed before the HTTP answer goes out, so peers have dropped the record when the caller sees it changed.
    await broadcastJson(nc, HOSTED_INVALIDATIONS, items);
  };

export const subscribeHostedInvalidations = (
  nc: NatsConnection,
  onInvalidation: (item: HostedInvalidation) => void,
  log: BusLog,
): (() => void) =>
  subscribeChecked(nc, HOSTED_INVALIDATIONS, log, (items) => {
    for (const item of items) onInvalidation(item);
  });
