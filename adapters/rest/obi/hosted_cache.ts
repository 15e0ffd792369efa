import { createHash } from "node:crypto";
import type { BadgeStore, BadgeTx } from "../../../core/issuing/mod.ts";

/** One rendered hosted record: the exact bytes sent, so a hit costs no database and no serialization. */
export interface HostedEntry {
  status: 200 | 404 | 410;
  body: Buffer;
  /** Strong validator of the body; null for 404s. */
  etag: string | null;
  expiresAt: number;
}

export type HostedKind = "assertion" | "badge_class" | "issuer" | "credential";

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

export const hostedRecordCache = (options: { ttlMs?: number; maxEntries?: number } = {}): HostedRecordCache => {
  const ttl = options.ttlMs ?? 5_000;
  const max = options.maxEntries ?? 20_000;
  const entries = new Map<string, HostedEntry>();
  const key = (kind: HostedKind, id: string) => `${kind}:${id}`;
  return {
    get(kind, id, nowMs) {
      const hit = entries.get(key(kind, id));
      if (hit && hit.expiresAt > nowMs) return hit;
      return undefined;
    },
    put(kind, id, status, body, nowMs) {
      if (entries.size >= max) entries.clear();
      const entry: HostedEntry = { status, body, etag: status === 200 ? etagOf(body) : null, expiresAt: nowMs + ttl };
      if (ttl > 0) entries.set(key(kind, id), entry);
      return entry;
    },
    invalidate(kind, id) {
      if (id !== undefined) {
        entries.delete(key(kind, id));
        return;
      }
      for (const k of entries.keys()) if (k.startsWith(`${kind}:`)) entries.delete(k);
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
 * pending, so its records were and remain "not found" everywhere.
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
    const result = await store.transaction((tx) => {
      const watched: BadgeTx = {
        ...tx,
        insertBadge: (badge, key, exclusive, events, mails) => {
          badges.add(badge.id);
          return tx.insertBadge(badge, key, exclusive, events, mails);
        },
        updateBadge: (badge) => {
          badges.add(badge.id);
          return tx.updateBadge(badge);
        },
        deleteBadge: (id) => {
          badges.add(id);
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
    for (const d of dropped) cache.invalidate(d.kind, d.id);
    await broadcast(dropped);
    return result;
  },
});
