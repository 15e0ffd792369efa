import { type Static, Type } from "typebox";
import { auditRecord } from "../audit/mod.ts";
import type { Context } from "../credentials/mod.ts";
import { notFound, validationFailed } from "../errors/mod.ts";
import type { OrganizationRecord } from "../organizations/mod.ts";
import { HttpUrl, isEmailAddress } from "../shared/mod.ts";
import { auditByOf, type MemberDeps } from "./members.ts";
import { actorMay, type MemberActor } from "./rules.ts";

/** The profile fields a member may change; absent fields stay, `null` clears an optional one. */
export const UpdateOrganizationInput = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 5000 }), Type.Null()])),
    email: Type.Optional(Type.String({ format: "email", maxLength: 320 })),
    website_url: Type.Optional(Type.Union([HttpUrl, Type.Null()])),
    image_url: Type.Optional(Type.Union([HttpUrl, Type.Null()])),
  },
  { additionalProperties: false },
);
export type UpdateOrganizationInput = Static<typeof UpdateOrganizationInput>;

const FIELDS = ["name", "description", "email", "website_url", "image_url"] as const;

/**
 * Changes the organization's profile (name, description, contact e-mail, website, image), recorded
 * in the audit log with the fields changed, in one transaction. The contact e-mail stays an
 * address: every Open Badges issuer profile needs one.
 */
export const updateOrganizationProfile = async (
  deps: Pick<MemberDeps, "members">,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  input: UpdateOrganizationInput,
): Promise<OrganizationRecord> => {
  actorMay(actor, organizationId, "profile.update");
  const name = input.name?.trim();
  if (name !== undefined && name.length === 0)
    throw validationFailed("Invalid profile", [{ field: "name", message: "must not be blank" }]);
  const email = input.email?.trim();
  if (email !== undefined && !isEmailAddress(email))
    throw validationFailed("Invalid profile", [{ field: "email", message: "must be an e-mail address" }]);
  return deps.members.transaction(async (tx) => {
    const current = (await tx.organizations.lock(organizationId)) ? await tx.organizations.get(organizationId) : null;
    if (!current) throw notFound("Organization");
    const next: OrganizationRecord = {
      ...current,
      ...(name === undefined ? {} : { name }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(email === undefined ? {} : { email }),
      ...(input.website_url === undefined ? {} : { website_url: input.website_url }),
      ...(input.image_url === undefined ? {} : { image_url: input.image_url }),
      updated_at: ctx.now,
    };
    const changed = FIELDS.filter((f) => next[f] !== current[f]);
    if (changed.length === 0) return current;
    await tx.organizations.update(next);
    await tx.appendAudit(
      auditRecord(ctx, auditByOf(actor, clientAddress), organizationId, "organization.updated", null, {
        changed,
        ...Object.fromEntries(changed.map((f) => [f, next[f]])),
      }),
    );
    return next;
  });
};
