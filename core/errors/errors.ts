/**
 * Core's one failure: a `CoreError` with a stable `code` from a closed union, thrown (see "Errors"
 * in CONTRIBUTING.md). Each transport maps every code to its answer in one table typed
 * `satisfies Record<CoreErrorCode, ...>`, so a new code cannot go unmapped.
 */
export const CORE_ERROR_CODES = [
  "bad_request", // the request cannot be read: malformed JSON, a path id that is not a UUID
  "unauthenticated", // no credential, or one that is unknown, expired or revoked
  "forbidden", // a valid credential that may not do this (scope, flag, ceiling, other organization)
  "not_found",
  "validation_failed", // readable input that fails a schema or a domain rule (field errors attached)
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "unavailable", // a dependency (database, bus) cannot be reached
  "internal", // a fault of Laurel's own: never the client's doing
] as const;

export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/** One problem with one input field; `field` is a dotted path such as `badges.3.recipient_email`. */
export interface FieldError {
  field: string;
  message: string;
}

/** RFC 6749 §5.2 names a refused token request carries; the token endpoint answers with them. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "invalid_scope";

/**
 * Why a domain rule refused, with the data to act on: a closed union, so a client (and a test)
 * branches on `reason.name` and reads its fields instead of matching message text. A `code` says
 * what kind of failure it is; a reason says which rule, where one rule needs telling apart.
 */
export type CoreReason =
  /** An exclusive template already issued a live badge to this address. */
  | { name: "badge_duplicate"; badge_template_id: string }
  /** The template cannot issue: a draft or archived. */
  | { name: "badge_template_not_active"; badge_template_id: string; state: string }
  /** No template of the organization has this id (or it was deleted meanwhile). */
  | { name: "badge_template_unknown"; badge_template_id: string }
  /** A template's state does not allow this action (archive an archived one...). */
  | { name: "badge_template_transition"; state: string; action: string }
  /** The organization's last owner would be removed or demoted. */
  | { name: "last_owner" }
  /** Owners are made, changed or removed only by an owner (in the console). */
  | { name: "ownership_change" }
  /** The credential or member belongs to another organization than the path's. */
  | { name: "other_organization" }
  /** An access token without the scope of the resource family. */
  | { name: "scope_missing"; scope: string }
  /** A credential without the permission the request needs (read, write, delete). */
  | { name: "permission_missing"; permission: "read_enabled" | "write_enabled" | "delete_enabled" };

export type CoreReasonName = CoreReason["name"];

export interface CoreErrorOptions {
  errors?: FieldError[];
  cause?: unknown;
  /** Which domain rule refused, and the data to act on. */
  reason?: CoreReason;
  /** The RFC 6749 name of a refused token request, which the code alone cannot tell apart. */
  oauth?: OAuthErrorCode;
}

export class CoreError extends Error {
  readonly code: CoreErrorCode;
  readonly errors: FieldError[];
  readonly oauth: OAuthErrorCode | undefined;
  readonly reason: CoreReason | undefined;

  constructor(code: CoreErrorCode, message: string, options: CoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CoreError";
    this.code = code;
    this.errors = options.errors ?? [];
    this.oauth = options.oauth;
    this.reason = options.reason;
  }
}

/**
 * The one way a failure is returned instead of thrown, where a failure is part of a successful
 * answer (see "Errors" in CONTRIBUTING.md).
 */
export type Result<T, E = CoreError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const fail = <E>(error: E): { ok: false; error: E } => ({ ok: false, error });

/** What `run` returns, or the `CoreError` it throws, as a `Result`; any other error goes on up. */
export const resultOf = <T>(run: () => T): Result<T> => {
  try {
    return ok(run());
  } catch (err) {
    if (err instanceof CoreError) return fail(err);
    throw err;
  }
};

/** {@link resultOf} for a function that returns a promise. */
export const settle = async <T>(run: () => Promise<T>): Promise<Result<T>> => {
  try {
    return ok(await run());
  } catch (err) {
    if (err instanceof CoreError) return fail(err);
    throw err;
  }
};

export const isCoreError = (value: unknown): value is CoreError => value instanceof CoreError;

export const badRequest = (message: string, errors: FieldError[] = []): CoreError =>
  new CoreError("bad_request", message, { errors });
export const validationFailed = (message: string, errors: FieldError[] = [], reason?: CoreReason): CoreError =>
  new CoreError("validation_failed", message, { errors, ...(reason ? { reason } : {}) });
export const notFound = (what: string): CoreError => new CoreError("not_found", `${what} not found`);
/** `value` itself, or a thrown {@link notFound} of `what` where a look-up found nothing. */
export const orNotFound = <T>(value: T | null | undefined, what: string): T => {
  if (value === null || value === undefined) throw notFound(what);
  return value;
};
export const forbidden = (message: string, reason?: CoreReason): CoreError =>
  new CoreError("forbidden", message, reason ? { reason } : {});
export const unauthenticated = (message = "Authentication required"): CoreError =>
  new CoreError("unauthenticated", message);
export const internal = (message: string, cause?: unknown): CoreError => new CoreError("internal", message, { cause });

/** A refused token request: `invalid_client` fails authentication, every other name is a bad request. */
export const oauthError = (oauth: OAuthErrorCode, description: string): CoreError =>
  new CoreError(oauth === "invalid_client" ? "unauthenticated" : "bad_request", description, { oauth });

/** How many field errors an error body lists; a final entry counts the rest. */
export const MAX_LISTED_FIELD_ERRORS = 100;

/**
 * At most `max` field errors, then one entry saying how many more there were: a body of a
 * hundred thousand bad items must not answer with a hundred thousand errors.
 */
export const capFieldErrors = (errors: FieldError[], max = MAX_LISTED_FIELD_ERRORS): FieldError[] => {
  if (errors.length <= max) return errors;
  const more = errors.length - max;
  return [
    ...errors.slice(0, max),
    { field: "errors", message: `${more} more ${more === 1 ? "error" : "errors"} not listed` },
  ];
};
