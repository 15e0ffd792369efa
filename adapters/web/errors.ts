import type { CoreErrorCode } from "../../core/errors/mod.ts";

/** The one table from core error codes to page statuses and headings. */
export const PAGE_FOR_CODE = {
  bad_request: { status: 400, heading: "That request could not be read" },
  unauthenticated: { status: 401, heading: "Please sign in" },
  forbidden: { status: 403, heading: "Not allowed" },
  not_found: { status: 404, heading: "Page not found" },
  validation_failed: { status: 422, heading: "Please check what you entered" },
  payload_too_large: { status: 413, heading: "That form was too large" },
  unsupported_media_type: { status: 415, heading: "That form could not be read" },
  rate_limited: { status: 429, heading: "Too many requests" },
  unavailable: { status: 503, heading: "Laurel is unavailable" },
} as const satisfies Record<CoreErrorCode, { status: number; heading: string }>;
