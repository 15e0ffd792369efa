import type { FastifyRequest } from "fastify";
import { badRequest, type FieldError, validationFailed } from "../../core/errors/mod.ts";

const MAX_DEPTH = 64;

/** Dotted paths of the strings (keys or values) in `value` that hold a NUL character. */
const nulPaths = (value: unknown, path: string, out: FieldError[], depth = 0): void => {
  if (out.length >= 20 || depth > MAX_DEPTH) return;
  if (typeof value === "string") {
    if (value.includes("\u0000")) out.push({ field: path || "body", message: "must not contain NUL characters" });
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) nulPaths(v, path ? `${path}.${i}` : String(i), out, depth + 1);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      if (k.includes("\u0000")) out.push({ field: at, message: "must not contain NUL characters" });
      nulPaths(v, at, out, depth + 1);
    }
  }
};

/**
 * PostgreSQL text cannot hold U+0000, so a NUL anywhere in the query or the body is refused up
 * front (400 / 422 naming the field) instead of failing in the database as a 500.
 */
export const refuseNulCharacters = async (request: FastifyRequest): Promise<void> => {
  const inQuery: FieldError[] = [];
  nulPaths(request.query, "", inQuery);
  if (inQuery.length > 0) throw badRequest("The request's query string is invalid", inQuery);
  const inBody: FieldError[] = [];
  nulPaths(request.body, "", inBody);
  if (inBody.length > 0) throw validationFailed("The request body is invalid", inBody);
};
