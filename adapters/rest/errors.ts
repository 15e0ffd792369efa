import { type Static, Type } from "typebox";
import { type CoreErrorCode, capFieldErrors, type FieldError } from "../../core/errors/mod.ts";

/** The one table from core error codes to HTTP statuses: a new code without a status does not compile. */
export const STATUS_FOR_CODE = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  unavailable: 503,
} as const satisfies Record<CoreErrorCode, number>;

/** The documented error body; its field errors are capped (see `capFieldErrors`). */
export const ErrorBody = Type.Object({
  data: Type.Object({
    message: Type.String(),
    code: Type.String(),
    errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
  }),
  metadata: Type.Object({}),
});
export type ErrorBody = Static<typeof ErrorBody>;

export const errorBody = (code: CoreErrorCode, message: string, errors: FieldError[] = []): ErrorBody => ({
  data: { message, code, errors: capFieldErrors(errors) },
  metadata: {},
});

/** The realm sent with every 401, naming both schemes the API accepts. */
export const WWW_AUTHENTICATE = 'Basic realm="Laurel", Bearer realm="Laurel"';

/** Seconds a client is asked to wait (`Retry-After`) on a 503: a database restart takes about a second. */
export const RETRY_AFTER_SECONDS = 2;

export const UNAVAILABLE_MESSAGE = "A service Laurel depends on is unavailable; try again shortly";
