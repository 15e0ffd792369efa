import { broadcastJson, type NatsConnection, subscribeJson } from "./nats_connection.ts";

export const HOSTED_INVALIDATIONS_SUBJECT = "laurel.hosted_invalidations";

/** A hosted record to drop from every process's cache; no `id`: every record of that kind. */
export interface HostedInvalidation {
  kind: "assertion" | "badge_class" | "issuer" | "credential";
  id?: string;
}

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
    await broadcastJson(nc, HOSTED_INVALIDATIONS_SUBJECT, items);
  };

export const subscribeHostedInvalidations = (
  nc: NatsConnection,
  onInvalidation: (item: HostedInvalidation) => void,
): (() => void) =>
  subscribeJson(nc, HOSTED_INVALIDATIONS_SUBJECT, (items) => {
    if (!Array.isArray(items)) return;
    for (const item of items as Array<Partial<HostedInvalidation> | null>) {
      const kind = item?.kind;
      if (kind && ["assertion", "badge_class", "issuer", "credential"].includes(kind))
        onInvalidation(typeof item?.id === "string" ? { kind, id: item.id } : { kind });
    }
  });
