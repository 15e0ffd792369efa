import type { FastifyInstance } from "fastify";
import type { RestDeps } from "../deps.ts";

/**
 * `/healthz` (200 when the database and NATS answer, 503 otherwise) and, on the admin listener
 * only, `/metrics`.
 */
export const operationalRoutes =
  (deps: Pick<RestDeps, "health" | "metrics">, options: { metrics: boolean }) => async (app: FastifyInstance) => {
    app.get("/healthz", { schema: { hide: true } }, async (_request, reply) => {
      const checks = await deps.health();
      const ok = Object.values(checks).every(Boolean);
      return reply
        .code(ok ? 200 : 503)
        .header("cache-control", "no-store")
        .send({ status: ok ? "ok" : "unavailable", checks });
    });
    if (!options.metrics) return;
    app.get("/metrics", { schema: { hide: true } }, async (_request, reply) =>
      reply.header("content-type", "text/plain; version=0.0.4").send(deps.metrics ? await deps.metrics() : ""),
    );
  };
