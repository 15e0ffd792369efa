import type { CoreError, CoreErrorCode, OAuthErrorCode } from "../../core/errors/mod.ts";
import { type ErrorBody, errorBody, RETRY_AFTER_SECONDS } from "../http/mod.ts";

/** The RFC 6749 §5.2 body; `temporarily_unavailable` is the name RFC 6749 §4.1.2.1 gives a 503. */
export interface OAuthErrorBody {
  error: OAuthErrorCode | "unauthorized_client" | "temporarily_unavailable";
  error_description: string;
}

const NO_STORE = { "cache-control": "no-store" } as const;
const REFUSED = { "cache-control": "no-store", pragma: "no-cache" } as const;

interface OAuthAnswerShape {
  status: number;
  /** The body's `error` when the core error names none; null: the API's error body (a 429). */
  error: OAuthErrorBody["error"] | null;
  headers: Readonly<Record<string, string>>;
  /** What the body says instead of the error's message. */
  description?: string;
}

/**
 * The one table from core error codes to the token endpoint's answers: a new code without an
 * answer does not compile. A 413, 429 or 503 is the transport's answer, not a refused grant, so it
 * carries no `pragma`.
 */
export const OAUTH_FOR_CODE = {
  bad_request: { status: 400, error: "invalid_request", headers: REFUSED },
  unauthenticated: {
    status: 401,
    error: "invalid_client",
    headers: { ...REFUSED, "www-authenticate": 'Basic realm="Laurel"' },
  },
  forbidden: { status: 400, error: "unauthorized_client", headers: REFUSED },
  not_found: { status: 400, error: "invalid_grant", headers: REFUSED },
  validation_failed: { status: 400, error: "invalid_request", headers: REFUSED },
  payload_too_large: { status: 413, error: "invalid_request", headers: NO_STORE },
  // RFC 6749 has no 415: a body the endpoint cannot read is an invalid request.
  unsupported_media_type: { status: 400, error: "invalid_request", headers: REFUSED },
  rate_limited: { status: 429, error: null, headers: NO_STORE },
  unavailable: {
    status: 503,
    error: "temporarily_unavailable",
    headers: { ...NO_STORE, "retry-after": String(RETRY_AFTER_SECONDS) },
    description: "Try again later",
  },
  internal: {
    status: 503,
    error: "temporarily_unavailable",
    headers: { ...NO_STORE, "retry-after": String(RETRY_AFTER_SECONDS) },
    description: "Try again later",
  },
} as const satisfies Record<CoreErrorCode, OAuthAnswerShape>;

export interface OAuthAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: OAuthErrorBody | ErrorBody;
}

/** The token endpoint's answer to a core error: the only place its status is derived from a code. */
export const oauthAnswer = (err: CoreError): OAuthAnswer => {
  const answer: OAuthAnswerShape = OAUTH_FOR_CODE[err.code];
  const description = answer.description ?? err.message;
  if (answer.error === null)
    return { status: answer.status, headers: answer.headers, body: errorBody(err.code, description) };
  return {
    status: answer.status,
    headers: answer.headers,
    body: { error: err.oauth ?? answer.error, error_description: description },
  };
};
