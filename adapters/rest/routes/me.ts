import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { UserScope } from "../../../core/auth/mod.ts";
import { BadgeStandardShapeSchema, badgeStandardShape } from "../../../core/badges/mod.ts";
import { type UserCaller, userCaller } from "../../../core/connect/mod.ts";
import { onPublicProfile } from "../../../core/earners/mod.ts";
import { type CoreError, forbidden, unauthenticated } from "../../../core/errors/mod.ts";
import { pageMetadata } from "../../../core/shared/mod.ts";
import { ErrorBody, restAnswer } from "../../http/mod.ts";
import type { ConnectRestDeps, RestDeps } from "../deps.ts";
import { Many, many, One, one, PageQuery, pageOf, pageUrlFor } from "../envelope.ts";

const Me = Type.Object({
  id: Type.String({ format: "uuid" }),
  first_name: Type.String(),
  last_name: Type.String(),
  name: Type.String(),
  public_profile_url: Type.Union([Type.String(), Type.Null()], {
    description: "The earner's public profile page, null when it is not public",
  }),
});

const errors = { 401: ErrorBody, 403: ErrorBody };
const BEARER_REALM = 'Bearer realm="Laurel"';

/** The API's answer to `err`, with the Bearer challenge (RFC 6750 §3) of a route only earners' tokens open. */
const refuse = (reply: FastifyReply, err: CoreError, challenge: string) => {
  const answer = restAnswer(err);
  return reply
    .code(answer.status)
    .headers({ ...answer.headers, "www-authenticate": challenge })
    .send(answer.body);
};

declare module "fastify" {
  interface FastifyRequest {
    user: UserCaller | null;
  }
}

/**
 * The user API: an earner's own data, read by an organization's application with the token the
 * earner granted it (authorization code flow). Organization tokens never reach it; the token's
 * family and grant are looked up on every call, so removing access stops it on every process at once.
 */
export const meRoutes =
  (deps: RestDeps, connect: ConnectRestDeps, origin: string) => async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.decorateRequest("user", null);
    const needs = (scope: UserScope) => async (request: FastifyRequest, reply: FastifyReply) => {
      const header = request.headers.authorization ?? "";
      const jwt = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : "";
      const claims = jwt.length > 0 && jwt.length <= 4096 ? await connect.verifyAccessToken(jwt) : null;
      const fresh = claims && typeof claims.exp === "number" && claims.exp * 1000 > deps.clock().getTime();
      const caller = fresh ? await userCaller({ store: connect.store, apps: deps.apps }, claims) : null;
      if (!caller) return refuse(reply, unauthenticated("An earner's access token is required"), BEARER_REALM);
      if (!caller.scopes.includes(scope)) {
        const challenge = `${BEARER_REALM}, error="insufficient_scope", scope="${scope}"`;
        return refuse(reply, forbidden(`This token lacks the ${scope} scope`), challenge);
      }
      request.user = caller;
    };

    app.get("/me", {
      preHandler: needs("profile"),
      schema: {
        tags: ["User"],
        summary: "The earner who granted the token (scope profile)",
        security: [{ bearer: [] }],
        response: { 200: One(Me), ...errors },
      },
      handler: async (request, reply) => {
        const userId = (request.user as UserCaller).userId;
        const account = await connect.earners.getAccount(userId);
        if (!account) return refuse(reply, unauthenticated("The account no longer exists"), BEARER_REALM);
        const { user } = account;
        const visible = account.public_profile && account.closed_at === null;
        return one({
          id: user.id,
          first_name: user.first_name,
          last_name: user.last_name,
          name: `${user.first_name} ${user.last_name}`.trim(),
          public_profile_url: visible
            ? `${connect.publicUrl}/users/${encodeURIComponent(account.vanity_name ?? user.id)}`
            : null,
        });
      },
    });

    app.get("/me/badges", {
      preHandler: needs("public_badges"),
      schema: {
        tags: ["User"],
        summary: "The earner's public accepted badges (scope public_badges)",
        security: [{ bearer: [] }],
        querystring: PageQuery,
        response: { 200: Many(BadgeStandardShapeSchema), ...errors },
      },
      handler: async (request) => {
        const userId = (request.user as UserCaller).userId;
        const req = pageOf(request.query);
        const views = (await connect.earners.userBadges(userId)).filter((v) => onPublicProfile(v.badge));
        const slice = views.slice(req.offset, req.offset + req.per);
        const urls = { publicBase: connect.publicUrl };
        return many(
          slice.map((v) => badgeStandardShape(v.badge, v.template, v.issuer, urls, v.authorizedIssuer)),
          pageMetadata(req, slice.length, views.length, pageUrlFor(origin, request.url)),
        );
      },
    });
  };
