import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import {
  CreateInvitationInput,
  cancelInvitation,
  getInvitation,
  Invitation,
  invitationJson,
  invite,
  listInvitations,
} from "../../../core/members/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { guard } from "../guard.ts";
import { created, resourceRoutes } from "../route_kit.ts";
import { requestActor } from "./memberships.ts";

/**
 * Invitations to join the organization, scope `invitations`: the invitee gets a mail whose link
 * asks them to sign in with the invited address and accept; it works for seven days, and inviting
 * the address again replaces it. The link's token is only ever in that mail.
 */
export const invitationRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "invitations");
  const invitations = resourceRoutes(app, origin, onRequest, "invitations/:invitation_id", ["Invitations"]);

  invitations.page(
    "List pending invitations, newest first",
    Invitation,
    (organizationId, req, request) =>
      listInvitations(deps.members, contextOf(deps), requestActor(request), organizationId, req),
    invitationJson,
  );

  invitations.get("Get a pending invitation", Invitation, async (organizationId, id, request) =>
    invitationJson(await getInvitation(deps.members, contextOf(deps), requestActor(request), organizationId, id)),
  );

  app.post(
    invitations.base,
    invitations.creating(
      "Invite an e-mail address with a role (not owner); replaces a pending invitation of that address",
      CreateInvitationInput,
      Invitation,
      async (request, reply) => {
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
    ),
  );

  invitations.remove("Cancel a pending invitation; its link stops working", (organizationId, id, request) =>
    cancelInvitation(deps.members, contextOf(deps), requestActor(request), request.ip, organizationId, id),
  );
};
