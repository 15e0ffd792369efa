/**
 * `adapters/cache`'s interface over a plain Map: entries expire by age (the same TTLs), but
 * nothing bounds the count or the bytes and nothing tracks recency. The request limits benchmark
 * runs its "limits off" server on it (through `unbounded_caches.ts`), so that side pays for
 * neither the limits nor the bounds and the difference is what both cost.
 */
import type { BoundedCache, BoundedCacheOptions, CacheLimits } from "../../adapters/cache/bounded_cache.ts";

export type { BoundedCache, BoundedCacheOptions, CacheLimits };

const ENTRY_OVERHEAD = 64;

export const keyBytes = (key: string): number => key.length * 2 + ENTRY_OVERHEAD;

interface Entry<V> {
  value: V;
  /** Clock reading after which the entry is gone; Infinity: kept until deleted. */
  until: number;
}

export const boundedCache = <V extends {}>(
  limits: CacheLimits,
  options: BoundedCacheOptions<V> = {},
): BoundedCache<V> => {
  const now = options.now ?? (() => performance.now());
  const map = new Map<string, Entry<V>>();
  const live = (key: string): Entry<V> | undefined => {
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    get: (key) => live(key)?.value,
    set(key, value, ttlMs) {
      const ttl = ttlMs !== undefined && ttlMs > 0 ? ttlMs : limits.ttlMs;
      map.set(key, { value, until: ttl > 0 ? now() + ttl : Number.POSITIVE_INFINITY });
    },
    delete(key) {
      map.delete(key);
    },
    clear() {
      map.clear();
    },
    *entries() {
      for (const key of [...map.keys()]) {
        const entry = live(key);
        if (entry) yield [key, entry.value] as [string, V];
      }
    },
    get size() {
      return map.size;
    },
    bytes: 0,
  };
};
