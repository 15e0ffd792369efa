import type { FastifyInstance } from "fastify";
import type { WebKit } from "../web_deps.ts";
import { consoleGate } from "./console_access.ts";
import type { ConsoleDeps } from "./console_deps.ts";
import { organizationHomePage, organizationsPage } from "./home_pages.ts";
import { authorizationTokenRoutes } from "./routes_authorization_tokens.ts";
import { oauthApplicationRoutes } from "./routes_oauth_applications.ts";
import { webhookRoutes } from "./routes_webhooks.ts";

/** The organization console: every route asks core, through the gate, whether the member's role allows it. */
export const consoleRoutes = (kit: WebKit, deps: ConsoleDeps) => async (app: FastifyInstance) => {
  const gate = consoleGate(kit, deps);

  app.get("/console", async (request, reply) => {
    if (!request.earner) return reply.redirect(`/sign_in?next=${encodeURIComponent("/console")}`, 303);
    const organizations = await deps.organizationsOf(request.earner.user.id);
    return kit.page(reply, 200, organizationsPage(kit.frame(request, reply, "Console"), organizations));
  });

  app.get("/console/:org", async (request, reply) => {
    const member = await gate(request, reply, "profile.read");
    if (!member) return reply;
    return kit.page(reply, 200, organizationHomePage(kit.frame(request, reply, "Overview"), member));
  });

  await app.register(oauthApplicationRoutes(kit, deps, gate));
  await app.register(authorizationTokenRoutes(kit, deps, gate));
  await app.register(webhookRoutes(kit, deps, gate));
};

export type ConsoleGate = ReturnType<typeof consoleGate>;
