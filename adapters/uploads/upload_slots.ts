import type { FastifyReply, FastifyRequest } from "fastify";
import { CoreError } from "../../core/errors/mod.ts";

/**
 * How many uploads (CSV imports, images) one process reads at once. Each holds a bounded buffer
 * or a file being spooled to disk; past the bound a new upload is refused with 503 and
 * `Retry-After` before any of its body is read, never queued in memory.
 */
export interface UploadSlots {
  /** A slot, released by the returned function (once; later calls do nothing); null when all are taken. */
  take(): (() => void) | null;
  /** Slots taken now. */
  inFlight(): number;
}

/** `UPLOADS_IN_FLIGHT`'s default. */
export const UPLOADS_IN_FLIGHT = 4;

export const uploadSlots = (max: number = UPLOADS_IN_FLIGHT): UploadSlots => {
  let taken = 0;
  return {
    take() {
      if (taken >= max) return null;
      taken++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        taken--;
      };
    },
    inFlight: () => taken,
  };
};

/** Seconds a refused upload is asked to wait: an upload at the size limit takes a few on loopback. */
const BUSY_RETRY_SECONDS = 5;

/**
 * After an answer given before the body was read, how long, and how much of the rest, is taken
 * off the wire (and dropped) before the connection is closed. Closing with bytes unread resets the
 * connection, and a client still sending that has not yet read the answer never sees it (a
 * browser shows "connection reset"): nginx's "lingering close". Loopback and kernel buffers hold
 * tens of MiB, so a byte bound of a few MiB can be reached before a busy client reads its answer;
 * time is the real bound (a client stops sending once it has the answer), bytes only cap what one
 * refusal may cost (the largest upload any route takes).
 */
const LINGER = { bytes: 64 * 1024 * 1024, ms: 2000 } as const;

/**
 * Call on a route that reads its body itself, before anything may answer: when the answer goes out
 * with the body unread (a refusal), the rest is dropped as it arrives, up to `LINGER`, and the
 * connection is then closed; a body that ends within it leaves the connection open.
 */
export const lingerUnreadBody = (request: FastifyRequest, reply: FastifyReply): void => {
  const body = request.raw;
  if (!body.headers["content-length"] && !body.headers["transfer-encoding"]) return;
  reply.raw.once("finish", () => {
    if (body.complete || body.readableEnded) return;
    let dropped = 0;
    const close = () => {
      clearTimeout(timer);
      body.socket?.destroy();
    };
    const timer = setTimeout(close, LINGER.ms);
    body.on("data", (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER.bytes) close();
    });
    body.once("end", () => clearTimeout(timer));
    body.resume();
  });
};

/**
 * What every upload route does before reading a byte of its body, once the caller is known and
 * allowed: a declared size past `maxBytes` is refused, then a slot is taken (none free: 503 with
 * `Retry-After`) and held until the answer is sent.
 */
export const beginUpload = (
  slots: UploadSlots,
  request: FastifyRequest,
  reply: FastifyReply,
  maxBytes: number,
  tooLarge: () => Error,
): void => {
  if (Number(request.headers["content-length"] ?? 0) > maxBytes) throw tooLarge();
  const release = slots.take();
  if (!release) {
    reply.header("retry-after", String(BUSY_RETRY_SECONDS));
    throw new CoreError("unavailable", "Too many uploads are being read right now; try again in a few seconds");
  }
  reply.raw.once("close", release);
};
