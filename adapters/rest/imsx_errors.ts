import type { CoreError, CoreErrorCode } from "../../core/errors/mod.ts";
import { INTERNAL_MESSAGE, RETRY_AFTER_SECONDS } from "../http/mod.ts";

/** The Open Badges API's error body (`Imsx_StatusInfo`). */
export interface ImsxStatusInfo {
  imsx_codeMajor: "failure";
  imsx_severity: "error";
  imsx_description: string;
  imsx_codeMinor: { imsx_codeMinorField: { imsx_codeMinorFieldName: string; imsx_codeMinorFieldValue: string }[] };
}

type CodeMinor =
  | "forbidden"
  | "internal_server_error"
  | "invalid_data"
  | "invalid_query_parameter"
  | "not_found"
  | "server_busy"
  | "unauthorizedrequest";

interface ImsxAnswerShape {
  status: number;
  minor: CodeMinor;
  headers: Readonly<Record<string, string>>;
}

const BEARER = 'Bearer realm="Laurel"';

/**
 * The one table from core error codes to the Open Badges API's answers (status and code minor
 * value of the specification's vocabulary): a new code without an answer does not compile.
 */
export const IMSX_FOR_CODE = {
  bad_request: { status: 400, minor: "invalid_data", headers: {} },
  unauthenticated: { status: 401, minor: "unauthorizedrequest", headers: { "www-authenticate": BEARER } },
  forbidden: { status: 403, minor: "forbidden", headers: {} },
  not_found: { status: 404, minor: "not_found", headers: {} },
  validation_failed: { status: 400, minor: "invalid_data", headers: {} },
  payload_too_large: { status: 413, minor: "invalid_data", headers: {} },
  unsupported_media_type: { status: 415, minor: "invalid_data", headers: {} },
  rate_limited: { status: 429, minor: "server_busy", headers: {} },
  unavailable: { status: 503, minor: "server_busy", headers: { "retry-after": String(RETRY_AFTER_SECONDS) } },
  internal: { status: 500, minor: "internal_server_error", headers: {} },
} as const satisfies Record<CoreErrorCode, ImsxAnswerShape>;

export const imsxBody = (minor: CodeMinor, description: string): ImsxStatusInfo => ({
  imsx_codeMajor: "failure",
  imsx_severity: "error",
  imsx_description: description,
  imsx_codeMinor: { imsx_codeMinorField: [{ imsx_codeMinorFieldName: "Laurel", imsx_codeMinorFieldValue: minor }] },
});

/** The Open Badges API's answer to a core error: its status, headers and `Imsx_StatusInfo` body. */
export const imsxAnswer = (err: CoreError, minor?: CodeMinor) => {
  const shape = IMSX_FOR_CODE[err.code];
  const message = err.code === "internal" ? INTERNAL_MESSAGE : err.message;
  return { status: shape.status, headers: shape.headers, body: imsxBody(minor ?? shape.minor, message) };
};
