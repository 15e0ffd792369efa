export type { CoreErrorCode, FieldError } from "./errors.ts";
export {
  badRequest,
  CORE_ERROR_CODES,
  CoreError,
  forbidden,
  isCoreError,
  notFound,
  unauthenticated,
  validationFailed,
} from "./errors.ts";
