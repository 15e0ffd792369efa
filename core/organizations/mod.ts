export type { CheckedImage } from "./images.ts";
export { checkImage, IMAGE_MAX_BYTES, IMAGE_MAX_SIDE, imageRefused } from "./images.ts";
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
export {
  cssInert,
  SVG_ATTRIBUTES,
  SVG_DROPPED_WHOLE,
  SVG_ELEMENTS,
  SVG_NAMESPACE,
  styleSheetKept,
  svgAttributeKept,
  XLINK_NAMESPACE,
} from "./svg_allow_list.ts";
