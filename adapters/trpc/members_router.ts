import { Type } from "typebox";
import {
  CreateInvitationInput,
  invitationJson,
  invite,
  listInvitations,
  listMembers,
  type MemberActor,
  membershipJson,
  removeMember,
} from "../../core/members/mod.ts";
import { pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const OPERATOR: MemberActor = { kind: "operator" };

const ListInput = Type.Object(
  {
    organization_id: Type.String({ format: "uuid" }),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
const InviteInput = Type.Object(
  { organization_id: Type.String({ format: "uuid" }), ...CreateInvitationInput.properties },
  { additionalProperties: false },
);
const RemoveInput = Type.Object(
  { organization_id: Type.String({ format: "uuid" }), membership_id: Type.String({ format: "uuid" }) },
  { additionalProperties: false },
);

/** An organization's members for the operator: the same use cases as the API, acting as the operator. */
export const membersRouter = router({
  list: adminProcedure.input(standard(ListInput)).query(async ({ ctx, input }) => {
    const req = pageRequest(input.page);
    const page = await listMembers(ctx.deps.members, OPERATOR, input.organization_id, req);
    return {
      data: page.items.map(membershipJson),
      metadata: pageMetadata(req, page.items.length, page.total, (p) => `?page=${p}`),
    };
  }),
  invitations: adminProcedure.input(standard(ListInput)).query(async ({ ctx, input }) => {
    const req = pageRequest(input.page);
    const page = await listInvitations(
      ctx.deps.members,
      { now: ctx.deps.clock() },
      OPERATOR,
      input.organization_id,
      req,
    );
    return {
      data: page.items.map(invitationJson),
      metadata: pageMetadata(req, page.items.length, page.total, (p) => `?page=${p}`),
    };
  }),
  invite: adminProcedure.input(standard(InviteInput)).mutation(async ({ ctx, input }) => {
    const { invitation } = await invite(
      ctx.deps.members,
      { now: ctx.deps.clock(), newId: ctx.deps.newId },
      OPERATOR,
      null,
      input.organization_id,
      { email: input.email, role: input.role },
    );
    return invitationJson(invitation);
  }),
  remove: adminProcedure.input(standard(RemoveInput)).mutation(async ({ ctx, input }) => {
    await removeMember(
      ctx.deps.members,
      { now: ctx.deps.clock(), newId: ctx.deps.newId },
      OPERATOR,
      null,
      input.organization_id,
      input.membership_id,
    );
    return { removed: input.membership_id };
  }),
});
