import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { UserScope } from "../../../core/auth/mod.ts";
import { BadgeStandardShapeSchema, badgeStandardShape } from "../../../core/badges/mod.ts";
import { type UserCaller, userCaller } from "../../../core/connect/mod.ts";
import { onPublicProfile } from "../../../core/earners/mod.ts";
import { pageMetadata, pageRequest } from "../../../core/shared/mod.ts";
import type { ConnectRestDeps, RestDeps } from "../deps.ts";
import { Many, many, One, one, PageQuery, pageUrlFor } from "../envelope.ts";
import { ErrorBody, errorBody } from "../errors.ts";

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
      if (!caller) {
        return reply
          .code(401)
          .header("www-authenticate", BEARER_REALM)
          .send(errorBody("unauthenticated", "An earner's access token is required"));
      }
      if (!caller.scopes.includes(scope)) {
        return reply
          .code(403)
          .header("www-authenticate", `${BEARER_REALM}, error="insufficient_scope", scope="${scope}"`)
          .send(errorBody("forbidden", `This token lacks the ${scope} scope`));
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
        if (!account) return reply.code(401).send(errorBody("unauthenticated", "The account no longer exists"));
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
        const req = pageRequest(request.query.page);
        const views = (await connect.earners.userBadges(userId)).filter((v) => onPublicProfile(v.badge));
        const slice = views.slice(req.offset, req.offset + req.per);
        const urls = { publicBase: connect.publicUrl };
        return many(
          slice.map((v) => badgeStandardShape(v.badge, v.template, v.issuer, urls)),
          pageMetadata(req, slice.length, views.length, pageUrlFor(origin, request.url)),
        );
      },
    });
  };
