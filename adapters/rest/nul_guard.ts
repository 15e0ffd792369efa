import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { badRequest, type FieldError, validationFailed } from "../../core/errors/mod.ts";

const MAX_DEPTH = 64;
const MAX_LISTED = 20;

/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether PostgreSQL refuses `text` as a text value: U+0000, or a surrogate without its pair. */
export const isUnstorableText = (text: string): boolean => text.includes("\u0000") || LONE_SURROGATE.test(text);

/** What is wrong with `text`, or null when PostgreSQL can store it. */
const unstorableReason = (text: string): string | null =>
  text.includes("\u0000")
    ? "must not contain NUL characters"
    : LONE_SURROGATE.test(text)
      ? "must not contain unpaired surrogates"
      : null;

/** Dotted paths of the strings (keys or values) in `value` that PostgreSQL would refuse. */
const unstorablePaths = (value: unknown, path: string, out: FieldError[], depth = 0): void => {
  if (out.length >= MAX_LISTED || depth > MAX_DEPTH) return;
  if (typeof value === "string") {
    const reason = unstorableReason(value);
    if (reason) out.push({ field: path || "body", message: reason });
  } else if (ArrayBuffer.isView(value)) {
    // Bytes (an uploaded file) are not text: their route reads and checks them itself. Walked as
    // an object, every byte would become an entry, hundreds of bytes of memory each.
    return;
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) unstorablePaths(v, path ? `${path}.${i}` : String(i), out, depth + 1);
  } else if (value instanceof Readable) {
    // A body handed over unread (an upload its route reads itself) is no text to check, and
    // walked as an object it would walk the socket.
    return;
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      const reason = unstorableReason(k);
      if (reason) out.push({ field: at, message: reason });
      unstorablePaths(v, at, out, depth + 1);
    }
  }
};

/**
 * A preValidation hook for every route: text PostgreSQL cannot hold (U+0000, lone surrogates) in the
 * path, the query or the body is refused up front (400 / 422 naming the field) instead of failing in
 * the database. A callback hook: it runs on every request, and an async one costs promises even
 * when it finds nothing.
 */
export const refuseUnstorableText = (
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (err?: Error) => void,
): void => {
  const inUrl: FieldError[] = [];
  unstorablePaths(request.params, "", inUrl);
  unstorablePaths(request.query, "", inUrl);
  if (inUrl.length > 0) {
    done(badRequest("The request's path or query string is invalid", inUrl));
    return;
  }
  const inBody: FieldError[] = [];
  unstorablePaths(request.body, "", inBody);
  done(inBody.length > 0 ? validationFailed("The request body is invalid", inBody) : undefined);
};

/**
 * PostgreSQL's SQLSTATEs for text it refused (invalid byte sequence 22021, untranslatable character
 * 22P05, value too long 22001, and 08P01, a NUL byte inside a query's text): input the edge should
 * have refused, so a client error, never a 500.
 */
const REFUSED_TEXT_STATES = new Set(["22021", "22P05", "22001", "08P01"]);

/** Whether `err` (or an error it wraps) is PostgreSQL refusing a text value. */
export const isRefusedTextError = (err: unknown): boolean => {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown; sqlState?: unknown }).code ?? (e as { sqlState?: unknown }).sqlState;
    if (typeof code === "string" && REFUSED_TEXT_STATES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
};
