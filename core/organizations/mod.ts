export type { OrganizationRecord, Urls } from "./organizations.ts";
export {
  CreateOrganizationInput,
  newOrganization,
  Organization,
  organizationJson,
  organizationUrl,
} from "./organizations.ts";
