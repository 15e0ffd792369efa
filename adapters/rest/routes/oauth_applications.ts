import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import {
  CreateOAuthApplicationInput,
  createOAuthApplication,
  deleteOAuthApplication,
  getOAuthApplication,
  listOAuthApplications,
  OAuthApplication,
  oauthApplicationJson,
  UpdateOAuthApplicationInput,
  updateOAuthApplication,
} from "../../../core/credentials/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { type RestDeps, requestContext } from "../deps.ts";
import { Many, One, OrganizationParams, one, PageQuery } from "../envelope.ts";
import { freshReads, sendFreshBody } from "../fresh_reads.ts";
import { callerOf, guard } from "../guard.ts";
import { BODY_ERRORS, created, documented, ERRORS, noContent, organizationOf, pageBody } from "../route_kit.ts";

const AppParams = Type.Object({
  organization_id: Type.String({ format: "uuid" }),
  oauth_application_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

const schema = documented(["OAuth applications"]);

/** OAuth applications (docs/interface.md, Resources), scope `oauth_applications`. */
export const oauthApplicationRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "oauth_applications");
  const base = "/organizations/:organization_id/oauth_applications";
  const lists = freshReads<Buffer>();

  app.get(base, {
    onRequest,
    schema: schema({
      summary: "List OAuth applications",
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: Many(OAuthApplication), ...ERRORS },
    }),
    handler: async (request, reply) => {
      const { organization_id } = request.params;
      const req = pageRequest(request.query.page);
      // The body depends on the organization and the URL (page, links) only.
      return sendFreshBody(lists, reply, `${organization_id} ${request.url}`, async () => {
        const page = await listOAuthApplications(deps, organization_id, req);
        return pageBody(origin, request.url, req, page, (a) => oauthApplicationJson(a));
      });
    },
  });

  app.get(`${base}/:oauth_application_id`, {
    onRequest,
    schema: schema({
      summary: "Get an OAuth application",
      params: AppParams,
      response: { 200: One(OAuthApplication), ...ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      return one(oauthApplicationJson(await getOAuthApplication(deps, p.organization_id, p.oauth_application_id)));
    },
  });

  app.post(base, {
    onRequest,
    schema: schema({
      summary: "Create an OAuth application (the only response that shows its secret)",
      params: OrganizationParams,
      body: CreateOAuthApplicationInput,
      response: { 201: One(OAuthApplication), ...BODY_ERRORS },
    }),
    handler: async (request, reply) => {
      const { organization_id } = request.params;
      const org = await organizationOf(deps.organizations, organization_id);
      const { app: application, secret } = await createOAuthApplication(
        deps,
        requestContext(deps, request),
        org,
        callerOf(request).credential,
        request.body,
      );
      const location = `${deps.baseUrl}/organizations/${organization_id}/oauth_applications/${application.id}`;
      return created(reply, oauthApplicationJson(application, secret), location);
    },
  });

  app.put(`${base}/:oauth_application_id`, {
    onRequest,
    schema: schema({
      summary: "Update an OAuth application",
      params: AppParams,
      body: UpdateOAuthApplicationInput,
      response: { 200: One(OAuthApplication), ...BODY_ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      const updated = await updateOAuthApplication(
        deps,
        requestContext(deps, request),
        callerOf(request).credential,
        p.oauth_application_id,
        request.body ?? {},
      );
      return one(oauthApplicationJson(updated));
    },
  });

  app.delete(`${base}/:oauth_application_id`, {
    onRequest,
    schema: schema({
      summary: "Delete an OAuth application; its access tokens stop working at once",
      params: AppParams,
      response: { 204: Type.Null(), ...ERRORS },
    }),
    handler: async (request, reply) => {
      const p = request.params;
      await deleteOAuthApplication(
        deps,
        requestContext(deps, request),
        callerOf(request).credential,
        p.organization_id,
        p.oauth_application_id,
      );
      return noContent(reply);
    },
  });
};
