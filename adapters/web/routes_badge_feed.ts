import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { feedPageRequest, publicBadgeFeed } from "../../core/earners/mod.ts";
import { pageMetadata } from "../../core/shared/mod.ts";
import { JSON_ERRORS } from "./errors.ts";
import type { WebKit } from "./web_deps.ts";

/**
 * How long a reader (or a cache between) may keep a feed without asking again: a badge made private
 * drops out of copies this old at the latest. After that the ETag makes asking again cheap.
 */
const MAX_AGE_SECONDS = 60;

/** Any page may read the feed, as the README widgets and portfolio builders on other sites do. */
const cors = (reply: FastifyReply): FastifyReply =>
  reply.header("access-control-allow-origin", "*").header("access-control-expose-headers", "etag");

/** The query as Fastify parsed it: any names, a repeated one as a list; the feed reads what it knows. */
type FeedRoute = { Params: { who: string }; Querystring: Record<string, string | string[] | undefined> };

const wantsJson = (request: FastifyRequest): boolean => {
  const accept = request.headers.accept ?? "";
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/html\b/i.test(accept);
};

/**
 * The earner's public badge feed: `GET /users/<name>/badges.json`, and `/users/<name>/badges` asked
 * for as JSON (as a browser sees it, that address is the profile page). Public and anonymous: a
 * private or unknown profile is a 404 in the API's error body (`JSON_ERRORS`), readable by any
 * origin too.
 */
export const badgeFeedRoutes = (kit: WebKit) => async (app: FastifyInstance) => {
  const { deps, urls } = kit;
  const feedUrls = { publicBase: urls.publicUrl, defaultImage: urls.defaultImage };

  const feed = async (request: FastifyRequest<FeedRoute>, reply: FastifyReply) => {
    cors(reply);
    const req = feedPageRequest(request.query);
    const page = await publicBadgeFeed(deps.earners, request.params.who, req, feedUrls);
    const pageUrl = (n: number) => {
      const url = new URL(request.url, urls.publicUrl);
      url.searchParams.set("page", String(n));
      return url.toString();
    };
    const body = JSON.stringify({
      data: page.items,
      metadata: pageMetadata(req, page.items.length, page.total, pageUrl),
    });
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    reply.header("etag", etag).header("cache-control", `public, max-age=${MAX_AGE_SECONDS}`).header("vary", "accept");
    if (request.headers["if-none-match"] === etag) return reply.code(304).send();
    return reply.type("application/json; charset=utf-8").send(body);
  };

  app.get<FeedRoute>("/users/:who/badges.json", JSON_ERRORS, feed);
  app.get<FeedRoute>("/users/:who/badges", JSON_ERRORS, async (request, reply) => {
    if (wantsJson(request)) return feed(request, reply);
    return reply.redirect(urls.profilePage(request.params.who), 303);
  });
};
