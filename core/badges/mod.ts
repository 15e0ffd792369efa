export type { BadgeAction, BadgeActionName, BadgeState } from "./badge_state.ts";
export {
  BADGE_ACTIONS,
  BADGE_STATES,
  isLiveBadgeState,
  LIVE_BADGE_STATES,
  REVOCATION_REASON_MAX,
  transitionBadge,
} from "./badge_state.ts";
export type { BatchItemCheck } from "./batch.ts";
export { checkBatchItems } from "./batch.ts";
export type { SchemaIssue } from "./field_errors.ts";
export { plainFieldMessage, plainSchemaMessage, schemaFieldErrors } from "./field_errors.ts";
export {
  BATCH_MAX,
  BadgeBatchBody,
  BadgeBatchEnvelope,
  BadgeIssueBody,
  BadgeReplaceBody,
  BadgeRevokeBody,
  EvidenceInput,
  TemplateCreateBody,
  TemplateUpdateBody,
} from "./input_schemas.ts";
export type { NewBadgeContext, NormalizedIssue, RecipientSubjects } from "./issue_rules.ts";
export {
  checkIssue,
  checkIssuedAtNotFuture,
  DUPLICATE_BADGE_MESSAGE,
  duplicateBadge,
  ISSUED_AT_FUTURE_TOLERANCE_MS,
  newBadgeRecord,
  normalizeEmail,
  normalizeIssue,
  recipientSubjectId,
  replacementIssue,
  UNKNOWN_TEMPLATE_MESSAGE,
} from "./issue_rules.ts";
export { isFieldError, parseIssuedAt } from "./issued_at.ts";
export type { BadgeListQuery, TemplateListQuery } from "./lists.ts";
export { BADGE_LIST, TEMPLATE_LIST } from "./lists.ts";
export type { BadgeJson, BadgeStandardShape, BadgeTemplateJson } from "./output_schemas.ts";
export {
  AlignmentSchema,
  BadgeJsonSchema,
  BadgeStandardShapeSchema,
  BadgeStateSchema,
  BadgeTemplateJsonSchema,
  Nullable,
  TemplateStateSchema,
  UrlEvidenceSchema,
} from "./output_schemas.ts";
export {
  applyBadgeAction,
  applyTemplateAction,
  applyTemplateUpdate,
  checkTemplateDeletable,
  checkTemplateImages,
  newTemplateRecord,
  reportingTags,
  setBadgePrivacy,
  type TemplateImageChange,
  templateChanged,
} from "./record_changes.ts";
export type {
  Alignment,
  BadgeRecord,
  BadgeTemplateData,
  BadgeTemplateRecord,
  OrganizationRef,
  ShapeUrls,
  UrlEvidence,
} from "./records.ts";
export { acceptBadgeUrl, badgeUrl, organizationUrl, storedImageUrl, templateImageUrl } from "./records.ts";
export { badgeJson, badgeStandardShape, badgeTemplateJson, fullName } from "./shapes.ts";
export type { TemplateAction, TemplateState } from "./template_state.ts";
export { TEMPLATE_ACTIONS, TEMPLATE_STATES, templateStateFromUpdate, transitionTemplate } from "./template_state.ts";
export type { BadgeSurface, RecordAnswer } from "./visibility.ts";
export { badgeVisibleOn, PUBLIC_VISIBILITY, recordAnswer } from "./visibility.ts";
