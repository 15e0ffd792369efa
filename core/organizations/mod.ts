export type { OrganizationRecord, Urls } from "./organizations.ts";
export {
  CreateOrganizationInput,
  missingIssuerEmails,
  newOrganization,
  Organization,
  organizationJson,
  organizationUrl,
} from "./organizations.ts";
