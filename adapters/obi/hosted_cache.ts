import { createHash } from "node:crypto";
import type { BadgeStore, BadgeTx } from "../../core/issuing/mod.ts";
import { boundedCache, type CacheLimits, keyBytes } from "../cache/mod.ts";

/** One rendered hosted record: the exact bytes sent, so a hit costs no database and no serialization. */
export interface HostedEntry {
  status: 200 | 404 | 410;
  body: Buffer;
  /** Strong validator of the body; null for 404s. */
  etag: string | null;
  expiresAt: number;
}

/** `status_list` ids are `<organization id>/<list number>`. */
/** `issuer`: the OB 2.0 issuer; `profile`: the OB 3.0 issuer profile (both by organization id). */
export type HostedKind = "assertion" | "badge_class" | "issuer" | "profile" | "credential" | "status_list";

/**
 * Rendered OBI records by kind and id, for a few seconds. Writes made in this process invalidate
 * at once (through `invalidatingStore`); another API process's writes show after at most `ttlMs`.
 */
export interface HostedRecordCache {
  get(kind: HostedKind, id: string, nowMs: number): HostedEntry | undefined;
  put(kind: HostedKind, id: string, status: HostedEntry["status"], body: Buffer, nowMs: number): HostedEntry;
  invalidate(kind: HostedKind, id?: string): void;
}

const etagOf = (body: Buffer): string => `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

/**
 * Rendered records are kept 5 s; found records and "not found" answers apart, so a flood of
 * requests for ids that do not exist evicts only other misses, never the popular records.
 */
export const HOSTED_CACHES = {
  found: { maxEntries: 20_000, maxBytes: 64 * 1024 * 1024, ttlMs: 5_000 },
  missing: { maxEntries: 5_000, maxBytes: 4 * 1024 * 1024, ttlMs: 5_000 },
} satisfies Record<string, CacheLimits>;

export const hostedRecordCache = (
  options: { ttlMs?: number; limits?: Partial<typeof HOSTED_CACHES>; now?: () => number } = {},
): HostedRecordCache => {
  const ttl = options.ttlMs ?? HOSTED_CACHES.found.ttlMs;
  const limits = { ...HOSTED_CACHES, ...options.limits };
  const sizeOf = (entry: HostedEntry, key: string) => keyBytes(key) + entry.body.length + 64;
  const clock = options.now ? { now: options.now } : {};
  const found = boundedCache<HostedEntry>({ ...limits.found, ttlMs: ttl }, { ...clock, sizeOf });
  const missing = boundedCache<HostedEntry>({ ...limits.missing, ttlMs: ttl }, { ...clock, sizeOf });
  const key = (kind: HostedKind, id: string) => `${kind}:${id}`;
  return {
    get(kind, id, nowMs) {
      const k = key(kind, id);
      const hit = found.get(k) ?? missing.get(k);
      if (hit && hit.expiresAt > nowMs) return hit;
      return undefined;
    },
    put(kind, id, status, body, nowMs) {
      const entry: HostedEntry = { status, body, etag: status === 200 ? etagOf(body) : null, expiresAt: nowMs + ttl };
      if (ttl > 0) (status === 404 ? missing : found).set(key(kind, id), entry);
      return entry;
    },
    invalidate(kind, id) {
      for (const cache of [found, missing]) {
        if (id !== undefined) {
          cache.delete(key(kind, id));
          continue;
        }
        const keys = [...cache.entries()].map(([k]) => k).filter((k) => k.startsWith(`${kind}:`));
        for (const k of keys) cache.delete(k);
      }
    },
  };
};

/** Tells the other API processes to drop records (resolves once sent); none: one process. */
export type HostedBroadcast = (items: { kind: HostedKind; id?: string }[]) => Promise<void>;

/**
 * The store, with every committed write dropping the hosted records it affects: a badge's
 * assertion and credential; for a template, its badge class and every credential (they embed it).
 * Changes made in a transaction (state, privacy, replacement, deletion, template edits) are also
 * broadcast to the other processes before the write returns. A badge just issued is not: it is
 * pending, so its records were and remain "not found" everywhere. A revocation or a deletion sets
 * a bit in a status list: every status list is dropped (they are few, and rendered on demand).
 */
export const invalidatingStore = (
  store: BadgeStore,
  cache: HostedRecordCache,
  broadcast: HostedBroadcast = async () => {},
): BadgeStore => ({
  ...store,
  async insertBadge(badge, key, exclusive, events, mails) {
    const result = await store.insertBadge(badge, key, exclusive, events, mails);
    cache.invalidate("assertion", badge.id);
    cache.invalidate("credential", badge.id);
    return result;
  },
  async transaction(work) {
    const badges = new Set<string>();
    const templates = new Set<string>();
    let statusChanged = false;
    const result = await store.transaction((tx) => {
      const watched: BadgeTx = {
        ...tx,
        insertBadge: (badge, key, exclusive, events, mails) => {
          badges.add(badge.id);
          return tx.insertBadge(badge, key, exclusive, events, mails);
        },
        updateBadge: (badge) => {
          badges.add(badge.id);
          if (badge.state === "revoked") statusChanged = true;
          return tx.updateBadge(badge);
        },
        deleteBadge: (id) => {
          badges.add(id);
          statusChanged = true;
          return tx.deleteBadge(id);
        },
        updateTemplate: (template) => {
          templates.add(template.id);
          return tx.updateTemplate(template);
        },
        deleteTemplate: (id) => {
          templates.add(id);
          return tx.deleteTemplate(id);
        },
      };
      return work(watched);
    });
    const dropped: { kind: HostedKind; id?: string }[] = [];
    for (const id of badges) dropped.push({ kind: "assertion", id }, { kind: "credential", id });
    for (const id of templates) dropped.push({ kind: "badge_class", id });
    if (templates.size > 0) dropped.push({ kind: "credential" });
    if (statusChanged) dropped.push({ kind: "status_list" });
    for (const d of dropped) cache.invalidate(d.kind, d.id);
    await broadcast(dropped);
    return result;
  },
});
