import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { EarnerAccount } from "../../../core/earners/mod.ts";
import { createOrganizationBySignup } from "../../../core/members/mod.ts";
import type { CreateOrganizationInput } from "../../../core/organizations/mod.ts";
import { field } from "../routes_public.ts";
import type { WebKit } from "../web_deps.ts";
import { consoleContext, consoleGate } from "./console_access.ts";
import type { ConsoleDeps } from "./console_deps.ts";
import { checked, tryForm } from "./form_fields.ts";
import { organizationsPage } from "./home_pages.ts";
import { authorizationTokenRoutes } from "./routes_authorization_tokens.ts";
import { badgeRoutes } from "./routes_badges.ts";
import { bulkRoutes } from "./routes_bulk.ts";
import { endorsementRoutes } from "./routes_endorsements.ts";
import { figureRoutes } from "./routes_figures.ts";
import { importRoutes } from "./routes_imports.ts";
import { issuerRoutes } from "./routes_issuers.ts";
import { memberRoutes } from "./routes_members.ts";
import { moreConsoleRoutes } from "./routes_more.ts";
import { oauthApplicationRoutes } from "./routes_oauth_applications.ts";
import { pathwayRoutes } from "./routes_pathways.ts";
import { profileRoutes } from "./routes_profile.ts";
import { templateRoutes } from "./routes_templates.ts";
import { webhookRoutes } from "./routes_webhooks.ts";

/** The organization console: every route asks core, through the gate, whether the member's role allows it. */
export const consoleRoutes = (kit: WebKit, deps: ConsoleDeps) => async (app: FastifyInstance) => {
  const gate = consoleGate(kit, deps);

  const showOrganizations = async (
    request: FastifyRequest,
    reply: FastifyReply,
    account: EarnerAccount,
    status: number,
    error: string | null = null,
  ) => {
    const organizations = await deps.organizationsOf(account.user.id);
    const signup =
      deps.signup === "open"
        ? {
            emails: account.user.emails.filter((e) => e.confirmed).map((e) => e.email),
            error,
            form: { name: field(request, "name"), email: field(request, "email") },
          }
        : null;
    return kit.page(reply, status, organizationsPage(kit.frame(request, reply, "Console"), organizations, signup));
  };

  app.get("/console", async (request, reply) => {
    if (!request.earner) return reply.redirect(`/sign_in?next=${encodeURIComponent("/console")}`, 303);
    return showOrganizations(request, reply, request.earner, 200);
  });

  // Offered only where ORGANIZATION_SIGNUP is open; core refuses it otherwise all the same.
  if (deps.signup === "open")
    app.post("/console/organizations", async (request, reply) => {
      const earner = request.earner;
      if (!earner) return reply.redirect(`/sign_in?next=${encodeURIComponent("/console")}`, 303);
      return tryForm(
        async () => {
          const name = field(request, "name").trim();
          const email = field(request, "email").trim();
          const input = checked<CreateOrganizationInput>(
            Type.Object({
              name: Type.String({ minLength: 1, maxLength: 255 }),
              email: Type.String({ minLength: 3, maxLength: 320 }),
            }),
            { name, email },
            "organization",
          );
          const { organization } = await createOrganizationBySignup(
            deps.members,
            consoleContext(kit, deps),
            deps.signup,
            earner.user.id,
            request.ip,
            input,
          );
          return reply.redirect(`/console/${organization.id}`, 303);
        },
        (error) => showOrganizations(request, reply, earner, 422, error),
      );
    });

  await app.register(oauthApplicationRoutes(kit, deps, gate));
  await app.register(authorizationTokenRoutes(kit, deps, gate));
  await app.register(webhookRoutes(kit, deps, gate));
  await app.register(memberRoutes(kit, deps, gate));
  await app.register(moreConsoleRoutes(kit, deps, gate));
  await app.register(profileRoutes(kit, deps, gate));
  await app.register(importRoutes(kit, deps, gate));
  await app.register(badgeRoutes(kit, deps, gate));
  await app.register(bulkRoutes(kit, deps, gate));
  await app.register(figureRoutes(kit, deps, gate));
  await app.register(templateRoutes(kit, deps, gate));
  const endorsements = deps.endorsements;
  if (endorsements) await app.register(endorsementRoutes(kit, { newId: deps.newId, endorsements }, gate));
  if (deps.pathways) await app.register(pathwayRoutes(kit, deps, deps.pathways, gate));
  if (deps.issuerAuthorizations) await app.register(issuerRoutes(kit, deps, deps.issuerAuthorizations, gate));
};

export type ConsoleGate = ReturnType<typeof consoleGate>;
