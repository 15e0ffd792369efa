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
import { type RestDeps, requestContext } from "../deps.ts";
import { One, one } from "../envelope.ts";
import { callerOf, guard } from "../guard.ts";
import { created, ERRORS, noContent, organizationOf, resourceRoutes } from "../route_kit.ts";

const AppParams = Type.Object({
  organization_id: Type.String({ format: "uuid" }),
  oauth_application_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

const TAGS = ["OAuth applications"];

/** OAuth applications (docs/interface.md, Resources), scope `oauth_applications`. */
export const oauthApplicationRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "oauth_applications");
  // Its ids are integers: it declares its own reads and deletions.
  const applications = resourceRoutes(app, origin, onRequest, "oauth_applications/:oauth_application_id", TAGS);
  const { base, itemPath } = applications;

  applications.page(
    "List OAuth applications",
    OAuthApplication,
    (organizationId, req) => listOAuthApplications(deps, organizationId, req),
    (a) => oauthApplicationJson(a),
    { fresh: true, version: (organizationId) => deps.apps.listVersion(organizationId) },
  );

  app.get(itemPath, {
    onRequest,
    schema: applications.schema({
      summary: "Get an OAuth application",
      params: AppParams,
      response: { 200: One(OAuthApplication), ...ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      return one(oauthApplicationJson(await getOAuthApplication(deps, p.organization_id, p.oauth_application_id)));
    },
  });

  app.post(
    base,
    applications.creating(
      "Create an OAuth application (the only response that shows its secret)",
      CreateOAuthApplicationInput,
      OAuthApplication,
      async (request, reply) => {
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
    ),
  );

  app.put(itemPath, {
    onRequest,
    schema: applications.change(
      "Update an OAuth application",
      AppParams,
      UpdateOAuthApplicationInput,
      OAuthApplication,
    ),
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

  app.delete(itemPath, {
    onRequest,
    schema: applications.schema({
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
