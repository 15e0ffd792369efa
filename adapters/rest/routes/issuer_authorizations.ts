import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import {
  type AuthorizationAction,
  type AuthorizationSide,
  changeIssuerAuthorization,
  GrantIssuerInput,
  getIssuerAuthorization,
  grantIssuer,
  IssuerAuthorization,
  type IssuerAuthorizationStore,
  issuerAuthorizationJson,
  listIssuerAuthorizations,
} from "../../../core/issuer_authorizations/mod.ts";
import { type RestDeps, requestContext } from "../deps.ts";
import { Many, One, OrganizationParams, one, PageQuery, pageOf } from "../envelope.ts";
import { guard } from "../guard.ts";
import {
  BODY_ERRORS,
  created,
  documented,
  ERRORS,
  noContent,
  pageBody,
  READ_ERRORS,
  resourceParams,
} from "../route_kit.ts";
import { requestActor } from "./memberships.ts";

const schema = documented(["Authorized issuers"]);
/** Each side's path segment and scope: the grantor manages templates, the issuer issues badges. */
const SIDES = {
  grantor: {
    path: "issuers",
    scope: "badge_templates",
    note: "Scope `badge_templates` (an authorization token's read, write or delete permission as for templates): the grantor decides who issues its templates.",
  },
  issuer: {
    path: "grantors",
    scope: "issued_badges",
    note: "Scope `issued_badges` (an authorization token's read, write or delete permission as for badges): the issuer issues the grantors' templates through its own badge routes.",
  },
} as const;
const ItemParams = resourceParams("issuer_authorization_id");

/**
 * Authorized issuers: the grantor's `GET/POST /organizations/<id>/issuers`, `GET/DELETE
 * .../issuers/<id>`; the issuer's `GET /organizations/<id>/grantors`, `GET/DELETE .../grantors/<id>`
 * and `PUT .../grantors/<id>/accept`. Who may do what is core's rule.
 */
export const issuerAuthorizationRoutes =
  (deps: RestDeps, store: IssuerAuthorizationStore, origin: string) => async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    const change = (
      request: {
        params: { organization_id: string; issuer_authorization_id: string };
        ip: string;
      } & Parameters<typeof requestActor>[0] &
        Parameters<typeof requestContext>[1],
      side: AuthorizationSide,
      action: AuthorizationAction,
    ) =>
      changeIssuerAuthorization(
        store,
        requestContext(deps, request),
        requestActor(request),
        request.ip,
        request.params.organization_id,
        side,
        request.params.issuer_authorization_id,
        action,
      );

    for (const side of ["grantor", "issuer"] as const) {
      const { path, scope, note } = SIDES[side];
      const read = guard(deps.authenticator, deps.clock, scope, "read");
      const remove = guard(deps.authenticator, deps.clock, scope, "delete");
      const base = `/organizations/:organization_id/${path}`;

      app.get(base, {
        onRequest: read,
        schema: schema({
          summary:
            side === "grantor"
              ? "List the organizations authorized to issue this organization's templates"
              : "List the organizations this organization may issue for, with their templates",
          description: `The live authorizations (pending or accepted), newest first, each with the templates it covers now. ${note}`,
          params: OrganizationParams,
          querystring: PageQuery,
          response: { 200: Many(IssuerAuthorization), ...READ_ERRORS },
        }),
        handler: async (request) => {
          const req = pageOf(request.query);
          const page = await listIssuerAuthorizations(
            store,
            requestActor(request),
            request.params.organization_id,
            side,
            req,
            { liveOnly: true },
          );
          return pageBody(origin, request.url, req, page, issuerAuthorizationJson);
        },
      });

      app.get(`${base}/:issuer_authorization_id`, {
        onRequest: read,
        schema: schema({
          summary: side === "grantor" ? "Get an authorization given" : "Get an authorization received",
          description: `Any state, ended ones included. ${note}`,
          params: ItemParams,
          response: { 200: One(IssuerAuthorization), ...READ_ERRORS },
        }),
        handler: async (request) =>
          one(
            issuerAuthorizationJson(
              await getIssuerAuthorization(
                store,
                requestActor(request),
                request.params.organization_id,
                side,
                request.params.issuer_authorization_id,
              ),
            ),
          ),
      });

      app.delete(`${base}/:issuer_authorization_id`, {
        onRequest: remove,
        schema: schema({
          summary:
            side === "grantor"
              ? "End an authorization given (the issuer stops issuing)"
              : "End an authorization received",
          description: `A pending or accepted authorization ends at once: the issuer's next issue of these templates is refused; badges issued already stay valid. ${note}`,
          params: ItemParams,
          response: { 204: Type.Null({ description: "Ended" }), ...ERRORS },
        }),
        handler: async (request, reply) => {
          await change(request, side, "end");
          return noContent(reply);
        },
      });
    }

    app.post(`/organizations/:organization_id/${SIDES.grantor.path}`, {
      onRequest: guard(deps.authenticator, deps.clock, SIDES.grantor.scope, "write"),
      schema: schema({
        summary: "Authorize another organization to issue this organization's templates on its behalf",
        description: `The authorization waits for the issuer to accept it; only then may it issue. Absent or null \`badge_template_ids\`: every template of this organization, those made later included. One live (pending or accepted) authorization per issuer; an organization cannot authorize itself. ${SIDES.grantor.note}`,
        params: OrganizationParams,
        body: GrantIssuerInput,
        response: { 201: One(IssuerAuthorization), ...BODY_ERRORS },
      }),
      handler: async (request, reply) => {
        const made = await grantIssuer(
          store,
          requestContext(deps, request),
          requestActor(request),
          request.ip,
          request.params.organization_id,
          request.body,
        );
        return created(reply, issuerAuthorizationJson(made));
      },
    });

    app.put(`/organizations/:organization_id/${SIDES.issuer.path}/:issuer_authorization_id/accept`, {
      onRequest: guard(deps.authenticator, deps.clock, SIDES.issuer.scope, "write"),
      schema: schema({
        summary: "Accept an authorization to issue another organization's templates",
        description: `Only the authorized issuer accepts, a pending authorization; it may then issue the templates it covers through its own \`POST .../badges\`. ${SIDES.issuer.note}`,
        params: ItemParams,
        response: { 200: One(IssuerAuthorization), ...ERRORS },
      }),
      handler: async (request) => one(issuerAuthorizationJson(await change(request, "issuer", "accept"))),
    });
  };
