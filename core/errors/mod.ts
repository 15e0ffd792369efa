export type { CoreErrorCode, CoreErrorOptions, FieldError, OAuthErrorCode, Result } from "./errors.ts";
export {
  badRequest,
  CORE_ERROR_CODES,
  CoreError,
  capFieldErrors,
  fail,
  forbidden,
  internal,
  isCoreError,
  MAX_LISTED_FIELD_ERRORS,
  notFound,
  oauthError,
  ok,
  resultOf,
  settle,
  unauthenticated,
  validationFailed,
} from "./errors.ts";
