import { notFound } from "../errors/mod.ts";
import type { OutboxMail } from "../mail/mod.ts";

/** How long an export's link works after the file is ready. */
export const EXPORT_LINK_TTL_MS = 7 * 86_400_000;
/** How long a worker holds an export it took; one that dies leaves it to another after this. */
export const EXPORT_LEASE_MS = 10 * 60_000;
/** Tries before an export is given up (and the earner may ask again). */
export const EXPORT_MAX_ATTEMPTS = 3;

export type ExportState = "pending" | "ready" | "failed";

export interface EarnerExportRecord {
  id: string;
  user_id: string;
  state: ExportState;
  token_digest: string | null;
  size_bytes: number | null;
  created_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
}

/** Exports and their files (the ZIP's bytes as numbered chunks). */
export interface ExportStore {
  /** Adds a pending export unless the account has one pending already (then: that one). */
  request(record: EarnerExportRecord): Promise<EarnerExportRecord>;
  /** Takes the oldest pending export not leased, for `leaseMs`; null: none. */
  claim(now: Date, leaseMs: number, maxAttempts: number): Promise<EarnerExportRecord | null>;
  /**
   * Stores the file's chunks `seq`, `seq + 1`, ...; writing from 0 removes what a previous try
   * wrote (a retried export writes its file again).
   */
  writeChunks(exportId: string, seq: number, chunks: readonly Uint8Array[]): Promise<void>;
  /** Marks the export ready with its link's digest and expiry, and queues the mail, together. */
  finish(
    exportId: string,
    ready: { tokenDigest: string; sizeBytes: number; readyAt: Date; expiresAt: Date },
    mail: OutboxMail,
  ): Promise<void>;
  get(exportId: string): Promise<EarnerExportRecord | null>;
  /**
   * Up to `count` of the file's chunks from `seq` on, in order, end to end in `into` (in a buffer of
   * their size when they do not fit); fewer chunks at the file's end.
   */
  readChunks(
    exportId: string,
    seq: number,
    count: number,
    into: Uint8Array,
  ): Promise<{ bytes: Uint8Array; chunks: number }>;
  /** Removes exports whose link expired before `before`, with their files. */
  removeExpired(before: Date): Promise<number>;
}

export interface ExportDeps {
  store: ExportStore;
  /** Digest of a link token: only digests are stored. */
  digest(token: string): string;
  /** Compares two digests in constant time. */
  equal(a: string, b: string): boolean;
}

/** The earner asks for everything Laurel holds about them; a worker writes it and mails the link. */
export const requestExport = (
  deps: Pick<ExportDeps, "store">,
  ctx: { now: Date; newId: () => string },
  userId: string,
): Promise<EarnerExportRecord> =>
  deps.store.request({
    id: ctx.newId(),
    user_id: userId,
    state: "pending",
    token_digest: null,
    size_bytes: null,
    created_at: ctx.now,
    ready_at: null,
    expires_at: null,
  });

/** When the link of an export finished at `readyAt` stops working. */
export const exportExpiry = (readyAt: Date): Date => new Date(readyAt.getTime() + EXPORT_LINK_TTL_MS);

/**
 * The export a mailed link names, when its token matches (compared in constant time) and it has
 * not expired; "expired" for a right token past its time (the page says so), and not found for
 * anything else, so a guessed id tells nothing.
 */
export const exportForLink = async (
  deps: ExportDeps,
  exportId: string,
  token: string,
  now: Date,
): Promise<EarnerExportRecord | "expired"> => {
  const record = await deps.store.get(exportId);
  const stored = record?.token_digest ?? null;
  if (record?.state !== "ready" || stored === null || token === "" || !deps.equal(deps.digest(token), stored)) {
    throw notFound("Export");
  }
  if (!record.expires_at || record.expires_at.getTime() <= now.getTime()) {
    return "expired";
  }
  return record;
};
