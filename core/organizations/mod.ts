export { CreateOrganizationInput, newOrganization, Organization, organizationJson, organizationUrl } from "./organizations.ts";
export type { OrganizationRecord, Urls } from "./organizations.ts";
