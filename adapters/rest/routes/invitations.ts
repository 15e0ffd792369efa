import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import {
  CreateInvitationInput,
  cancelInvitation,
  getInvitation,
  Invitation,
  invitationJson,
  invite,
  listInvitations,
} from "../../../core/members/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { Many, One, OrganizationParams, one, PageQuery } from "../envelope.ts";
import { guard } from "../guard.ts";
import { BODY_ERRORS, created, documented, ERRORS, noContent, pageBody, resourceParams } from "../route_kit.ts";
import { requestActor } from "./memberships.ts";

const InvitationParams = resourceParams("invitation_id");

const schema = documented(["Invitations"]);

/**
 * Invitations to join the organization, scope `invitations`: the invitee gets a mail whose link
 * asks them to sign in with the invited address and accept; it works for seven days, and inviting
 * the address again replaces it. The link's token is only ever in that mail.
 */
export const invitationRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "invitations");
  const base = "/organizations/:organization_id/invitations";

  app.get(base, {
    onRequest,
    schema: schema({
      summary: "List pending invitations, newest first",
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: Many(Invitation), ...ERRORS },
    }),
    handler: async (request) => {
      const { organization_id } = request.params;
      const req = pageRequest(request.query.page);
      const page = await listInvitations(deps.members, contextOf(deps), requestActor(request), organization_id, req);
      return pageBody(origin, request.url, req, page, invitationJson);
    },
  });

  app.get(`${base}/:invitation_id`, {
    onRequest,
    schema: schema({
      summary: "Get a pending invitation",
      params: InvitationParams,
      response: { 200: One(Invitation), ...ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      return one(
        invitationJson(
          await getInvitation(deps.members, contextOf(deps), requestActor(request), p.organization_id, p.invitation_id),
        ),
      );
    },
  });

  app.post(base, {
    onRequest,
    schema: schema({
      summary: "Invite an e-mail address with a role (not owner); replaces a pending invitation of that address",
      params: OrganizationParams,
      body: CreateInvitationInput,
      response: { 201: One(Invitation), ...BODY_ERRORS },
    }),
    handler: async (request, reply) => {
      const { organization_id } = request.params;
      const { invitation } = await invite(
        deps.members,
        contextOf(deps),
        requestActor(request),
        request.ip,
        organization_id,
        request.body,
      );
      const location = `${deps.baseUrl}/organizations/${organization_id}/invitations/${invitation.id}`;
      return created(reply, invitationJson(invitation), location);
    },
  });

  app.delete(`${base}/:invitation_id`, {
    onRequest,
    schema: schema({
      summary: "Cancel a pending invitation; its link stops working",
      params: InvitationParams,
      response: { 204: Type.Null(), ...ERRORS },
    }),
    handler: async (request, reply) => {
      const p = request.params;
      await cancelInvitation(
        deps.members,
        contextOf(deps),
        requestActor(request),
        request.ip,
        p.organization_id,
        p.invitation_id,
      );
      return noContent(reply);
    },
  });
};
