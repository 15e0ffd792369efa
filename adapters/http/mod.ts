export type { RestAnswer } from "./errors.ts";
export {
  codeForStatus,
  ErrorBody,
  errorBody,
  INTERNAL_MESSAGE,
  REST_FOR_CODE,
  RETRY_AFTER_SECONDS,
  restAnswer,
  UNAVAILABLE_MESSAGE,
  WWW_AUTHENTICATE,
} from "./errors.ts";
