import type { CoreError, CoreErrorCode } from "../../core/errors/mod.ts";

interface PageShape {
  status: number;
  heading: string;
  /** The page's title when it differs from its heading. */
  title?: string;
  /** What the page says instead of the error's message. */
  text?: string;
  /** Shown without the visitor's session: the failure may lie in reading it. */
  anonymous?: boolean;
}

/** The one table from core error codes to page statuses and headings. */
export const PAGE_FOR_CODE = {
  bad_request: { status: 400, heading: "That request could not be read" },
  unauthenticated: { status: 401, heading: "Please sign in" },
  forbidden: { status: 403, heading: "Not allowed" },
  not_found: {
    status: 404,
    heading: "Page not found",
    title: "Not found",
    text: "There is nothing here, or it is not public.",
  },
  validation_failed: { status: 422, heading: "Please check what you entered" },
  payload_too_large: { status: 413, heading: "That form was too large" },
  unsupported_media_type: { status: 415, heading: "That form could not be read" },
  rate_limited: { status: 429, heading: "Too many requests" },
  unavailable: { status: 503, heading: "Laurel is unavailable" },
  internal: {
    status: 500,
    heading: "Something went wrong",
    title: "Error",
    text: "Please try again shortly.",
    anonymous: true,
  },
} as const satisfies Record<CoreErrorCode, PageShape>;

export interface PageAnswer {
  status: number;
  title: string;
  heading: string;
  lines: string[];
  anonymous: boolean;
}

/** The page answering a core error: the only place a page's status is derived from a code. */
export const pageAnswer = (err: CoreError): PageAnswer => {
  const page: PageShape = PAGE_FOR_CODE[err.code];
  return {
    status: page.status,
    title: page.title ?? page.heading,
    heading: page.heading,
    lines: [page.text ?? err.message],
    anonymous: page.anonymous ?? false,
  };
};

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route answers JSON, its errors too: in the API's error body, never as a page. */
    jsonErrors?: boolean;
  }
}

/** The options of a page-side route that answers JSON (a public feed). */
export const JSON_ERRORS = { config: { jsonErrors: true } } as const;
