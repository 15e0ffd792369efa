import { type Static, type TSchema, Type } from "typebox";
import type { Context } from "../credentials/mod.ts";
import { notFound, validationFailed } from "../errors/mod.ts";
import type { OrganizationRecord } from "../organizations/mod.ts";
import { HttpUrl, isoMillis } from "../shared/mod.ts";
import {
  type Cidr,
  getWebhookSettings,
  updateWebhookSettings,
  validateWebhookUrl,
  WEBHOOK_URL_MAX_LENGTH,
  type WebhookSettingsDeps,
} from "../webhooks/mod.ts";
import { auditByOf, type MemberDeps } from "./members.ts";
import { updateOrganizationProfile } from "./profile.ts";
import { actorMay, type MemberActor } from "./rules.ts";

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The organization as the interface answers it: its profile, its addresses and its webhook. */
export const OrganizationResource = Type.Object({
  id: Type.String({ format: "uuid" }),
  type: Type.Literal("Organization"),
  name: Type.String(),
  description: Nullable(Type.String()),
  website_url: Nullable(Type.String()),
  /** The issuer's contact address, published in its Open Badges issuer profile. */
  contact_email: Nullable(Type.String()),
  /** The organization's image. */
  photo_url: Nullable(Type.String()),
  /** This resource's address in the interface. */
  url: Type.String(),
  /** The organization's public page. */
  vanity_url: Type.String(),
  /** The Open Badges 2.0 issuer profile that its badges name. */
  obi_issuer_url: Type.String(),
  webhook_url: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type OrganizationResource = Static<typeof OrganizationResource>;

/** The addresses the resource shows: the interface's base and the web face's. */
export interface OrganizationResourceUrls {
  /** `{base_url}`, such as `https://laurel.example/v1`. */
  api: string;
  /** The web face, without a trailing slash. */
  publicBase: string;
}

export const organizationResourceJson = (
  org: OrganizationRecord,
  webhookUrl: string | null,
  urls: OrganizationResourceUrls,
): OrganizationResource => ({
  id: org.id,
  type: "Organization",
  name: org.name,
  description: org.description,
  website_url: org.website_url,
  contact_email: org.email,
  photo_url: org.image_url,
  url: `${urls.api}/organizations/${org.id}`,
  vanity_url: `${urls.publicBase}/organizations/${org.id}`,
  obi_issuer_url: `${urls.api}/obi/v2/issuers/${org.id}`,
  webhook_url: webhookUrl,
  created_at: isoMillis(org.created_at),
  updated_at: isoMillis(org.updated_at),
});

/** `PUT /organizations/<id>`: absent fields stay as they are; `null` clears an optional one. */
export const UpdateOrganizationResourceInput = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    website_url: Type.Optional(Nullable(HttpUrl)),
    contact_email: Type.Optional(Type.String({ format: "email", maxLength: 320 })),
    photo_url: Type.Optional(Nullable(HttpUrl)),
    webhook_url: Type.Optional(
      Nullable(
        Type.String({
          maxLength: WEBHOOK_URL_MAX_LENGTH,
          description: "An https address events are posted to; null stops deliveries.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpdateOrganizationResourceInput = Static<typeof UpdateOrganizationResourceInput>;

export interface OrganizationResourceDeps {
  members: MemberDeps["members"];
  webhooks: WebhookSettingsDeps;
}

/** The organization and its webhook_url, for an actor that may read its profile. */
export const getOrganizationResource = async (
  deps: OrganizationResourceDeps,
  actor: MemberActor,
  organizationId: string,
): Promise<{ organization: OrganizationRecord; webhookUrl: string | null }> => {
  actorMay(actor, organizationId, "profile.read");
  const organization = await deps.webhooks.organizations.get(organizationId);
  if (!organization) throw notFound("Organization");
  const settings = await deps.webhooks.settings.get(organizationId);
  return { organization, webhookUrl: settings?.webhook_url ?? null };
};

/**
 * Changes the profile and the webhook_url in one request, with the records and rules of the
 * console's two forms: the profile's `organization.updated` audit entry, the webhook's
 * `webhook_settings.updated` one (and its first signing secret), the webhook address's HTTPS and
 * network rules. Changing the webhook needs the Developers section's right beside the profile's.
 * The address is checked before anything is written, so a refused request changes nothing.
 */
export const updateOrganizationResource = async (
  deps: OrganizationResourceDeps,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  input: UpdateOrganizationResourceInput,
  options: { allowedNetworks: readonly Cidr[] },
): Promise<{ organization: OrganizationRecord; webhookUrl: string | null; webhookChanged: boolean }> => {
  actorMay(actor, organizationId, "profile.update");
  const webhookChanged = input.webhook_url !== undefined;
  if (webhookChanged) {
    actorMay(actor, organizationId, "developers.write");
    const errors =
      typeof input.webhook_url === "string"
        ? validateWebhookUrl(input.webhook_url, { allowedNetworks: options.allowedNetworks })
        : [];
    if (errors.length > 0) throw validationFailed("Invalid webhook URL", errors);
  }
  const organization = await updateOrganizationProfile(
    { members: deps.members },
    ctx,
    actor,
    clientAddress,
    organizationId,
    {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.contact_email === undefined ? {} : { email: input.contact_email }),
      ...(input.website_url === undefined ? {} : { website_url: input.website_url }),
      ...(input.photo_url === undefined ? {} : { image_url: input.photo_url }),
    },
  );
  const settings = webhookChanged
    ? await updateWebhookSettings(
        deps.webhooks,
        ctx.now,
        organizationId,
        { webhook_url: input.webhook_url ?? null },
        { allowedNetworks: options.allowedNetworks, audit: { by: auditByOf(actor, clientAddress), newId: ctx.newId } },
      )
    : await getWebhookSettings(deps.webhooks, organizationId, ctx.now);
  return { organization, webhookUrl: settings.webhook_url, webhookChanged };
};
