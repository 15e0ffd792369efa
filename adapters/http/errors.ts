import { type Static, Type } from "typebox";
import {
  type CoreError,
  type CoreErrorCode,
  type CoreReason,
  capFieldErrors,
  type FieldError,
} from "../../core/errors/mod.ts";

/** The realm sent with every 401, naming both schemes the API accepts. */
export const WWW_AUTHENTICATE = 'Basic realm="Laurel", Bearer realm="Laurel"';

/** Seconds a client is asked to wait (`Retry-After`) on a 503: a database restart takes about a second. */
export const RETRY_AFTER_SECONDS = 2;

export const UNAVAILABLE_MESSAGE = "A service Laurel depends on is unavailable; try again shortly";

/** What an internal error says: its own message is for the log, not for the client. */
export const INTERNAL_MESSAGE = "Internal error";

interface RestAnswerShape {
  status: number;
  /** The `code` string of the error body. */
  code: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * The one table from core error codes to REST answers (status, the body's `code`, headers): a new
 * code without an answer does not compile.
 */
export const REST_FOR_CODE = {
  bad_request: { status: 400, code: "bad_request", headers: {} },
  unauthenticated: { status: 401, code: "unauthenticated", headers: { "www-authenticate": WWW_AUTHENTICATE } },
  forbidden: { status: 403, code: "forbidden", headers: {} },
  not_found: { status: 404, code: "not_found", headers: {} },
  payload_too_large: { status: 413, code: "payload_too_large", headers: {} },
  unsupported_media_type: { status: 415, code: "unsupported_media_type", headers: {} },
  validation_failed: { status: 422, code: "validation_failed", headers: {} },
  rate_limited: { status: 429, code: "rate_limited", headers: {} },
  unavailable: { status: 503, code: "unavailable", headers: { "retry-after": String(RETRY_AFTER_SECONDS) } },
  internal: { status: 500, code: "internal_error", headers: {} },
} as const satisfies Record<CoreErrorCode, RestAnswerShape>;

const CODE_FOR_STATUS: Partial<Record<number, CoreErrorCode>> = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "rate_limited",
};

/** The core code of an error Fastify or a plugin raised with only a 4xx status, if one fits. */
export const codeForStatus = (status: number | undefined): CoreErrorCode | undefined =>
  status === undefined ? undefined : CODE_FOR_STATUS[status];

/** The documented error body; its field errors are capped (see `capFieldErrors`). */
export const ErrorBody = Type.Object({
  data: Type.Object({
    message: Type.String(),
    code: Type.String(),
    errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
    /** Which domain rule refused, where one rule needs telling apart: `name` and its data (docs/interface.md). */
    reason: Type.Optional(Type.Record(Type.String(), Type.String())),
  }),
  metadata: Type.Object({}),
});
export type ErrorBody = Static<typeof ErrorBody>;

export const errorBody = (
  code: CoreErrorCode,
  message: string,
  errors: FieldError[] = [],
  reason?: CoreReason,
): ErrorBody => ({
  data: { message, code: REST_FOR_CODE[code].code, errors: capFieldErrors(errors), ...(reason ? { reason } : {}) },
  metadata: {},
});

export interface RestAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: ErrorBody;
}

/** The REST answer to a core error: the only place a REST status is derived from a code. */
export const restAnswer = (err: CoreError): RestAnswer => {
  const answer = REST_FOR_CODE[err.code];
  const message = err.code === "internal" ? INTERNAL_MESSAGE : err.message;
  return { status: answer.status, headers: answer.headers, body: errorBody(err.code, message, err.errors, err.reason) };
};
