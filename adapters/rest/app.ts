import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { registerAjvFormats, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import secureJson from "secure-json-parse";
import { type CoreErrorCode, type FieldError, isCoreError } from "../../core/errors/mod.ts";
import type { RestDeps } from "./deps.ts";
import { errorBody, STATUS_FOR_CODE, WWW_AUTHENTICATE } from "./errors.ts";
import { authorizationTokenRoutes } from "./routes/authorization_tokens.ts";
import { oauthApplicationRoutes } from "./routes/oauth_applications.ts";
import { operationalRoutes } from "./routes/operational.ts";
import { tokenEndpointRoutes } from "./routes/token_endpoint.ts";

registerAjvFormats();

export const BODY_LIMIT = 1024 * 1024;

/** `/a/b` of `http://host/a/b/`, or "" for the root. */
const pathPrefix = (url: string): string => new URL(url).pathname.replace(/\/+$/, "");

const FRAMEWORK_CODES: Record<string, CoreErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "bad_request",
  FST_ERR_CTP_EMPTY_JSON_BODY: "bad_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "bad_request",
};

const CODE_FOR_STATUS: Partial<Record<number, CoreErrorCode>> = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "rate_limited",
};

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** AJV-style issues as `{field, message}`: `/badges/3/name` becomes `badges.3.name`. */
const fieldErrors = (issues: ValidationIssue[], context: string | undefined): FieldError[] => {
  const all = issues.slice(0, 50).map((issue): FieldError => {
    let field = (issue.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".");
    const missing = issue.params?.requiredProperties ?? issue.params?.missingProperty;
    const extra = issue.params?.additionalProperties ?? issue.params?.additionalProperty;
    if (Array.isArray(missing) || typeof missing === "string")
      field = [field, [missing].flat()[0]].filter(Boolean).join(".");
    if (Array.isArray(extra) || typeof extra === "string") {
      const name = [extra].flat()[0];
      return { field: [field, name].filter(Boolean).join("."), message: "is not a known field" };
    }
    return { field: field || (context ?? "body"), message: issue.message ?? "is invalid" };
  });
  // An unknown field also fails as "schema is false" at the same path: say it once, plainly.
  const unknown = new Set(all.filter((e) => e.message === "is not a known field").map((e) => e.field));
  return all.filter((e) => !(unknown.has(e.field) && e.message !== "is not a known field"));
};

const PART_NAMES: Record<string, string> = {
  querystring: "query string",
  params: "path parameters",
  headers: "headers",
};

/**
 * The HTTP face of Laurel: REST under `{base_url}`, the token endpoint and JWKS under `{auth_url}`,
 * health and metrics at the root, and the OpenAPI document with a reference page.
 */
export const buildRestApp = async (
  deps: RestDeps,
  options: { logger?: FastifyServerOptions["logger"] } = {},
): Promise<FastifyInstance> => {
  const app: FastifyInstance = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    logController: new LogController({ disableRequestLogging: process.env.LOG_REQUESTS !== "1" }),
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true },
    requestIdHeader: "x-request-id",
  });
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  app.decorateRequest("auth", null);

  // JSON only (no text/plain); an empty body means "no body", so optional bodies may come bare.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: "error", constructorAction: "error" }));
    } catch {
      const err = new Error("The request body is not valid JSON") as FastifyError;
      err.statusCode = 400;
      err.code = "FST_ERR_CTP_INVALID_JSON_BODY";
      done(err, undefined);
    }
  });

  app.setErrorHandler(
    (err: FastifyError & { validation?: ValidationIssue[]; validationContext?: string }, request, reply) => {
      let code: CoreErrorCode;
      let message: string;
      let errors: FieldError[] = [];
      if (isCoreError(err)) {
        ({ code, message, errors } = err);
      } else if (err.validation) {
        const inBody = err.validationContext === "body";
        code = inBody ? "validation_failed" : "bad_request";
        message = inBody
          ? "The request body is invalid"
          : `The request's ${PART_NAMES[err.validationContext ?? ""] ?? "parameters"} are invalid`;
        errors = fieldErrors(err.validation, err.validationContext);
      } else if (err.code && FRAMEWORK_CODES[err.code]) {
        code = FRAMEWORK_CODES[err.code] as CoreErrorCode;
        message =
          code === "unsupported_media_type"
            ? "Send the request body as application/json"
            : code === "payload_too_large"
              ? `The request body is larger than ${BODY_LIMIT} bytes`
              : err.message;
      } else if (err.statusCode && err.statusCode < 500 && CODE_FOR_STATUS[err.statusCode]) {
        code = CODE_FOR_STATUS[err.statusCode] as CoreErrorCode;
        message = err.message;
      } else {
        request.log.error({ err }, "request failed");
        const unavailable = /ECONNREFUSED|connection|timeout|terminat/i.test(String(err.message));
        reply.code(unavailable ? 503 : 500);
        return reply.send(
          errorBody(
            unavailable ? "unavailable" : ("internal_error" as CoreErrorCode),
            unavailable ? "A service Laurel depends on is unavailable; try again shortly" : "Internal error",
          ),
        );
      }
      if (code === "unauthenticated") reply.header("www-authenticate", WWW_AUTHENTICATE);
      return reply.code(STATUS_FOR_CODE[code]).send(errorBody(code, message, errors));
    },
  );

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
        description: "Digital badges, OAuth applications, authorization tokens and events.",
      },
      servers: [{ url: apiBase.origin }],
      components: {
        securitySchemes: {
          basic: { type: "http", scheme: "basic", description: "Authorization token as the username, empty password" },
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });

  const apiPrefix = pathPrefix(deps.baseUrl);
  await app.register(operationalRoutes(deps));
  await app.register(tokenEndpointRoutes(deps, pathPrefix(deps.authUrl)));
  await app.register(oauthApplicationRoutes(deps, apiBase.origin), { prefix: apiPrefix });
  await app.register(authorizationTokenRoutes(deps, apiBase.origin), { prefix: apiPrefix });
  for (const plugin of deps.plugins ?? []) await app.register(plugin);
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  return app;
};
