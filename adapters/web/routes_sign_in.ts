import type { FastifyInstance, FastifyRequest } from "fastify";
import { redeemLink, requestLink, safeNext, signOut, signOutEverywhere } from "../../core/earners/mod.ts";
import { isEmailAddress } from "../../core/shared/mod.ts";
import { linkConfirmPage, linkFailedPage, linkSentPage, signInPage } from "./pages/sign_in_pages.ts";
import { SESSION_COOKIE } from "./session_cookie.ts";
import type { WebKit } from "./web_deps.ts";

const body = (request: FastifyRequest): Record<string, string> => {
  const b = typeof request.body === "object" && request.body !== null ? request.body : {};
  return Object.fromEntries(Object.entries(b).map(([k, v]) => [k, typeof v === "string" ? v : ""]));
};

export const signInRoutes = (kit: WebKit) => async (app: FastifyInstance) => {
  const { deps } = kit;

  app.get<{ Querystring: { email?: string; next?: string } }>("/sign_in", async (request, reply) => {
    const q = request.query;
    if (request.earner) return reply.redirect(safeNext(q.next) ?? "/wallet", 303);
    return kit.page(
      reply,
      200,
      signInPage(kit.frame(request, reply, "Sign in"), {
        email: typeof q.email === "string" ? q.email.slice(0, 254) : "",
        next: safeNext(q.next),
        error: null,
        context: null,
      }),
    );
  });

  app.post("/sign_in", async (request, reply) => {
    const form = body(request);
    const email = (form.email ?? "").trim();
    const next = safeNext(form.next);
    if (!isEmailAddress(email)) {
      return kit.page(
        reply,
        422,
        signInPage(kit.frame(request, reply, "Sign in"), {
          email: email.slice(0, 254),
          next,
          error: "Enter an e-mail address such as name@example.org.",
          context: null,
        }),
      );
    }
    const { token } = await requestLink(deps.earners, deps.context(), {
      purpose: "sign_in",
      email,
      next,
      client: request.ip,
    });
    await kit.mail.sendLink("sign_in", email, token);
    return kit.page(
      reply,
      200,
      linkSentPage({ ...kit.frame(request, reply, "Check your inbox"), noindex: true }, email),
    );
  });

  app.get<{ Querystring: { token?: string } }>("/sign_in/link", async (request, reply) => {
    const token = request.query.token;
    const frame = { ...kit.frame(request, reply, "Continue"), noindex: true };
    if (typeof token !== "string" || token.length === 0 || token.length > 200)
      return kit.page(reply, 404, linkFailedPage(frame, "unknown"));
    return kit.page(reply, 200, linkConfirmPage(frame, token));
  });

  app.post("/sign_in/link", async (request, reply) => {
    const token = (body(request).token ?? "").slice(0, 200);
    const redeemed = await redeemLink(deps.earners, deps.context(), token, request.earner?.user.id ?? null);
    if (!redeemed.ok) {
      const reason = redeemed.error;
      const status = reason === "unknown" ? 404 : reason === "used" || reason === "expired" ? 410 : 409;
      return kit.page(
        reply,
        status,
        linkFailedPage({ ...kit.frame(request, reply, "Link refused"), noindex: true }, reason),
      );
    }
    const used = redeemed.value;
    if (used.session) kit.sessionCookie(reply, used.session);
    if (used.purpose === "sign_in") return reply.redirect(used.next ?? "/wallet?done=signed_in", 303);
    // An add-address or merge link is used only in its own account's session (core checks it).
    return reply.redirect(used.purpose === "merge" ? "/account?done=merged" : "/account?done=email_confirmed", 303);
  });

  app.post("/sign_out", async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await signOut(deps.earners, deps.clock(), token);
    kit.clearSession(reply);
    return reply.redirect("/sign_in", 303);
  });

  app.post("/sign_out_everywhere", async (request, reply) => {
    if (request.earner) await signOutEverywhere(deps.earners, deps.clock(), request.earner.user.id);
    kit.clearSession(reply);
    return reply.redirect("/sign_in", 303);
  });
};
