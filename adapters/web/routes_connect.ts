import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  type AuthorizeRequest,
  applicationGrant,
  approveAuthorization,
  authorizeError,
  checkAuthorizeRequest,
  type GrantTo,
  grantCovers,
  type RedirectingClient,
  removeAccess,
} from "../../core/connect/mod.ts";
import { checkPlatformAuthorizeRequest, platformGrant } from "../../core/ob_api/mod.ts";
import { connectionsPage, consentPage, platformConsentPage } from "./connect_pages.ts";
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

  type Checked =
    | { kind: "refuse"; reason: string }
    | { kind: "redirect_error"; location: string }
    | {
        kind: "ok";
        request: AuthorizeRequest<RedirectingClient, string>;
        grant: (privateBadges: boolean) => GrantTo;
        page: Page;
      };
  type Page = (request: FastifyRequest, reply: FastifyReply, params: Record<string, string>) => Promise<unknown>;

  /** The request read for the client it names: an organization's application, else a platform. */
  const check = async (params: Record<string, unknown>): Promise<Checked> => {
    const clientId = params.client_id;
    const known = typeof clientId === "string" && clientId.length > 0 && clientId.length <= 200;
    const application = known ? await connect.application(clientId) : null;
    if (application || !connect.platform) {
      const checked = checkAuthorizeRequest(params, application);
      if (checked.kind !== "ok") return checked;
      const asked = checked.request;
      const page: Page = async (request, reply, hidden) => {
        const organization = (await connect.organizationName(asked.app.organization_id)) ?? "An organization";
        return kit.page(
          reply,
          200,
          consentPage(
            { ...kit.frame(request, reply, `Connect ${asked.app.name}`), noindex: true },
            { request: asked, organization, action: path, params: hidden },
          ),
        );
      };
      return { kind: "ok", request: asked, grant: () => applicationGrant(asked.app), page };
    }
    const checked = checkPlatformAuthorizeRequest(params, known ? await connect.platform(clientId) : null);
    if (checked.kind !== "ok") return checked;
    const asked = checked.request;
    const page: Page = async (request, reply, hidden) =>
      kit.page(
        reply,
        200,
        platformConsentPage(
          { ...kit.frame(request, reply, `Connect ${asked.app.client_name}`), noindex: true },
          { request: asked, action: path, params: hidden },
        ),
      );
    return { kind: "ok", request: asked, grant: (privateBadges) => platformGrant(asked.app, privateBadges), page };
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
    const asked = checked.request;
    const to = checked.grant(false);
    if (grantCovers(await connect.store.activeGrant(userId, to.client), asked.scopes)) {
      return reply.redirect(await approveAuthorization(connect, deps.context(), userId, asked, to), 303);
    }
    const hidden = Object.fromEntries(
      REQUEST_PARAMS.filter((k) => typeof params[k] === "string").map((k) => [k, params[k] as string]),
    );
    // The decision redirects to the client: the form may lead there, and nowhere else.
    reply.header(
      "content-security-policy",
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; " +
        `form-action 'self' ${new URL(asked.redirectUri).origin}; frame-ancestors 'none'; base-uri 'none'; object-src 'none'`,
    );
    return checked.page(request, reply, hidden);
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
    const to = checked.grant(form.private_badges === "yes");
    return reply.redirect(await approveAuthorization(connect, deps.context(), request.earner.user.id, asked, to), 303);
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
