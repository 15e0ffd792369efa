import type { FieldError } from "../errors/mod.ts";

/** The profile fields an organization's owners and admins change in the console. */
export interface ProfileInput {
  name: string;
  description: string;
  email: string;
  website_url: string;
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
