import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import {
  DEFAULT_HTTP_LIMITS,
  failedAuthenticationLimits,
  type HttpLimits,
  limitedServer,
  restErrorHandler,
} from "./app.ts";
import type { RestDeps } from "./deps.ts";
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
  app.setErrorHandler(restErrorHandler());
  const limits = await registerRateLimits(app, deps.rateLimits ?? { settings: null });
  failedAuthenticationLimits(app, limits);
  await app.register(operationalRoutes(deps, { metrics: true }));
  await app.register(async (scope) => {
    if (limits.admin) scope.addHook("onRequest", limits.admin);
    for (const plugin of plugins) await scope.register(plugin);
  });
  return app;
};
