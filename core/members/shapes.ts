import { type Static, Type } from "typebox";
import { isoMillis } from "../shared/mod.ts";
import type { InvitationRecord, MemberView } from "./records.ts";
import { ROLES } from "./roles.ts";

export const RoleSchema = Type.Enum(ROLES, {
  description: "owner: everything; admin: everything but ownership; issuer: issue badges; viewer: read only",
});

export const Membership = Type.Object({
  id: Type.String({ format: "uuid" }),
  organization_id: Type.String({ format: "uuid" }),
  user: Type.Object({
    id: Type.String({ format: "uuid" }),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
  }),
  role: RoleSchema,
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type Membership = Static<typeof Membership>;

export const UpdateMembershipInput = Type.Object({ role: RoleSchema }, { additionalProperties: false });
export type UpdateMembershipInput = Static<typeof UpdateMembershipInput>;

export const Invitation = Type.Object({
  id: Type.String({ format: "uuid" }),
  organization_id: Type.String({ format: "uuid" }),
  email: Type.String(),
  role: RoleSchema,
  invited_by: Type.Object({
    type: Type.String(),
    id: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
  }),
  created_at: Type.String(),
  expires_at: Type.String(),
});
export type Invitation = Static<typeof Invitation>;

export const CreateInvitationInput = Type.Object(
  {
    email: Type.String({ format: "email", minLength: 3, maxLength: 320 }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);
export type CreateInvitationInput = Static<typeof CreateInvitationInput>;

export const membershipJson = (v: MemberView): Membership => ({
  id: v.membership.id,
  organization_id: v.membership.organization_id,
  user: { id: v.membership.user_id, first_name: v.first_name, last_name: v.last_name, email: v.email },
  role: v.membership.role,
  created_at: isoMillis(v.membership.created_at),
  updated_at: isoMillis(v.membership.updated_at),
});

export const invitationJson = (i: InvitationRecord): Invitation => ({
  id: i.id,
  organization_id: i.organization_id,
  email: i.email,
  role: i.role,
  invited_by: { type: i.invited_by.kind, id: i.invited_by.id, name: i.invited_by_name },
  created_at: isoMillis(i.created_at),
  expires_at: isoMillis(i.expires_at),
});
