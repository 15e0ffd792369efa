export {
  assertionUrl,
  badgeClassUrl,
  issuerUrl,
  MULTIKEY_CONTEXT,
  OB_V3_CONTEXT,
  OBI_V2_CONTEXT,
  SECURITY_V2_CONTEXT,
  VC_V2_CONTEXT,
} from "./context.ts";
export { multikeyUrl, withAssertionMethod } from "./data_integrity.ts";
export { recipientHashInput, recipientIdentity } from "./recipient.ts";
export type { StatusListCredentialPayload, StatusListEntry, StatusListStore } from "./status_list.ts";
export {
  STATUS_LIST_SIZE,
  STATUS_LISTS_MAX,
  statusListBits,
  statusListCredentialPayload,
  statusListEntry,
  statusListNumber,
  statusListUrl,
} from "./status_list.ts";
export type { BadgeClassOptions, ObiUrls } from "./v2_documents.ts";
export { assertionDocument, badgeClassDocument, issuerDocument, revokedAssertionDocument } from "./v2_documents.ts";
export {
  AssertionDocumentSchema,
  BadgeClassDocumentSchema,
  EmbeddedIssuerSchema,
  EvidenceDocumentSchema,
  IssuerDocumentSchema,
  RevokedAssertionDocumentSchema,
} from "./v2_schemas.ts";
export type { OpenBadgeCredentialPayload, V3Urls } from "./v3_credential.ts";
export { credentialUrl, openBadgeCredentialPayload, subjectUrn } from "./v3_credential.ts";
export type { IssuerProfileDocument } from "./v3_profile.ts";
export { IssuerProfileDocumentSchema, issuerProfileDocument, profileUrl } from "./v3_profile.ts";
export type { ObiVisibility } from "./visibility.ts";
export { bakedImageVisible, OBI_VISIBILITY, obiTemplateVisibility, obiVisibility } from "./visibility.ts";
