export type { BakedUpload } from "./baked_badges.ts";
export { bakedBadgeInput, MAX_BAKED_IMAGE_BYTES } from "./baked_badges.ts";
export type { ConnectionAction, ConnectionChange, ConnectionFields } from "./connection.ts";
export {
  associatesWith,
  CONNECTION_ACTIONS,
  employerSeesBadges,
  transitionConnection,
  visibleBadges,
} from "./connection.ts";
export type {
  ConnectionContext,
  ConnectionStore,
  ConnectionTx,
  EmployerConnection,
  HeldBadge,
} from "./connections.ts";
export {
  decideConnection,
  followBadgeChange,
  heldShapes,
  reconcileRecords,
  syncAccountConnections,
  visitConnections,
} from "./connections.ts";
export {
  EMPLOYEE_BATCH_MAX,
  NULLABLE_FIELDS,
  REQUIRED_COLUMNS,
  TEXT_FIELDS,
  tableColumnProblems,
  tableRowItem,
} from "./employee_fields.ts";
export type { EmployeeFilter, EmployeeRecord, Employer, EmploymentHistory } from "./employee_records.ts";
export {
  applyEmployeeUpdate,
  employeeChanged,
  employmentShape,
  newEmployeeRecord,
} from "./employee_records.ts";
export type { EmployeeListQuery, EmployeeSortKey, EmployeeState } from "./employee_schemas.ts";
export {
  EMPLOYEE_LIST,
  EMPLOYEE_SORT_KEYS,
  EMPLOYEE_STATES,
  EmployeeBatchBody,
  EmployeeBatchEnvelope,
  EmployeeCreateBody,
  EmployeeUpdateBody,
  EmploymentHistoryInput,
  SendInvitationsBody,
} from "./employee_schemas.ts";
export type {
  EmployeeContext,
  EmployeeStore,
  EmployeeTx,
  EmployeeView,
  HeldBadgesOf,
  UpsertResult,
} from "./employees.ts";
export {
  createEmployee,
  deleteEmployee,
  employeeItemErrors,
  employmentOf,
  getEmployee,
  listEmployees,
  requireWorkforceData,
  updateEmployee,
  upsertEmployees,
  workforceDataRefused,
} from "./employees.ts";
export type { WorkforceAuthorizationStore, WorkforceDeps } from "./employment_events.ts";
export { setWorkforceAuthorization } from "./employment_events.ts";
export type {
  DueExternalBadge,
  ExternalBadgeContext,
  ExternalBadgeDeps,
  ExternalBadgeJson,
  ExternalBadgeOwner,
  ExternalBadgeRecord,
  ExternalBadgeStore,
  ExternalBadgeTx,
  ExternalFetchCounter,
  ExternalFetchLimits,
} from "./external_badges.ts";
export {
  addExternalBadge,
  ExternalBadgeSchema,
  employeeExternalBadges,
  externalBadgeShape,
  fetchHostOf,
  MAX_CREDENTIAL_LENGTH,
  MAX_EXTERNAL_BADGES,
  REVERIFY_INTERVAL_MS,
  readExternalBadgeInput,
  recheckExternalBadge,
  recordVerification,
  removeExternalBadge,
  reverifyDue,
} from "./external_badges.ts";
export type {
  DataIntegrityCheck,
  DataIntegrityFailure,
  ExternalBadgeDetails,
  ExternalBadgeInput,
  ExternalBadgeReason,
  ExternalBadgeSource,
  ExternalBadgeStatus,
  ExternalDocuments,
  Fetched,
  JwsCheck,
  Verification,
  VerifyDeps,
} from "./external_verification.ts";
export {
  DATA_INTEGRITY_PROOF,
  didWebDocumentUrl,
  EXTERNAL_BADGE_REASONS,
  EXTERNAL_BADGE_SOURCES,
  EXTERNAL_BADGE_STATUSES,
  httpUrl,
  identityMatches,
  verifyExternalBadge,
  verifyOb2,
  verifyOb3,
  verifyOb3Json,
} from "./external_verification.ts";
export type { InvitationBudget, InvitationDeps, InvitationResult } from "./invitations.ts";
export { invitationContent, invitationLink, sendInvitations, takeInvitations } from "./invitations.ts";
