import { type FieldError, notFound, validationFailed } from "../errors/mod.ts";
import type { OrganizationRecord } from "./organizations.ts";

/** The profile fields an organization's owners and admins change in the console. */
export interface ProfileInput {
  name: string;
  description: string;
  email: string;
  website_url: string;
}

export interface OrganizationProfileStore {
  get(id: string): Promise<OrganizationRecord | null>;
  /** Writes name, description, e-mail, website and image of the organization. */
  updateProfile(org: OrganizationRecord): Promise<void>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An absolute http(s) address with a host and no spaces. */
const isWebAddress = (value: string): boolean => /^https?:\/\/[^\s/?#@]+(?:[/?#][^\s]*)?$/i.test(value);

/** The profile's fields checked: what the issuer profile (OB 2.0) and the organization page show. */
export const checkProfile = (input: ProfileInput): FieldError[] => {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (name.length === 0 || name.length > 255) errors.push({ field: "name", message: "must be 1 to 255 characters" });
  if (input.description.length > 5000)
    errors.push({ field: "description", message: "must be at most 5000 characters" });
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 320) errors.push({ field: "email", message: "is not an e-mail address" });
  const website = input.website_url.trim();
  if (website !== "" && (!isWebAddress(website) || website.length > 2048))
    errors.push({ field: "website_url", message: "must be an http or https address" });
  return errors;
};

export const updateOrganizationProfile = async (
  store: OrganizationProfileStore,
  now: Date,
  organizationId: string,
  input: ProfileInput,
): Promise<OrganizationRecord> => {
  const org = await store.get(organizationId);
  if (!org) throw notFound("Organization");
  const errors = checkProfile(input);
  if (errors.length > 0) throw validationFailed("Check the profile", errors);
  const next: OrganizationRecord = {
    ...org,
    name: input.name.trim(),
    description: input.description.trim() === "" ? null : input.description,
    email: input.email.trim(),
    website_url: input.website_url.trim() === "" ? null : input.website_url.trim(),
    updated_at: now,
  };
  await store.updateProfile(next);
  return next;
};

/** Points the organization's image at a stored image (its stable address). */
export const setOrganizationImage = async (
  store: OrganizationProfileStore,
  now: Date,
  organizationId: string,
  imageUrl: string,
): Promise<OrganizationRecord> => {
  const org = await store.get(organizationId);
  if (!org) throw notFound("Organization");
  const next = { ...org, image_url: imageUrl, updated_at: now };
  await store.updateProfile(next);
  return next;
};
