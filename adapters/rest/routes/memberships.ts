import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
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
import { pageRequest } from "../../../core/shared/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { Many, One, OrganizationParams, one, PageQuery } from "../envelope.ts";
import { callerOf, guard } from "../guard.ts";
import { BODY_ERRORS, documented, ERRORS, noContent, pageBody, resourceParams } from "../route_kit.ts";

const MembershipParams = resourceParams("membership_id");

const schema = documented(["Memberships"]);

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
  const base = "/organizations/:organization_id/memberships";

  app.get(base, {
    onRequest,
    schema: schema({
      summary: "List the organization's members and their roles",
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: Many(Membership), ...ERRORS },
    }),
    handler: async (request) => {
      const { organization_id } = request.params;
      const req = pageRequest(request.query.page);
      const page = await listMembers(deps.members, requestActor(request), organization_id, req);
      return pageBody(origin, request.url, req, page, membershipJson);
    },
  });

  app.get(`${base}/:membership_id`, {
    onRequest,
    schema: schema({
      summary: "Get a membership",
      params: MembershipParams,
      response: { 200: One(Membership), ...ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      return one(
        membershipJson(await getMember(deps.members, requestActor(request), p.organization_id, p.membership_id)),
      );
    },
  });

  app.put(`${base}/:membership_id`, {
    onRequest,
    schema: schema({
      summary: "Change a member's role (not to or from owner; the last owner stays)",
      params: MembershipParams,
      body: UpdateMembershipInput,
      response: { 200: One(Membership), ...BODY_ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      const body = request.body;
      const updated = await changeRole(
        deps.members,
        contextOf(deps),
        requestActor(request),
        request.ip,
        p.organization_id,
        p.membership_id,
        body.role,
      );
      return one(membershipJson(updated));
    },
  });

  app.delete(`${base}/:membership_id`, {
    onRequest,
    schema: schema({
      summary: "Remove a member from the organization (not an owner)",
      params: MembershipParams,
      response: { 204: Type.Null(), ...ERRORS },
    }),
    handler: async (request, reply) => {
      const p = request.params;
      await removeMember(
        deps.members,
        contextOf(deps),
        requestActor(request),
        request.ip,
        p.organization_id,
        p.membership_id,
      );
      return noContent(reply);
    },
  });
};
