import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

/** Bytes read from a spooled file at once: what the CSV check holds of the file at any moment. */
const SPOOL_CHUNK_BYTES = 64 * 1024;

/** An upload written to a private temporary file as it arrived: its size, digest and a way to read it again. */
export interface SpooledUpload {
  bytes: number;
  sha256: string;
  /** The file from its start, in chunks of at most `SPOOL_CHUNK_BYTES`. */
  read(): Readable;
  /** Removes the file; call it once the upload is used. */
  dispose(): Promise<void>;
}

/**
 * Streams an upload to a temporary file (mode 0600, in a directory of its own under the system's
 * temporary directory), counting and hashing it on the way, so a large file never sits in
 * memory and a slow sender holds no database transaction. Past `maxBytes` the copy stops with
 * `tooLarge()` and the file is removed.
 */
export const spoolUpload = async (
  source: Readable,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<SpooledUpload> => {
  const dir = await mkdtemp(join(tmpdir(), "laurel-upload-"));
  const path = join(dir, "upload");
  const dispose = () => rm(dir, { recursive: true, force: true });
  const hash = createHash("sha256");
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) return done(tooLarge());
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, counted, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await dispose();
    throw err;
  }
  return {
    bytes,
    sha256: hash.digest("hex"),
    read: () => createReadStream(path, { highWaterMark: SPOOL_CHUNK_BYTES }),
    dispose,
  };
};

/** Reads an upload into memory, refusing it with `tooLarge()` once past `maxBytes` (for small files: images). */
export const bufferUpload = async (source: Readable, maxBytes: number, tooLarge: () => Error): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBytes) {
      source.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes);
};
