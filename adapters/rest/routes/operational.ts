import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { HealthAnswer, RestDeps } from "../deps.ts";

const answer = (reply: FastifyReply, report: HealthAnswer) =>
  reply
    .code(report.status === "ok" ? 200 : 503)
    .header("cache-control", "no-store")
    .send(report);

/**
 * `/healthz` (can this process do its work), `/readyz` (should it get traffic) and `/metrics`.
 * Both health answers list every dependency's state; 503 when the answer is no.
 */
export const operationalRoutes =
  (deps: Pick<RestDeps, "health" | "ready" | "metrics">, options: { metrics: boolean }) =>
  async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get("/healthz", { schema: { hide: true } }, async (_request, reply) => answer(reply, await deps.health()));
    app.get("/readyz", { schema: { hide: true } }, async (_request, reply) =>
      answer(reply, await (deps.ready ?? deps.health)()),
    );
    if (!options.metrics) return;
    app.get("/metrics", { schema: { hide: true } }, async (_request, reply) =>
      reply.header("content-type", "text/plain; version=0.0.4").send(deps.metrics ? await deps.metrics() : ""),
    );
  };
