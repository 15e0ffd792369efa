/**
 * Public badge pages as sent to visitors without a session, for a few seconds: the exact bytes,
 * so a shared link under load costs no database read and no rendering. An entry is dropped
 * whenever the badge's hosted records are (every badge write, in this process at once and from
 * other processes through their broadcast), and every entry when any template changes.
 */
export interface PageCache {
  get(badgeId: string, nowMs: number): { status: number; body: string } | undefined;
  put(badgeId: string, status: number, body: string, nowMs: number): void;
  /** Follows the hosted records' invalidations (`kind`, `id` as the hosted cache names them). */
  drop(kind: string, id?: string): void;
}

export const pageCache = (ttlMs = 5_000, maxEntries = 10_000): PageCache => {
  const entries = new Map<string, { status: number; body: string; expiresAt: number }>();
  return {
    get(badgeId, nowMs) {
      const hit = entries.get(badgeId);
      return hit && hit.expiresAt > nowMs ? hit : undefined;
    },
    put(badgeId, status, body, nowMs) {
      if (entries.size >= maxEntries) entries.clear();
      entries.set(badgeId, { status, body, expiresAt: nowMs + ttlMs });
    },
    drop(kind, id) {
      if (kind === "assertion" && id !== undefined) entries.delete(id);
      else if (kind === "assertion" || kind === "badge_class" || kind === "issuer") entries.clear();
    },
  };
};
