import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import {
  changeRole,
  getMember,
  listMembers,
  type MemberActor,
  Membership,
  membershipJson,
  removeMember,
  UpdateMembershipInput,
} from "../../../core/members/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { one } from "../envelope.ts";
import { callerOf, guard } from "../guard.ts";
import { resourceRoutes } from "../route_kit.ts";

/** The credential of the request, acting as its organization (not as a member). */
export const requestActor = (request: Parameters<typeof callerOf>[0]): MemberActor => ({
  kind: "credential",
  credential: callerOf(request).credential,
});

/**
 * The organization's members (Laurel accounts with a role), scope `memberships`. A credential may
 * change and remove members but not owners: ownership changes need an owner in the console.
 */
export const membershipRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "memberships");
  const memberships = resourceRoutes(app, origin, onRequest, "memberships/:membership_id", ["Memberships"]);

  memberships.page(
    "List the organization's members and their roles",
    Membership,
    (organizationId, req, request) => listMembers(deps.members, requestActor(request), organizationId, req),
    membershipJson,
  );

  memberships.get("Get a membership", Membership, async (organizationId, id, request) =>
    membershipJson(await getMember(deps.members, requestActor(request), organizationId, id)),
  );

  app.put(
    memberships.itemPath,
    memberships.changing(
      "Change a member's role (not to or from owner; the last owner stays)",
      UpdateMembershipInput,
      Membership,
      async (request) => {
        const p = request.params;
        const updated = await changeRole(
          deps.members,
          contextOf(deps),
          requestActor(request),
          request.ip,
          p.organization_id,
          p.membership_id,
          request.body.role,
        );
        return one(membershipJson(updated));
      },
    ),
  );

  memberships.remove("Remove a member from the organization (not an owner)", (organizationId, id, request) =>
    removeMember(deps.members, contextOf(deps), requestActor(request), request.ip, organizationId, id),
  );
};
