import http from "node:http";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { registerAjvFormats } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
  type onRequestHookHandler,
  type onResponseHookHandler,
} from "fastify";
import secureJson from "secure-json-parse";
import { plainFieldMessage, type SchemaIssue } from "../../core/badges/mod.ts";
import { CoreError, type CoreErrorCode, type FieldError, isCoreError } from "../../core/errors/mod.ts";
import { codeForStatus, errorBody, restAnswer, UNAVAILABLE_MESSAGE } from "../http/mod.ts";
import { uploadSlots } from "../uploads/mod.ts";
import type { RestDeps } from "./deps.ts";
import { ignoreUnknownParameters } from "./ignored_parameters.ts";
import { hasDuplicateKeys } from "./json_keys.ts";
import { isRefusedTextError, refuseUnstorableText } from "./nul_guard.ts";
import { isAnonymous, type RateLimits, registerRateLimits } from "./rate_limits.ts";
import { authorizationTokenRoutes } from "./routes/authorization_tokens.ts";
import { badgeFeedRoutes } from "./routes/badge_feed.ts";
import { badgeTemplateRoutes } from "./routes/badge_templates.ts";
import { badgeRoutes } from "./routes/badges.ts";
import { connectMetadataRoutes } from "./routes/connect_metadata.ts";
import { employeeRoutes } from "./routes/employees.ts";
import { endorsementRoutes } from "./routes/endorsements.ts";
import { eventRoutes } from "./routes/events.ts";
import { importRoutes } from "./routes/imports.ts";
import { invitationRoutes } from "./routes/invitations.ts";
import { issuerAuthorizationRoutes } from "./routes/issuer_authorizations.ts";
import { meRoutes } from "./routes/me.ts";
import { membershipRoutes } from "./routes/memberships.ts";
import { oauthApplicationRoutes } from "./routes/oauth_applications.ts";
import { obApiRoutes } from "./routes/ob_api.ts";
import { cachedNotModified, obiRoutes } from "./routes/obi.ts";
import { obiDataIntegrityRoutes } from "./routes/obi_data_integrity.ts";
import { operationalRoutes } from "./routes/operational.ts";
import { organizationRoutes } from "./routes/organizations.ts";
import { pathwayRoutes } from "./routes/pathways.ts";
import { recommendationRoutes } from "./routes/recommendations.ts";
import { tokenEndpointRoutes } from "./routes/token_endpoint.ts";
import { sharedSerializers } from "./serializers.ts";
import { strictValidatorCompiler } from "./validator.ts";

registerAjvFormats();

export const BODY_LIMIT = 1024 * 1024;

/** `/a/b` of `http://host/a/b/`, or "" for the root. */
const pathPrefix = (url: string): string => new URL(url).pathname.replace(/\/+$/, "");

const FRAMEWORK_CODES: Partial<Record<string, CoreErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "bad_request",
  FST_ERR_CTP_EMPTY_JSON_BODY: "bad_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "bad_request",
};

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  schemaPath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * AJV-style issues as `{field, message}`: `/badges/3/name` becomes `badges.3.name`, one plain
 * message a field (core's wording, the same as a batch item's or a form's).
 */
const fieldErrors = (issues: ValidationIssue[], context: string | undefined): FieldError[] => {
  const byField = new Map<string, SchemaIssue[]>();
  const unknown = new Set<string>();
  for (const issue of issues) {
    let field = (issue.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".");
    const missing = issue.params?.requiredProperties ?? issue.params?.missingProperty;
    const extra = issue.params?.additionalProperties ?? issue.params?.additionalProperty;
    if (Array.isArray(missing) || typeof missing === "string")
      field = [field, [missing].flat()[0]].filter(Boolean).join(".");
    if (Array.isArray(extra) || typeof extra === "string") {
      unknown.add([field, [extra].flat()[0]].filter(Boolean).join("."));
      continue;
    }
    const at = field || (context ?? "body");
    const kind: SchemaIssue = { keyword: issue.keyword ?? "", params: issue.params, schemaPath: issue.schemaPath };
    byField.set(at, [...(byField.get(at) ?? []), kind]);
  }
  // An unknown field also fails as "schema is false" at the same path: say it once, plainly.
  const known = [...byField]
    .filter(([field]) => !unknown.has(field))
    .map(([field, all]): FieldError => ({ field, message: plainFieldMessage(all) }));
  return [...[...unknown].map((field) => ({ field, message: "is not a known field" })), ...known];
};

const PART_MESSAGES: Record<string, string> = {
  querystring: "The request's query string is invalid",
  params: "The request's path parameters are invalid",
  headers: "The request's headers are invalid",
};

/**
 * Any error a request raised, as a core error: core's own as they are; Fastify's schema, body and
 * status errors as the client's mistake they report; a dependency that cannot be reached
 * (`isUnavailable`) as `unavailable`; anything else as `internal`.
 */
export const asCoreError = (
  err: FastifyError & { validation?: ValidationIssue[]; validationContext?: string },
  request: FastifyRequest,
  isUnavailable?: (err: unknown) => boolean,
): CoreError => {
  if (isCoreError(err)) return err;
  if (err.validation) {
    const inBody = err.validationContext === "body";
    const message = inBody
      ? "The request body is invalid"
      : (PART_MESSAGES[err.validationContext ?? ""] ?? "The request's parameters are invalid");
    const errors = fieldErrors(err.validation, err.validationContext);
    return new CoreError(inBody ? "validation_failed" : "bad_request", message, { errors, cause: err });
  }
  const framework = err.code ? FRAMEWORK_CODES[err.code] : undefined;
  if (framework) {
    const message =
      framework === "unsupported_media_type"
        ? "Send the request body as application/json"
        : framework === "payload_too_large"
          ? `The request body is larger than ${request.routeOptions.bodyLimit ?? BODY_LIMIT} bytes`
          : err.message;
    return new CoreError(framework, message, { cause: err });
  }
  if (isRefusedTextError(err)) {
    const message = "The request holds text that cannot be stored (too long, or not valid UTF-8)";
    return new CoreError("validation_failed", message, { cause: err });
  }
  const byStatus = codeForStatus(err.statusCode);
  if (byStatus) return new CoreError(byStatus, err.message, { cause: err });
  if (isUnavailable?.(err)) {
    request.log.warn({ err: { message: err.message, code: err.code } }, "dependency unavailable");
    return new CoreError("unavailable", UNAVAILABLE_MESSAGE, { cause: err });
  }
  return new CoreError("internal", err.message, { cause: err });
};

/** The error handler of the API and the admin listener: every error answered through `restAnswer`. */
export const restErrorHandler =
  (isUnavailable?: (err: unknown) => boolean) => (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const error = asCoreError(err, request, isUnavailable);
    if (error.code === "internal") request.log.error({ err }, "request failed");
    const answer = restAnswer(error);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  };

/** How long a client may take and how many may be connected (per listener). */
export interface HttpLimits {
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 72_000,
  maxConnections: 10_000,
};

/**
 * Node's HTTP server with the limits applied: a client that trickles its headers or body is cut
 * off once the timeout passes (checked several times per timeout), and connections beyond the
 * limit are closed at once.
 */
export const limitedServer = (limits: HttpLimits, handler: http.RequestListener): http.Server => {
  const server = http.createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(100, Math.min(2_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  return server;
};

/** Raw HTTP answer for requests Node's parser refuses before Fastify sees them. */
const rawError = (status: number, reason: string, message: string): string => {
  const body = JSON.stringify(errorBody("bad_request", message));
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
};

/**
 * A caller whose credentials failed too often lately (per client address, across processes) is
 * answered 429 before its credentials are even looked at; every 401 counts as a failure. Only routes
 * that may authenticate carry the two hooks: a route marked `ANONYMOUS` (a hosted record) never
 * answers 401 and is spared them.
 */
export const failedAuthenticationLimits = (app: FastifyInstance, limits: RateLimits): void => {
  if (!limits.on) return;
  // Callback hooks: they run on every request, and an async hook costs promises even when it does nothing.
  const refuse: onRequestHookHandler = (request, reply, done) => {
    // The address is only worked out while a failure window is open.
    if (request.headers.authorization !== undefined && limits.failuresSeen()) {
      try {
        limits.refuseIfFailing(reply, `ip:${request.ip}`);
      } catch (err) {
        done(err as Error);
        return;
      }
    }
    done();
  };
  const count: onResponseHookHandler = (request, reply, done) => {
    if (reply.statusCode === 401) limits.failed(`ip:${request.ip}`).then(() => done());
    else done();
  };
  app.addHook("onRoute", (route) => {
    if (isAnonymous(route.config)) return;
    // Before the route's own hooks: the credentials are not looked at while the address is refused.
    route.onRequest = [refuse, ...hooksOf(route.onRequest)];
    route.onResponse = [...hooksOf(route.onResponse), count];
  });
};

const hooksOf = <H>(hooks: H | H[] | undefined): H[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * The HTTP face of Laurel: REST under `{base_url}`, the token endpoint and JWKS under `{auth_url}`,
 * health and metrics at the root, and the OpenAPI document with a reference page.
 */
export const buildRestApp = async (
  deps: RestDeps,
  options: {
    logger?: FastifyServerOptions["logger"];
    http?: HttpLimits;
    /** Balancers (addresses or CIDRs) whose `X-Forwarded-For` names the client; none: the peer is. */
    trustProxy?: readonly string[];
    /** A log line per request (then every request goes through Fastify). */
    logRequests?: boolean;
  } = {},
): Promise<FastifyInstance> => {
  const httpLimits = options.http ?? DEFAULT_HTTP_LIMITS;
  const trustProxy = options.trustProxy ?? [];
  // Conditional GETs of cached hosted records are answered before Fastify (routes/obi.ts); with
  // per-request logging on, every request goes through Fastify so that each is logged.
  const notModified = options.logRequests ? null : cachedNotModified(deps.badges.hosted, pathPrefix(deps.baseUrl));
  const app: FastifyInstance = Fastify({
    logger: options.logger ?? false,
    // Fastify's own HTTP/1 server (same settings), with the early answer in front of its handler.
    serverFactory: (handler) =>
      limitedServer(httpLimits, (req, res) => {
        if (notModified?.(req, res)) return;
        handler(req, res);
      }),
    bodyLimit: BODY_LIMIT,
    // Left unset without balancers: `request.ip` is then the socket's address, with no header parsed.
    ...(trustProxy.length > 0 ? { trustProxy: [...trustProxy] } : {}),
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
    return503OnClosing: true,
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers } },
    // `/v1//organizations/...`: clients join a base ending in `/` to paths starting with one.
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    requestIdHeader: "x-request-id",
    // A URL Fastify cannot route (bad percent-encoding, a path segment over 200 characters) is the
    // client's mistake: answer in the API's error body.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      reply.code(400).send(errorBody("bad_request", `The request URL is malformed (${error.code ?? "bad URL"})`));
    },
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const tooLarge = (err as { code?: string }).code === "HPE_HEADER_OVERFLOW";
      socket.end(
        tooLarge
          ? rawError(431, "Request Header Fields Too Large", "The request headers are too large")
          : rawError(400, "Bad Request", "The request is not valid HTTP"),
      );
    },
  });
  app.setValidatorCompiler(strictValidatorCompiler);
  app.decorateRequest("auth", null);

  // JSON only (no text/plain); an empty body means "no body", so optional bodies may come bare.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const charset = /charset=([^;\s]+)/i.exec(request.headers["content-type"] ?? "")?.[1]?.toLowerCase();
    if (charset && charset !== "utf-8" && charset !== "utf8") {
      const err = new Error("JSON bodies must be UTF-8") as FastifyError;
      err.statusCode = 415;
      err.code = "FST_ERR_CTP_INVALID_MEDIA_TYPE";
      return done(err, undefined);
    }
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      const value = secureJson.parse(text, undefined, { protoAction: "error", constructorAction: "error" });
      if (hasDuplicateKeys(text)) {
        const err = new Error("The request body names a key twice in one object") as FastifyError;
        err.statusCode = 400;
        err.code = "FST_ERR_CTP_INVALID_JSON_BODY";
        return done(err, undefined);
      }
      done(null, value);
    } catch {
      const err = new Error("The request body is not valid JSON") as FastifyError;
      err.statusCode = 400;
      err.code = "FST_ERR_CTP_INVALID_JSON_BODY";
      done(err, undefined);
    }
  });

  app.setErrorHandler(restErrorHandler(deps.unavailable));

  const limits = await registerRateLimits(app, deps.rateLimits ?? { settings: null });
  failedAuthenticationLimits(app, limits);

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody("not_found", `No route for ${request.method} ${request.url.split("?")[0]}`)),
  );

  const apiBase = new URL(deps.baseUrl);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Laurel credentialing API",
        version: "1.0.0",
        description:
          "Digital badges, OAuth applications, authorization tokens and events. Query parameters a route does not declare are ignored and named, percent-encoded and joined by `, `, in the response header `Laurel-Ignored-Parameters`; an unknown key inside a list's `filter` is still a 400. Every list takes `per` (1 to 100, 50 when absent) and its alias `page_size`.",
      },
      servers: [{ url: apiBase.origin }],
      components: {
        securitySchemes: {
          basic: { type: "http", scheme: "basic", description: "Authorization token as the username, empty password" },
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          client_basic: { type: "http", scheme: "basic", description: "OAuth client id and secret (token endpoint)" },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });

  const apiPrefix = pathPrefix(deps.baseUrl);
  const uploads = deps.uploads ?? uploadSlots();
  app.addHook("preValidation", refuseUnstorableText);
  await app.register(operationalRoutes(deps, { metrics: false }));
  await app.register(tokenEndpointRoutes({ ...deps, limits }, pathPrefix(deps.authUrl)));
  await app.register(connectMetadataRoutes(deps, pathPrefix(deps.authUrl)));
  // The interface's routes, in a context of their own: only they ignore unknown query parameters.
  await app.register(async (api) => {
    ignoreUnknownParameters(api);
    const origin = apiBase.origin;
    await api.register(organizationRoutes(deps, origin), { prefix: apiPrefix });
    await api.register(oauthApplicationRoutes(deps, origin), { prefix: apiPrefix });
    await api.register(authorizationTokenRoutes(deps, origin), { prefix: apiPrefix });
    await api.register(badgeTemplateRoutes(deps, origin, uploads), { prefix: apiPrefix });
    await api.register(badgeRoutes({ ...deps, limits }, origin), { prefix: apiPrefix });
    await api.register(badgeFeedRoutes(deps, origin), { prefix: apiPrefix });
    await api.register(obiRoutes(deps), { prefix: apiPrefix });
    await api.register(obiDataIntegrityRoutes(deps), { prefix: apiPrefix });
    await api.register(eventRoutes(deps, origin), { prefix: apiPrefix });
    await api.register(employeeRoutes(deps, origin), { prefix: apiPrefix });
    await api.register(importRoutes(deps, uploads, "badges"), { prefix: apiPrefix });
    await api.register(importRoutes(deps, uploads, "employees"), { prefix: apiPrefix });
    await api.register(membershipRoutes(deps, origin), { prefix: apiPrefix });
    await api.register(invitationRoutes(deps, origin), { prefix: apiPrefix });
    if (deps.endorsements)
      await api.register(endorsementRoutes(deps, deps.endorsements, origin), { prefix: apiPrefix });
    if (deps.recommendations)
      await api.register(recommendationRoutes(deps, deps.recommendations, origin), { prefix: apiPrefix });
    if (deps.pathways) await api.register(pathwayRoutes(deps, deps.pathways, origin), { prefix: apiPrefix });
    if (deps.issuerAuthorizations)
      await api.register(issuerAuthorizationRoutes(deps, deps.issuerAuthorizations, origin), { prefix: apiPrefix });
    if (deps.connect) await api.register(meRoutes(deps, deps.connect, origin), { prefix: apiPrefix });
  });
  // The Open Badges API answers its own error bodies, so it has a context of its own.
  if (deps.connect && deps.obApi) {
    const prefixes = { api: apiPrefix, auth: pathPrefix(deps.authUrl) };
    await app.register(obApiRoutes(deps, deps.connect, deps.obApi, prefixes));
  }
  for (const plugin of deps.plugins ?? []) await app.register(plugin);
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  return app;
};
