import { fileURLToPath } from "node:url";
import cookie from "@fastify/cookie";
import csrf from "@fastify/csrf-protection";
import formbody from "@fastify/formbody";
import fastifyStatic from "@fastify/static";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import helmet from "helmet";
import { type EarnerAccount, sessionAccount } from "../../core/earners/mod.ts";
import { CoreError, isCoreError } from "../../core/errors/mod.ts";
import { codeForStatus, errorBody, restAnswer } from "../http/mod.ts";
import { isMultipart, lingerUnreadBody, multipartBodies, uploadSlots } from "../uploads/mod.ts";
import { consoleRoutes } from "./console/routes_console.ts";
import { earnerMail } from "./earner_mail.ts";
import { employerRoutes } from "./employer_pages.ts";
import { PAGE_FOR_CODE, pageAnswer } from "./errors.ts";
import { renderPage } from "./html.ts";
import { type Frame, messagePage } from "./layout.ts";
import { pageCache } from "./page_cache.ts";
import { pathwayPublicRoutes } from "./pathway_pages.ts";
import { accountRoutes } from "./routes_account.ts";
import { badgeFeedRoutes } from "./routes_badge_feed.ts";
import { bakedImageRoutes } from "./routes_baked_images.ts";
import { connectRoutes } from "./routes_connect.ts";
import { publicRoutes, VERIFY_EMAIL } from "./routes_public.ts";
import { signInRoutes } from "./routes_sign_in.ts";
import { sentValue } from "./sent.ts";
import { SESSION_COOKIE } from "./session_cookie.ts";
import { webUrls } from "./urls.ts";
import type { WebDeps, WebKit } from "./web_deps.ts";

export { SESSION_COOKIE };

declare module "fastify" {
  interface FastifyRequest {
    earner: EarnerAccount | null;
  }
}

const ASSETS = fileURLToPath(new URL("./assets/", import.meta.url));
const CATCH_ALL = "/*";
const acceptsHtml = (request: FastifyRequest): boolean => (request.headers.accept ?? "").includes("text/html");

/** A page's error as a core error: a framework's 4xx keeps its status where a code has it; the rest is internal. */
const asPageError = (err: FastifyError): CoreError => {
  if (isCoreError(err)) return err;
  const code = err.statusCode && err.statusCode < 500 ? (codeForStatus(err.statusCode) ?? "bad_request") : "internal";
  return new CoreError(code, err.message, { cause: err });
};

/**
 * The earner pages on the API's Fastify instance: security headers on every answer, forms parsed
 * and checked for CSRF here, the session read once per request, pages rendered from core results.
 */
export const webPlugin = (deps: WebDeps) => async (app: FastifyInstance) => {
  const secure = deps.publicUrl.startsWith("https:");
  const publicOrigin = new URL(deps.publicUrl).origin;
  // Pages are not part of the API: keep them out of the OpenAPI document.
  app.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // The security headers are the same for every page: helmet's middleware is built once here (its
  // Fastify plugin builds it again on every request, parsing the CSP directives each time).
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "https:", "data:"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    referrerPolicy: { policy: "same-origin" },
    strictTransportSecurity: secure,
  });
  app.addHook("onRequest", (request, reply, done) =>
    securityHeaders(request.raw, reply.raw, (err) => done(err instanceof Error ? err : undefined)),
  );
  // Pages take forms, never JSON: a JSON body (up to the API's 1 MiB) is refused unread, 415.
  app.removeContentTypeParser("application/json");
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  // Uploads are read by their routes, after the checks (upload_forms.ts); no parser reads them first.
  multipartBodies(app);
  await app.register(cookie);
  await app.register(csrf, {
    cookieKey: "laurel_csrf",
    cookieOpts: { httpOnly: true, sameSite: "lax", secure, path: "/", signed: false },
    // A token that is not text never verifies, so only text is handed over.
    getToken: (request) => {
      const token = sentValue(request.body, "_csrf");
      return typeof token === "string" ? token : undefined;
    },
  });
  await app.register(fastifyStatic, {
    root: ASSETS,
    prefix: "/assets/",
    decorateReply: false,
    maxAge: 3_600_000,
  });
  app.decorateRequest("earner", null);

  const urls = webUrls(deps.publicUrl, deps.apiBase);
  const pages = deps.onHostedInvalidation ? pageCache(deps.clock) : null;
  deps.onHostedInvalidation?.((kind, id) => pages?.drop(kind, id));
  const kit: WebKit = {
    deps,
    urls,
    mail: earnerMail({ ...deps.mail, clock: deps.clock }, urls),
    pages,
    uploads: deps.uploads ?? uploadSlots(),
    notFoundPage: (frame) => messagePage(frame, PAGE_FOR_CODE.not_found.heading, [PAGE_FOR_CODE.not_found.text]),
    frame: (request, reply, title) => ({
      title,
      viewer: request.earner,
      csrf: reply.generateCsrf(),
    }),
    page: (reply, status, vnode) => reply.code(status).type("text/html; charset=utf-8").send(renderPage(vnode)),
    sessionCookie: (reply, token) =>
      reply.setCookie(SESSION_COOKIE, token, {
        httpOnly: true,
        sameSite: "lax",
        secure,
        path: "/",
        maxAge: 30 * 86_400,
      }),
    clearSession: (reply) => reply.clearCookie(SESSION_COOKIE, { path: "/" }),
  };
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const frame: Frame = kit.frame(request, reply, "Not found");
    return kit.page(reply, 404, kit.notFoundPage(frame));
  };

  app.addHook("preHandler", async (request, reply) => {
    // Assets are the same for everyone: no session read for them.
    if (request.url.startsWith("/assets/")) return;
    request.earner = await sessionAccount(deps.earners, deps.clock(), request.cookies[SESSION_COOKIE]);
    if (request.method !== "POST") return;
    // A form from another site is refused before its token is even looked at.
    const origin = request.headers.origin;
    const site = request.headers["sec-fetch-site"];
    if ((origin !== undefined && origin !== publicOrigin) || site === "cross-site") {
      return kit.page(
        reply,
        403,
        messagePage(kit.frame(request, reply, "Refused"), "Refused", ["This form was sent from another site."]),
      );
    }
    // Checking an address against a badge changes nothing, and the page offering it is the same
    // for every visitor (so it can be cached): it needs no token. The route's pattern is compared,
    // never the URL, whose query string the sender chooses.
    if (request.routeOptions.url === VERIFY_EMAIL) return;
    // An upload route checks its form's token itself, as the form's first field, before the rest
    // is read; no other page route takes a multipart body.
    if (isMultipart(request)) {
      if (!request.routeOptions.config.uploadForm)
        throw new CoreError("unsupported_media_type", "This form cannot be sent as multipart/form-data");
      // A refusal before the form is read takes little more of it off the wire.
      lingerUnreadBody(request, reply);
      return;
    }
    await new Promise<void>((resolve, reject) =>
      app.csrfProtection(request, reply, (err?: Error) => (err ? reject(err) : resolve())),
    );
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    // A form's token that does not verify has a page of its own: the visitor only needs to reload.
    if (err.code?.startsWith("FST_CSRF")) {
      return kit.page(
        reply,
        403,
        messagePage(kit.frame(request, reply, "Form expired"), "This form has expired", [
          "Go back, reload the page and try again.",
        ]),
      );
    }
    const error = asPageError(err);
    if (error.code === "internal") request.log.error({ err }, "page failed");
    // A JSON route answers in the API's error body; so does the catch-all to all but browsers, its
    // refusals too (a path no API route takes, such as an over-long id, lands there).
    const jsonRoute = request.routeOptions.config.jsonErrors === true;
    if (jsonRoute || (request.routeOptions.url === CATCH_ALL && !acceptsHtml(request) && error.code !== "internal")) {
      const answer = restAnswer(error);
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    }
    const page = pageAnswer(error);
    const frame: Frame = page.anonymous
      ? { title: page.title, viewer: null, csrf: null }
      : kit.frame(request, reply, page.title);
    return kit.page(reply, page.status, messagePage(frame, page.heading, page.lines));
  });

  await app.register(publicRoutes(kit));
  if (deps.pathways) await app.register(pathwayPublicRoutes(kit, deps.pathways));
  await app.register(badgeFeedRoutes(kit));
  if (deps.bakedImages) await app.register(bakedImageRoutes(kit, deps.bakedImages));
  await app.register(signInRoutes(kit));
  await app.register(accountRoutes(kit));
  await app.register(employerRoutes(kit));
  if (deps.connect) await app.register(connectRoutes(kit, deps.connect));
  if (deps.console) await app.register(consoleRoutes(kit, deps.console));

  // Any other GET: the common 404 page for browsers, the API's error body for everyone else.
  app.get(CATCH_ALL, (request, reply) => {
    if (acceptsHtml(request)) return notFound(request, reply);
    return reply.code(404).send(errorBody("not_found", `No route for ${request.method} ${request.url.split("?")[0]}`));
  });
};
