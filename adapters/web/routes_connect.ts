import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  approveAuthorization,
  authorizeError,
  checkAuthorizeRequest,
  grantCovers,
  removeAccess,
} from "../../core/connect/mod.ts";
import { connectionsPage, consentPage } from "./connect_pages.ts";
import { messagePage } from "./layout.ts";
import type { WebConnectDeps, WebKit } from "./web_deps.ts";

const REQUEST_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The authorization endpoint (RFC 6749 §4.1, PKCE S256) with its consent page, and the earner's
 * list of connected applications. Pages, not API: they share the earner session and CSRF checks.
 */
export const connectRoutes = (kit: WebKit, connect: WebConnectDeps) => async (app: FastifyInstance) => {
  const { deps } = kit;
  const path = `${connect.authPath}/oauth/authorize`;

  const check = async (params: Record<string, unknown>) => {
    const clientId = params.client_id;
    const application =
      typeof clientId === "string" && clientId.length > 0 && clientId.length <= 200
        ? await connect.application(clientId)
        : null;
    return checkAuthorizeRequest(params, application);
  };

  const refused = (request: FastifyRequest, reply: FastifyReply, reason: string) =>
    kit.page(
      reply,
      400,
      messagePage(kit.frame(request, reply, "Cannot connect"), "This connection request cannot be completed", [
        reason,
        "Go back to the application and try again, or tell its makers.",
      ]),
    );

  app.get<{ Querystring: Record<string, unknown> }>(path, async (request, reply) => {
    reply.header("cache-control", "no-store");
    const params = request.query;
    const checked = await check(params);
    if (checked.kind === "refuse") return refused(request, reply, checked.reason);
    if (checked.kind === "redirect_error") return reply.redirect(checked.location, 303);
    if (!request.earner) return reply.redirect(`/sign_in?next=${encodeURIComponent(request.url)}`, 303);
    const userId = request.earner.user.id;
    const { request: asked } = checked;
    if (grantCovers(await connect.store.activeGrant(userId, asked.app.id), asked.scopes)) {
      return reply.redirect(await approveAuthorization(connect, deps.context(), userId, asked), 303);
    }
    const organization = (await connect.organizationName(asked.app.organization_id)) ?? "An organization";
    const hidden = Object.fromEntries(
      REQUEST_PARAMS.filter((k) => typeof params[k] === "string").map((k) => [k, params[k] as string]),
    );
    // The decision redirects to the client: the form may lead there, and nowhere else.
    reply.header(
      "content-security-policy",
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; " +
        `form-action 'self' ${new URL(asked.redirectUri).origin}; frame-ancestors 'none'; base-uri 'none'; object-src 'none'`,
    );
    return kit.page(
      reply,
      200,
      consentPage(
        { ...kit.frame(request, reply, `Connect ${asked.app.name}`), noindex: true },
        { request: asked, organization, action: path, params: hidden },
      ),
    );
  });

  app.post<{ Body: Record<string, unknown> | undefined }>(path, async (request, reply) => {
    const form = request.body ?? {};
    const params = Object.fromEntries(REQUEST_PARAMS.filter((k) => k in form).map((k) => [k, form[k]]));
    const checked = await check(params);
    if (checked.kind === "refuse") return refused(request, reply, checked.reason);
    if (checked.kind === "redirect_error") return reply.redirect(checked.location, 303);
    if (!request.earner) return reply.redirect("/sign_in", 303);
    const asked = checked.request;
    if (form.decision !== "allow") {
      return reply.redirect(
        authorizeError(asked.redirectUri, asked.state, "access_denied", "The earner denied access").location,
        303,
      );
    }
    return reply.redirect(await approveAuthorization(connect, deps.context(), request.earner.user.id, asked), 303);
  });

  app.get<{ Querystring: { done?: unknown } }>("/account/connections", async (request, reply) => {
    if (!request.earner) return reply.redirect("/sign_in?next=%2Faccount%2Fconnections", 303);
    const done = request.query.done;
    const grants = await connect.store.grantsOf(request.earner.user.id);
    return kit.page(
      reply,
      200,
      connectionsPage(
        { ...kit.frame(request, reply, "Connected applications"), noindex: true },
        grants,
        done === "removed" ? "removed" : null,
      ),
    );
  });

  app.post<{ Params: { grant_id: string } }>("/account/connections/:grant_id/remove", async (request, reply) => {
    if (!request.earner) return reply.redirect("/sign_in", 303);
    const grantId = request.params.grant_id;
    if (UUID.test(grantId)) {
      const ctx = deps.context();
      await removeAccess(connect.store, { now: ctx.now, newEventId: ctx.newEventId }, request.earner.user.id, grantId);
    }
    return reply.redirect("/account/connections?done=removed", 303);
  });
};
