import type { FastifyInstance } from "fastify";
import t from "tap";
import { restAnswer } from "../../adapters/http/mod.ts";
import { imsxAnswer } from "../../adapters/rest/imsx_errors.ts";
import { buildAdminApp, oauthAnswer } from "../../adapters/rest/mod.ts";
import { trpcError } from "../../adapters/trpc/mod.ts";
import { pageAnswer } from "../../adapters/web/mod.ts";
import { CORE_ERROR_CODES, CoreError, type CoreErrorCode } from "../../core/errors/mod.ts";

/**
 * Each transport's one mapper, code by code. Every table below lists every code: a code added to
 * the union without an answer fails here (and in the typecheck of the mappers' own tables).
 */

const DETAIL = "What went wrong";
const FIELDS = [{ field: "name", message: "is required" }];
const errorOf = (code: CoreErrorCode): CoreError => new CoreError(code, DETAIL, { errors: FIELDS });

type Checks = { same(found: unknown, wanted: unknown, message: string): unknown; fail(message: string): unknown };

const everyCode = <T>(t: Checks, table: Record<CoreErrorCode, T>, check: (code: CoreErrorCode, want: T) => void) => {
  t.same(Object.keys(table).sort(), [...CORE_ERROR_CODES].sort(), "the table lists every code");
  for (const code of CORE_ERROR_CODES) {
    const want = table[code];
    if (want === undefined) t.fail(`${code} has no expected answer`);
    else check(code, want);
  }
};

// `data.code` on the wire: the documented strings, `internal` kept as the `internal_error` clients see.
const REST: Record<CoreErrorCode, { status: number; code: string; headers: Record<string, string> }> = {
  bad_request: { status: 400, code: "bad_request", headers: {} },
  unauthenticated: {
    status: 401,
    code: "unauthenticated",
    headers: { "www-authenticate": 'Basic realm="Laurel", Bearer realm="Laurel"' },
  },
  forbidden: { status: 403, code: "forbidden", headers: {} },
  not_found: { status: 404, code: "not_found", headers: {} },
  validation_failed: { status: 422, code: "validation_failed", headers: {} },
  payload_too_large: { status: 413, code: "payload_too_large", headers: {} },
  unsupported_media_type: { status: 415, code: "unsupported_media_type", headers: {} },
  rate_limited: { status: 429, code: "rate_limited", headers: {} },
  unavailable: { status: 503, code: "unavailable", headers: { "retry-after": "2" } },
  internal: { status: 500, code: "internal_error", headers: {} },
};

t.test("REST: status, the documented error body and headers for every code", async (t) => {
  everyCode(t, REST, (code, want) => {
    const answer = restAnswer(errorOf(code));
    // An internal error's own message is for the log: the client reads a fixed one.
    const message = code === "internal" ? "Internal error" : DETAIL;
    t.same(
      answer,
      {
        status: want.status,
        headers: want.headers,
        body: { data: { message, code: want.code, errors: FIELDS }, metadata: {} },
      },
      code,
    );
  });
});

t.test("admin app: its error handler answers every code through the REST mapper", async (t) => {
  const routes = async (app: FastifyInstance) => {
    app.get<{ Params: { code: CoreErrorCode } }>("/fail/:code", async (request) => {
      throw errorOf(request.params.code);
    });
    app.get("/crash", async () => {
      throw new Error("a bug's message");
    });
  };
  const admin = await buildAdminApp({ health: async () => ({ status: "ok", dependencies: {} }) } as never, [routes]);
  t.teardown(() => admin.close());
  everyCode(t, REST, () => {});
  for (const code of CORE_ERROR_CODES) {
    const res = await admin.inject({ method: "GET", url: `/fail/${code}` });
    const want = REST[code];
    t.equal(res.statusCode, want.status, code);
    t.equal(res.json().data.code, want.code, code);
    for (const [name, value] of Object.entries(want.headers)) t.equal(res.headers[name], value, `${code}: ${name}`);
  }
  const crash = await admin.inject({ method: "GET", url: "/crash" });
  t.equal(crash.statusCode, 500);
  t.same(crash.json(), { data: { message: "Internal error", code: "internal_error", errors: [] }, metadata: {} });
});

const NO_STORE = { "cache-control": "no-store" };
const REFUSED = { "cache-control": "no-store", pragma: "no-cache" };
const LATER = { "cache-control": "no-store", "retry-after": "2" };

const OAUTH: Record<CoreErrorCode, { status: number; headers: Record<string, string>; body: unknown }> = {
  bad_request: { status: 400, headers: REFUSED, body: { error: "invalid_request", error_description: DETAIL } },
  unauthenticated: {
    status: 401,
    headers: { ...REFUSED, "www-authenticate": 'Basic realm="Laurel"' },
    body: { error: "invalid_client", error_description: DETAIL },
  },
  forbidden: { status: 400, headers: REFUSED, body: { error: "unauthorized_client", error_description: DETAIL } },
  not_found: { status: 400, headers: REFUSED, body: { error: "invalid_grant", error_description: DETAIL } },
  validation_failed: { status: 400, headers: REFUSED, body: { error: "invalid_request", error_description: DETAIL } },
  payload_too_large: { status: 413, headers: NO_STORE, body: { error: "invalid_request", error_description: DETAIL } },
  unsupported_media_type: {
    status: 400,
    headers: REFUSED,
    body: { error: "invalid_request", error_description: DETAIL },
  },
  // The rate limit answers the API's error body, on the token endpoint too.
  rate_limited: {
    status: 429,
    headers: NO_STORE,
    body: { data: { message: DETAIL, code: "rate_limited", errors: [] }, metadata: {} },
  },
  unavailable: {
    status: 503,
    headers: LATER,
    body: { error: "temporarily_unavailable", error_description: "Try again later" },
  },
  internal: {
    status: 503,
    headers: LATER,
    body: { error: "temporarily_unavailable", error_description: "Try again later" },
  },
};

t.test("OAuth token endpoint: the RFC 6749 answer for every code", async (t) => {
  everyCode(t, OAUTH, (code, want) => t.same(oauthAnswer(errorOf(code)), want, code));
});

// The Open Badges API: status and the `imsx_codeMinorFieldValue` of the specification's vocabulary.
const IMSX: Record<CoreErrorCode, { status: number; minor: string; headers: Record<string, string> }> = {
  bad_request: { status: 400, minor: "invalid_data", headers: {} },
  unauthenticated: {
    status: 401,
    minor: "unauthorizedrequest",
    headers: { "www-authenticate": 'Bearer realm="Laurel"' },
  },
  forbidden: { status: 403, minor: "forbidden", headers: {} },
  not_found: { status: 404, minor: "not_found", headers: {} },
  validation_failed: { status: 400, minor: "invalid_data", headers: {} },
  payload_too_large: { status: 413, minor: "invalid_data", headers: {} },
  unsupported_media_type: { status: 415, minor: "invalid_data", headers: {} },
  rate_limited: { status: 429, minor: "server_busy", headers: {} },
  unavailable: { status: 503, minor: "server_busy", headers: { "retry-after": "2" } },
  internal: { status: 500, minor: "internal_server_error", headers: {} },
};

t.test("Open Badges API: the Imsx_StatusInfo answer for every code", async (t) => {
  everyCode(t, IMSX, (code, want) => {
    const answer = imsxAnswer(errorOf(code));
    t.same(
      { status: answer.status, headers: answer.headers },
      { status: want.status, headers: want.headers },
      `${code}: status and headers`,
    );
    t.match(answer.body, {
      imsx_codeMajor: "failure",
      imsx_severity: "error",
      imsx_description: code === "internal" ? "Internal error" : DETAIL,
      imsx_codeMinor: { imsx_codeMinorField: [{ imsx_codeMinorFieldValue: want.minor }] },
    });
  });
});

t.test("OAuth token endpoint: a refusal's own RFC 6749 name wins over its code's", async (t) => {
  const table: Array<[CoreErrorCode, "invalid_grant" | "invalid_scope" | "unsupported_grant_type", number]> = [
    ["bad_request", "invalid_grant", 400],
    ["bad_request", "invalid_scope", 400],
    ["bad_request", "unsupported_grant_type", 400],
  ];
  for (const [code, oauth, status] of table) {
    const answer = oauthAnswer(new CoreError(code, DETAIL, { oauth }));
    t.equal(answer.status, status, oauth);
    t.same(answer.body, { error: oauth, error_description: DETAIL }, oauth);
  }
});

const PAGES: Record<
  CoreErrorCode,
  { status: number; title: string; heading: string; lines: string[]; anonymous: boolean }
> = {
  bad_request: {
    status: 400,
    title: "That request could not be read",
    heading: "That request could not be read",
    lines: [DETAIL],
    anonymous: false,
  },
  unauthenticated: {
    status: 401,
    title: "Please sign in",
    heading: "Please sign in",
    lines: [DETAIL],
    anonymous: false,
  },
  forbidden: { status: 403, title: "Not allowed", heading: "Not allowed", lines: [DETAIL], anonymous: false },
  not_found: {
    status: 404,
    title: "Not found",
    heading: "Page not found",
    lines: ["There is nothing here, or it is not public."],
    anonymous: false,
  },
  validation_failed: {
    status: 422,
    title: "Please check what you entered",
    heading: "Please check what you entered",
    lines: [DETAIL],
    anonymous: false,
  },
  payload_too_large: {
    status: 413,
    title: "That form was too large",
    heading: "That form was too large",
    lines: [DETAIL],
    anonymous: false,
  },
  unsupported_media_type: {
    status: 415,
    title: "That form could not be read",
    heading: "That form could not be read",
    lines: [DETAIL],
    anonymous: false,
  },
  rate_limited: {
    status: 429,
    title: "Too many requests",
    heading: "Too many requests",
    lines: [DETAIL],
    anonymous: false,
  },
  unavailable: {
    status: 503,
    title: "Laurel is unavailable",
    heading: "Laurel is unavailable",
    lines: [DETAIL],
    anonymous: false,
  },
  // Shown without the session, whose reading may be what failed; its message is for the log.
  internal: {
    status: 500,
    title: "Error",
    heading: "Something went wrong",
    lines: ["Please try again shortly."],
    anonymous: true,
  },
};

t.test("pages: status, title, heading and text for every code", async (t) => {
  everyCode(t, PAGES, (code, want) => t.same(pageAnswer(errorOf(code)), want, code));
});

const TRPC: Record<CoreErrorCode, string> = {
  bad_request: "BAD_REQUEST",
  unauthenticated: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  validation_failed: "UNPROCESSABLE_CONTENT",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  rate_limited: "TOO_MANY_REQUESTS",
  unavailable: "SERVICE_UNAVAILABLE",
  internal: "INTERNAL_SERVER_ERROR",
};

t.test("tRPC: the error code for every code, the core error kept as its cause", async (t) => {
  everyCode(t, TRPC, (code, want) => {
    const err = errorOf(code);
    const mapped = trpcError(err);
    t.equal(mapped.code, want, code);
    t.equal(mapped.message, DETAIL, code);
    t.equal(mapped.cause, err, code);
  });
});
