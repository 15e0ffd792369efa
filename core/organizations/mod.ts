export type { CheckedImage } from "./images.ts";
export { checkImage, IMAGE_MAX_BYTES, IMAGE_MAX_SIDE } from "./images.ts";
export type { OrganizationRecord, Urls } from "./organizations.ts";
export {
  CreateOrganizationInput,
  missingIssuerEmails,
  newOrganization,
  Organization,
  organizationJson,
  organizationUrl,
} from "./organizations.ts";
export type { ProfileInput } from "./profile.ts";
export { checkProfile } from "./profile.ts";
