import { boundedCache, type CacheLimits, keyBytes } from "../cache/mod.ts";

/**
 * Public badge pages as sent to visitors without a session, for a few seconds: the exact bytes
 * (encoded once: a page sent as a string is encoded to UTF-8 again on every write),
 * so a shared link under load costs no database read and no rendering. An entry is dropped
 * whenever the badge's hosted records are (every badge write, in this process at once and from
 * other processes through their broadcast), and every entry when any template changes.
 */
export interface PageCache {
  get(badgeId: string): { status: number; body: Buffer } | undefined;
  put(badgeId: string, status: number, body: Buffer): void;
  /** Follows the hosted records' invalidations (`kind`, `id` as the hosted cache names them). */
  drop(kind: string, id?: string): void;
}

/** 5 s, at most 10,000 pages and 64 MiB of them (a page is 10-20 KB). */
export const PAGE_CACHE_LIMITS: CacheLimits = { maxEntries: 10_000, maxBytes: 64 * 1024 * 1024, ttlMs: 5_000 };

export const pageCache = (clock: () => Date, limits: CacheLimits = PAGE_CACHE_LIMITS): PageCache => {
  const entries = boundedCache<{ status: number; body: Buffer }>(limits, {
    now: () => clock().getTime(),
    sizeOf: (page, key) => keyBytes(key) + page.body.length,
  });
  return {
    get: (badgeId) => entries.get(badgeId),
    put: (badgeId, status, body) => entries.set(badgeId, { status, body }),
    drop(kind, id) {
      if (kind === "assertion" && id !== undefined) entries.delete(id);
      else if (kind === "assertion" || kind === "badge_class" || kind === "issuer") entries.clear();
    },
  };
};
