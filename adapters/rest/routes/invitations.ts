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
import { pageMetadata, pageRequest } from "../../../core/shared/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { Many, many, One, OrganizationParams, one, PageQuery, pageUrlFor } from "../envelope.ts";
import { ErrorBody } from "../errors.ts";
import { guard } from "../guard.ts";
import { requestActor } from "./memberships.ts";

const InvitationParams = Type.Object({
  organization_id: Type.String({ format: "uuid" }),
  invitation_id: Type.String({ format: "uuid" }),
});

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const tags = ["Invitations"];
const security: Array<Record<string, string[]>> = [{ basic: [] }, { bearer: [] }];

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
    schema: {
      tags,
      security,
      summary: "List pending invitations, newest first",
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: Many(Invitation), ...errors },
    },
    handler: async (request) => {
      const { organization_id } = request.params;
      const req = pageRequest(request.query.page);
      const page = await listInvitations(deps.members, contextOf(deps), requestActor(request), organization_id, req);
      return many(
        page.items.map(invitationJson),
        pageMetadata(req, page.items.length, page.total, pageUrlFor(origin, request.url)),
      );
    },
  });

  app.get(`${base}/:invitation_id`, {
    onRequest,
    schema: {
      tags,
      security,
      summary: "Get a pending invitation",
      params: InvitationParams,
      response: { 200: One(Invitation), ...errors },
    },
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
    schema: {
      tags,
      security,
      summary: "Invite an e-mail address with a role (not owner); replaces a pending invitation of that address",
      params: OrganizationParams,
      body: CreateInvitationInput,
      response: { 201: One(Invitation), ...errors, 413: ErrorBody, 415: ErrorBody },
    },
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
      reply
        .code(201)
        .header("location", `${deps.baseUrl}/organizations/${organization_id}/invitations/${invitation.id}`);
      return one(invitationJson(invitation));
    },
  });

  app.delete(`${base}/:invitation_id`, {
    onRequest,
    schema: {
      tags,
      security,
      summary: "Cancel a pending invitation; its link stops working",
      params: InvitationParams,
      response: { 204: Type.Null(), ...errors },
    },
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
      return reply.code(204).send(null);
    },
  });
};
