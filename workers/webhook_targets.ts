import { boundedCache } from "../adapters/cache/mod.ts";
import type { SecretBox } from "../core/credentials/mod.ts";
import {
  type DeliveryTargets,
  destinationKey,
  type EventTypeSelection,
  openSecrets,
  type SigningSecrets,
} from "../core/webhooks/mod.ts";

/** Where and how an organization's webhooks go, its secrets opened. */
export interface Target {
  webhookUrl: string | null;
  destination: string | null;
  eventTypes: EventTypeSelection;
  hasDataServicesApplication: boolean;
  secrets: SigningSecrets;
}

/**
 * Organizations' targets, read once and reused for `ttlMs` (0: read for every message); one entry
 * per organization with deliveries under way, dropped by `forget` when its settings change.
 */
export const webhookTargets = (deps: { targets: DeliveryTargets; secrets: Pick<SecretBox, "open"> }, ttlMs: number) => {
  const cache = boundedCache<{ target: Promise<Target>; value?: Target }>({
    maxEntries: 10_000,
    maxBytes: 32 * 1024 * 1024,
    ttlMs,
  });
  const load = async (organizationId: string): Promise<Target> => {
    const t = await deps.targets.target(organizationId);
    let destination: string | null = null;
    try {
      destination = t.webhookUrl ? destinationKey(t.webhookUrl) : null;
    } catch {
      destination = null;
    }
    return {
      webhookUrl: t.webhookUrl,
      destination,
      eventTypes: t.eventTypes,
      hasDataServicesApplication: t.hasDataServicesApplication,
      secrets: openSecrets(deps, {
        secret_sealed: t.secretSealed,
        previous_secret_sealed: t.previousSecretSealed,
        previous_secret_expires_at: t.previousSecretExpiresAt,
      }),
    };
  };
  return {
    /** The organization's target when the cache holds it loaded and fresh (no promise to await). */
    cached: (organizationId: string): Target | undefined => cache.get(organizationId)?.value,
    of: (organizationId: string): Promise<Target> => {
      const hit = cache.get(organizationId);
      if (hit) return hit.target;
      const target = load(organizationId);
      if (ttlMs > 0) {
        const entry: { target: Promise<Target>; value?: Target } = { target };
        cache.set(organizationId, entry);
        target.then(
          (value) => {
            entry.value = value;
          },
          () => {
            if (cache.get(organizationId) === entry) cache.delete(organizationId);
          },
        );
      }
      return target;
    },
    forget: (organizationId: string): void => {
      cache.delete(organizationId);
    },
  };
};
