import { LRUCache } from "lru-cache";

/** The bounds of one cache, named where the cache is created so a reader sees them there. */
export interface CacheLimits {
  /** Most entries kept; the least recently used goes first. */
  maxEntries: number;
  /** Most bytes kept, as counted by `sizeOf`; an entry larger than this is not kept at all. */
  maxBytes: number;
  /** How long an entry is trusted; 0: until evicted. */
  ttlMs: number;
}

export interface BoundedCacheOptions<V> {
  /** Positive milliseconds on a monotonic scale; tests pass a clock they move by hand. */
  now?: () => number;
  /** Approximate bytes an entry holds (key included); default: the key plus a small record. */
  sizeOf?: (value: V, key: string) => number;
}

/** An LRU map bounded by count, by bytes and by age. Never emptied wholesale when full. */
export interface BoundedCache<V> {
  get(key: string): V | undefined;
  /** Keeps `value`; `ttlMs` shortens the cache's TTL for this entry (never lengthens past 0 = forever). */
  set(key: string, value: V, ttlMs?: number): void;
  delete(key: string): void;
  clear(): void;
  /** Live entries, most recently used first (for invalidation by a predicate). */
  entries(): IterableIterator<[string, V]>;
  readonly size: number;
  /** Bytes held, as counted by `sizeOf`. */
  readonly bytes: number;
}

const ENTRY_OVERHEAD = 64;

/** Bytes of a key and a small fixed record: the default size of an entry. */
export const keyBytes = (key: string): number => key.length * 2 + ENTRY_OVERHEAD;

export const boundedCache = <V extends {}>(
  limits: CacheLimits,
  options: BoundedCacheOptions<V> = {},
): BoundedCache<V> => {
  const sizeOf = options.sizeOf ?? ((_value: V, key: string) => keyBytes(key));
  // lru-cache given `max` allocates its whole index up front (about 50 bytes per possible entry, so
  // megabytes per cache of 100,000 at start): the count is bounded here instead, and its index grows
  // with what is actually kept.
  const lru = new LRUCache<string, V>({
    maxSize: limits.maxBytes,
    sizeCalculation: (value, key) => Math.max(1, Math.ceil(sizeOf(value, key))),
    ...(limits.ttlMs > 0 ? { ttl: limits.ttlMs } : {}),
    // The clock is read on every check: an injected one must be seen to move at once, and
    // lru-cache's cached reading would cost a timer every millisecond on a busy cache.
    ttlResolution: 0,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });
  return {
    get: (key) => lru.get(key),
    set(key, value, ttlMs) {
      if (lru.size >= limits.maxEntries && !lru.has(key)) lru.pop();
      lru.set(key, value, ttlMs !== undefined && ttlMs > 0 ? { ttl: ttlMs } : undefined);
    },
    delete(key) {
      lru.delete(key);
    },
    clear() {
      lru.clear();
    },
    entries: () => lru.entries(),
    get size() {
      return lru.size;
    },
    get bytes() {
      return lru.calculatedSize;
    },
  };
};
