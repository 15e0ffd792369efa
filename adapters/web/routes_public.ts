import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { fullName, templateImageUrl } from "../../core/badges/mod.ts";
import {
  badgeForAcceptLink,
  badgeForPage,
  badgePageVisible,
  badgePrivacy,
  decideBadge,
  issuerPage,
  publicProfile,
  redeemBadgeLink,
  verifyChecks,
} from "../../core/earners/mod.ts";
import type { EndorsementTarget } from "../../core/endorsements/mod.ts";
import { notFound } from "../../core/errors/mod.ts";
import { acceptLinkSignsIn, type BadgeView } from "../../core/issuing/mod.ts";
import { bakedImageVisible, recipientHashInput } from "../../core/obi/mod.ts";
import { organizationPathways } from "../../core/pathways/mod.ts";
import { renderPage, safeUrl } from "./html.ts";
import type { Frame } from "./layout.ts";
import { type BadgePageData, badgePage } from "./pages/badge_page.ts";
import { organizationPathwaysSection } from "./pages/pathway_list.ts";
import { organizationPage, profilePage } from "./pages/public_pages.ts";
import { badgeLinkPage, signInPage } from "./pages/sign_in_pages.ts";
import { doneNotice, sentValue } from "./sent.ts";
import { SESSION_COOKIE } from "./session_cookie.ts";
import type { WebKit } from "./web_deps.ts";

/** The one form that needs no CSRF token (see the web plugin's check). */
export const VERIFY_EMAIL = "/badges/:id/verify_email";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id, lowercased; anything that is not a UUID is the same 404 as an unknown one. */
export const uuidParam = (request: FastifyRequest, name = "id"): string => {
  const sent = sentValue(request.params, name);
  const value = typeof sent === "string" ? sent : "";
  if (!UUID.test(value)) throw notFound("Page");
  return value.toLowerCase();
};

/** A form field as text; absent or not text is "". */
export const field = (request: FastifyRequest, name: string): string => {
  const value = sentValue(request.body, name);
  return typeof value === "string" ? value : "";
};

const NOTICES: Record<string, string> = {
  accepted: "Badge accepted. It is now part of your record.",
  rejected: "Badge rejected.",
  public: "This badge is now public.",
  private: "This badge is now private: only you can see it.",
  signed_in: "You are signed in.",
};
export const noticeOf = (request: FastifyRequest): string | null => doneNotice(NOTICES, request);

export const publicRoutes = (kit: WebKit) => async (app: FastifyInstance) => {
  const { deps, urls } = kit;

  const badgeFrame = (view: BadgeView, base: Frame): Frame => {
    const { badge, template, issuer } = view;
    return {
      ...base,
      share: {
        title: `${template.name} · ${issuer.name}`,
        description: `${fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name)} earned ${template.name}, issued by ${issuer.name}.`,
        url: urls.badgePage(badge.id),
        image: safeUrl(templateImageUrl({ publicBase: urls.publicUrl }, template)),
      },
      noindex: !badge.public,
    };
  };

  const endorsementsOf = async (kind: EndorsementTarget, id: string) =>
    deps.endorsements ? deps.endorsements.accepted(kind, id) : [];

  /** The image types "Download image" offers this viewer. */
  const downloads = async (view: BadgeView, viewerId: string | null): Promise<("png" | "svg")[]> =>
    deps.bakedImages && bakedImageVisible(view.badge, viewerId) ? deps.bakedImages.types(view) : [];

  const showBadge = async (
    request: FastifyRequest,
    reply: FastifyReply,
    emailCheck: BadgePageData["emailCheck"] = null,
  ) => {
    const id = uuidParam(request);
    const view = await badgeForPage(deps.earners, id, request.earner?.user.id ?? null);
    const now = deps.clock();
    const frame = badgeFrame(view, kit.frame(request, reply, view.template.name));
    const data = {
      view,
      now,
      checks: verifyChecks(view, now),
      emailCheck,
      notice: noticeOf(request),
      downloads: await downloads(view, request.earner?.user.id ?? null),
      endorsements: await endorsementsOf("badge_template", view.template.id),
    };
    return kit.page(reply, 200, badgePage(frame, data, urls));
  };

  /** The page as every visitor without a session sees it (no token, no notice): cacheable. */
  const anonymousBadgePage = async (id: string, now: Date): Promise<{ status: number; body: Buffer }> => {
    const view = await deps.earners.issuing.store.getBadge(null, id);
    if (!view || !badgePageVisible(view.badge, null)) {
      const page = renderPage(kit.notFoundPage({ title: "Not found", viewer: null, csrf: null }));
      return { status: 404, body: Buffer.from(page) };
    }
    const frame = badgeFrame(view, { title: view.template.name, viewer: null, csrf: null });
    const data = {
      view,
      now,
      checks: verifyChecks(view, now),
      emailCheck: null,
      notice: null,
      downloads: await downloads(view, null),
      endorsements: await endorsementsOf("badge_template", view.template.id),
    };
    return { status: 200, body: Buffer.from(renderPage(badgePage(frame, data, urls))) };
  };

  app.get<{ Querystring: Record<string, unknown> }>("/badges/:id", async (request, reply) => {
    const anonymous = !request.cookies[SESSION_COOKIE] && Object.keys(request.query).length === 0;
    if (!anonymous || !kit.pages) return showBadge(request, reply);
    const id = uuidParam(request);
    const now = deps.clock();
    let entry = kit.pages.get(id);
    if (!entry) {
      entry = await anonymousBadgePage(id, now);
      kit.pages.put(id, entry.status, entry.body);
    }
    return reply.code(entry.status).type("text/html; charset=utf-8").send(entry.body);
  });

  app.post(VERIFY_EMAIL, async (request, reply) => {
    const email = field(request, "email").trim().slice(0, 254);
    const view = await badgeForPage(deps.earners, uuidParam(request), request.earner?.user.id ?? null);
    const salt = view.badge.recipient_salt;
    const matches =
      deps.sha256Hex(recipientHashInput(email, salt)) ===
      deps.sha256Hex(recipientHashInput(view.badge.recipient_email, salt));
    return showBadge(request, reply, { email, matches });
  });

  // The pending-badge e-mail's link: sign in and come back to the badge. Only the mail's token
  // pre-fills the address and names the badge; without it the page is the same for every id.
  app.get<{ Querystring: { token?: unknown } }>("/badges/:id/accept", async (request, reply) => {
    const id = uuidParam(request);
    const token = request.query.token;
    const view = await badgeForAcceptLink(
      deps.earners,
      id,
      typeof token === "string" && token.length <= 200 ? token : null,
    );
    const signsIn = view !== null && typeof token === "string" && acceptLinkSignsIn(token, deps.clock());
    // Signed in: the badge page, unless the badge is another account's and the link can switch to it.
    const signedInAs = request.earner;
    if (signedInAs && !(signsIn && view?.badge.user_id !== signedInAs.user.id))
      return reply.redirect(`/badges/${id}`, 303);
    const frame = { ...kit.frame(request, reply, "Sign in to accept your badge"), noindex: true };
    if (view) void reply.header("cache-control", "no-store");
    if (view && signsIn && typeof token === "string")
      return kit.page(
        reply,
        200,
        badgeLinkPage(
          { ...frame, title: "Your badge is waiting" },
          {
            badgeId: id,
            token,
            email: view.badge.recipient_email,
            issuer: view.issuer.name,
            badge: view.template.name,
            // The first address is the account's primary one.
            signedInAs: signedInAs ? (signedInAs.user.emails[0]?.email ?? "another account") : null,
          },
        ),
      );
    return kit.page(
      reply,
      200,
      signInPage(frame, {
        email: view?.badge.recipient_email ?? "",
        next: `/badges/${id}`,
        error: null,
        context: view
          ? `${view.issuer.name} sent you the badge “${view.template.name}”. Sign in to accept it.`
          : "Sign in with the address the badge was sent to, to see and accept it.",
      }),
    );
  });

  // The pending-badge mail's link, pressed: its recipient is signed in and lands on the badge.
  app.post("/badges/:id/continue", async (request, reply) => {
    const id = uuidParam(request);
    const token = field(request, "token").slice(0, 200);
    const redeemed = await redeemBadgeLink(deps.earners, deps.context(), id, token);
    if (!redeemed.ok) {
      const frame = { ...kit.frame(request, reply, "Sign in to accept your badge"), noindex: true };
      return kit.page(
        reply,
        redeemed.error === "unknown" ? 404 : 410,
        signInPage(frame, {
          email: "",
          next: `/badges/${id}`,
          error:
            redeemed.error === "expired"
              ? "This badge link no longer signs you in by itself. Enter the address the badge was sent to: we will e-mail you a sign-in link."
              : "This badge link has been used already. Enter the address the badge was sent to: we will e-mail you a sign-in link.",
          context: null,
        }),
      );
    }
    if (redeemed.value.session) kit.sessionCookie(reply, redeemed.value.session);
    return reply.redirect(`/badges/${id}`, 303);
  });

  const back = (request: FastifyRequest, id: string, done: string): string =>
    field(request, "back") === "wallet" ? `/wallet?done=${done}` : `/badges/${id}?done=${done}`;

  for (const decision of ["accept", "reject"] as const) {
    app.post(`/badges/:id/${decision}`, async (request, reply) => {
      const id = uuidParam(request);
      if (!request.earner) return reply.redirect(`/sign_in?next=${encodeURIComponent(`/badges/${id}`)}`, 303);
      await decideBadge(deps.earners, deps.context(), request.earner, id, decision);
      return reply.redirect(back(request, id, decision === "accept" ? "accepted" : "rejected"), 303);
    });
  }

  app.post("/badges/:id/privacy", async (request, reply) => {
    const id = uuidParam(request);
    if (!request.earner) return reply.redirect(`/sign_in?next=${encodeURIComponent(`/badges/${id}`)}`, 303);
    const isPublic = field(request, "public") === "true";
    await badgePrivacy(deps.earners, deps.context(), request.earner, id, isPublic);
    return reply.redirect(back(request, id, isPublic ? "public" : "private"), 303);
  });

  app.get("/organizations/:id", async (request, reply) => {
    const data = await issuerPage(deps.earners, uuidParam(request));
    const endorsements = await endorsementsOf("organization", data.issuer.id);
    const pathways = deps.pathways
      ? organizationPathwaysSection(await organizationPathways(deps.pathways, data.issuer.id))
      : null;
    return kit.page(
      reply,
      200,
      organizationPage(kit.frame(request, reply, data.issuer.name), { ...data, endorsements, pathways }, urls),
    );
  });

  app.get<{ Params: { who: string } }>("/users/:who", async (request, reply) => {
    const who = request.params.who;
    const data = await publicProfile(deps.earners, who);
    const name = `${data.account.user.first_name} ${data.account.user.last_name}`.trim();
    return kit.page(reply, 200, profilePage(kit.frame(request, reply, name), data, urls));
  });
};
