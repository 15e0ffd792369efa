import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { badRequest, type FieldError, validationFailed } from "../../core/errors/mod.ts";
import { unstorableTextErrors } from "../../core/shared/mod.ts";

/**
 * Bytes (an uploaded file) and a body handed over unread (an upload its route reads itself) are not
 * text: walked as objects, every byte would become an entry, or the walk would walk the socket.
 */
const opaque = (value: object): boolean => ArrayBuffer.isView(value) || value instanceof Readable;

const check = (value: unknown): FieldError[] => unstorableTextErrors(value, opaque);

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
  const inUrl = [...check(request.params), ...check(request.query)];
  if (inUrl.length > 0) {
    done(badRequest("The request's path or query string is invalid", inUrl));
    return;
  }
  const inBody = check(request.body);
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
