import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { isCoreError } from "../../core/errors/mod.ts";
import { DEFAULT_HTTP_LIMITS, failedAuthenticationLimits, type HttpLimits, limitedServer } from "./app.ts";
import type { RestDeps } from "./deps.ts";
import { errorBody, STATUS_FOR_CODE } from "./errors.ts";
import { registerRateLimits } from "./rate_limits.ts";
import { operationalRoutes } from "./routes/operational.ts";

/**
 * The admin listener, apart from the public one and on loopback by default: the internal API
 * (`plugins`, the tRPC router under `/trpc`), `/metrics` and `/healthz`. Admin requests are
 * limited per client address, and an address whose admin token failed too often is refused.
 */
export const buildAdminApp = async (
  deps: Pick<RestDeps, "health" | "metrics" | "rateLimits">,
  plugins: Array<(app: FastifyInstance) => Promise<void>>,
  options: { logger?: FastifyServerOptions["logger"]; http?: HttpLimits } = {},
): Promise<FastifyInstance> => {
  const app: FastifyInstance = Fastify({
    logger: options.logger ?? false,
    serverFactory: (handler) => limitedServer(options.http ?? DEFAULT_HTTP_LIMITS, handler),
    return503OnClosing: true,
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (isCoreError(err)) return reply.code(STATUS_FOR_CODE[err.code]).send(errorBody(err.code, err.message));
    const status = err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, "admin request failed");
    return reply.code(status).send(errorBody(status === 500 ? "unavailable" : "bad_request", err.message));
  });
  const limits = await registerRateLimits(app, deps.rateLimits ?? { settings: null });
  failedAuthenticationLimits(app, limits);
  await app.register(operationalRoutes(deps, { metrics: true }));
  await app.register(async (scope) => {
    if (limits.admin) scope.addHook("onRequest", limits.admin);
    for (const plugin of plugins) await scope.register(plugin);
  });
  return app;
};
