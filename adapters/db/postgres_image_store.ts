import type { Database } from "./database.ts";

/** Stored images by the SHA-256 of their bytes (hex). */
export interface ImageStore {
  /** Stores the image unless the same bytes are stored already. */
  put(sha256: string, contentType: string, bytes: Uint8Array, now: Date): Promise<void>;
  get(sha256: string): Promise<{ contentType: string; bytes: Buffer } | null>;
}

export const postgresImageStore = (db: Database): ImageStore => ({
  async put(sha256, contentType, bytes, now) {
    await db.run(
      "insert into images (sha256, content_type, bytes, created_at) values (?, ?, ?, ?) on conflict (sha256) do nothing",
      [sha256, contentType, Buffer.from(bytes), now],
    );
  },
  async get(sha256) {
    const row = await db.one<{ content_type: string; bytes: Buffer | Uint8Array }>(
      "select content_type, bytes from images where sha256 = ?",
      [sha256],
    );
    return row ? { contentType: row.content_type, bytes: Buffer.from(row.bytes) } : null;
  },
});
