import { type Static, Type } from "typebox";
import { HttpUrl, isoMillis } from "../shared/mod.ts";

export interface OrganizationRecord {
  id: string;
  name: string;
  description: string | null;
  email: string | null;
  website_url: string | null;
  image_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export const CreateOrganizationInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 5000 }), Type.Null()])),
    /** The issuer's contact address: OB 2.0 requires `email` on every issuer Profile. */
    email: Type.String({ format: "email", maxLength: 320 }),
    website_url: Type.Optional(Type.Union([HttpUrl, Type.Null()])),
    image_url: Type.Optional(Type.Union([HttpUrl, Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateOrganizationInput = Static<typeof CreateOrganizationInput>;

export const Organization = Type.Object({
  id: Type.String({ format: "uuid" }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  website_url: Type.Union([Type.String(), Type.Null()]),
  image_url: Type.Union([Type.String(), Type.Null()]),
  url: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type Organization = Static<typeof Organization>;

/** Addresses the shapes need; the adapter knows them from its configuration. */
export interface Urls {
  /** The REST base, `{base_url}` of docs/interface.md, such as `https://laurel.example/v1`. */
  api: string;
}

export const organizationUrl = (urls: Urls, id: string): string => `${urls.api}/organizations/${id}`;

export const organizationJson = (org: OrganizationRecord, urls: Urls): Organization => ({
  id: org.id,
  name: org.name,
  description: org.description,
  email: org.email,
  website_url: org.website_url,
  image_url: org.image_url,
  url: organizationUrl(urls, org.id),
  created_at: isoMillis(org.created_at),
  updated_at: isoMillis(org.updated_at),
});

export const newOrganization = (input: CreateOrganizationInput, id: string, now: Date): OrganizationRecord => ({
  id,
  name: input.name.trim(),
  description: input.description ?? null,
  email: input.email.trim(),
  website_url: input.website_url ?? null,
  image_url: input.image_url ?? null,
  created_at: now,
  updated_at: now,
});

/**
 * Start-up with organizations that have no contact e-mail (made before it was required): with a
 * default address configured they all get it; without one the process must not serve their
 * issuer profiles, which OB 2.0 verifiers would reject.
 */
export const missingIssuerEmails = (
  missing: number,
  defaultEmail: string | undefined,
): { action: "none" } | { action: "fill"; email: string } | { action: "refuse"; message: string } => {
  if (defaultEmail !== undefined && !/^[^\s@]+@[^\s@]+$/.test(defaultEmail.trim()))
    return { action: "refuse", message: `ISSUER_DEFAULT_EMAIL must be an e-mail address, not ${defaultEmail}` };
  if (missing === 0) return { action: "none" };
  if (defaultEmail !== undefined) return { action: "fill", email: defaultEmail.trim() };
  return {
    action: "refuse",
    message: `${missing} organization(s) have no contact e-mail, which every Open Badges 2.0 issuer profile needs; set ISSUER_DEFAULT_EMAIL to give them one`,
  };
};
