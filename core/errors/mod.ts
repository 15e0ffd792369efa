export type { CoreErrorCode, FieldError } from "./errors.ts";
export {
  badRequest,
  CORE_ERROR_CODES,
  CoreError,
  capFieldErrors,
  forbidden,
  isCoreError,
  MAX_LISTED_FIELD_ERRORS,
  notFound,
  unauthenticated,
  validationFailed,
} from "./errors.ts";
