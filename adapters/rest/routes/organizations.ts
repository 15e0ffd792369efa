import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import {
  getOrganizationResource,
  OrganizationResource,
  type OrganizationResourceUrls,
  organizationResourceJson,
  UpdateOrganizationResourceInput,
  updateOrganizationResource,
} from "../../../core/members/mod.ts";
import { pageMetadata } from "../../../core/shared/mod.ts";
import { type RestDeps, requestContext } from "../deps.ts";
import { Many, One, OrganizationParams, one, PageQuery, pageOf, pageUrlFor } from "../envelope.ts";
import { guard } from "../guard.ts";
import { BODY_ERRORS, documented, READ_ERRORS } from "../route_kit.ts";
import { requestActor } from "./memberships.ts";

const schema = documented(["Organizations"]);

const ACCESS =
  "Any credential of the organization reads it: an authorization token with read permission, or an access token of any of the organization's scopes.";

/**
 * The organization itself: `GET /organizations` (the organizations the credential acts for: its
 * own), `GET` and `PUT /organizations/<id>`. Changing it takes an authorization token with write
 * permission or an access token with the `oauth_applications` scope, the Developers section's
 * scope, since `webhook_url` decides where the organization's events go.
 */
export const organizationRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const read = guard(deps.authenticator, deps.clock, null, "read");
  const write = guard(deps.authenticator, deps.clock, "oauth_applications", "write");
  const urls: OrganizationResourceUrls = { api: deps.baseUrl, publicBase: deps.publicUrl.replace(/\/+$/, "") };
  const resourceDeps = {
    members: deps.members.members,
    webhooks: {
      organizations: deps.organizations,
      settings: deps.webhooks.settings,
      secrets: deps.secrets,
      crypto: deps.webhooks.crypto,
    },
  };

  app.get("/organizations", {
    onRequest: read,
    schema: schema({
      summary: "List the organizations this credential acts for (its own)",
      description: ACCESS,
      querystring: PageQuery,
      response: { 200: Many(OrganizationResource), ...READ_ERRORS },
    }),
    handler: async (request) => {
      const req = pageOf(request.query);
      const own = request.auth?.credential.organizationId ?? "";
      const found = await getOrganizationResource(resourceDeps, requestActor(request), own);
      const items = req.offset === 0 ? [organizationResourceJson(found.organization, found.webhookUrl, urls)] : [];
      return { data: items, metadata: pageMetadata(req, items.length, 1, pageUrlFor(origin, request.url)) };
    },
  });

  app.get("/organizations/:organization_id", {
    onRequest: read,
    schema: schema({
      summary: "Get the organization",
      description: ACCESS,
      params: OrganizationParams,
      response: { 200: One(OrganizationResource), ...READ_ERRORS },
    }),
    handler: async (request) => {
      const found = await getOrganizationResource(resourceDeps, requestActor(request), request.params.organization_id);
      return one(organizationResourceJson(found.organization, found.webhookUrl, urls));
    },
  });

  app.put("/organizations/:organization_id", {
    onRequest: write,
    schema: schema({
      summary: "Change the organization's profile or its webhook_url",
      description:
        "Absent fields stay as they are; `null` clears an optional one. `webhook_url` is where events are posted (HTTPS only; an address on a private, loopback or link-local network is refused), exactly as the console's Webhooks page sets it: the first address set also creates the signing secret, which the console shows. Needs an authorization token with write permission or an access token with the `oauth_applications` scope.",
      params: OrganizationParams,
      body: UpdateOrganizationResourceInput,
      response: { 200: One(OrganizationResource), ...BODY_ERRORS },
    }),
    handler: async (request) => {
      const organizationId = request.params.organization_id;
      const changed = await updateOrganizationResource(
        resourceDeps,
        requestContext(deps, request),
        requestActor(request),
        request.ip,
        organizationId,
        request.body,
        { allowedNetworks: deps.webhooks.allowedNetworks },
      );
      deps.onOrganizationChanged?.(organizationId);
      if (changed.webhookChanged) await deps.webhooks.onSettingsChanged?.(organizationId);
      return one(organizationResourceJson(changed.organization, changed.webhookUrl, urls));
    },
  });
};
