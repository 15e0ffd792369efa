import type { AuditAction, AuditActorKind } from "../../core/audit/mod.ts";
import type { BadgeRecord, BadgeTemplateData } from "../../core/badges/mod.ts";
import type { ExportState, LinkPurpose } from "../../core/earners/mod.ts";
import type { FieldError } from "../../core/errors/mod.ts";
import type { EventType } from "../../core/events/mod.ts";
import type { ImportKind, ImportState, RowStatus } from "../../core/imports/mod.ts";
import type { MailMessage } from "../../core/mail/mod.ts";
import type { Role } from "../../core/members/mod.ts";
import type { DeliveryStatus, WebhookAttemptRecord } from "../../core/webhooks/mod.ts";
import type { EmployeeRecord, ExternalBadgeRecord } from "../../core/workforce/mod.ts";

/**
 * Each table's row as the driver hands it over, declared once here (the migrations make the
 * tables; these say what a select of them reads). Both drivers agree: timestamptz is a `Date`,
 * jsonb is parsed, int4 and bool are numbers and booleans; int8 (`count(*)` included) is text from
 * `pg` and a number from PGlite, so it is `Int8` and read with `toNumber`. A text column a check
 * constraint limits to a closed set has that set's type.
 *
 * A statement names the row it reads through its type parameter (`q.all<TokenRow>(...)`); one that
 * selects some columns, or adds computed ones, says so (`Pick<UserRow, "id"> & { email: string }`).
 */

export type Int8 = string | number;

export interface OrganizationRow {
  id: string;
  name: string;
  description: string | null;
  email: string | null;
  website_url: string | null;
  image_url: string | null;
  created_at: Date;
  updated_at: Date;
  workforce_authorized: boolean;
}

export interface OAuthApplicationRow {
  id: number;
  organization_id: string;
  name: string;
  description: string | null;
  uid: string;
  secret_digest: string;
  created_by_id: string;
  created_by_type: string;
  created_by_name: string;
  data_services_enabled: boolean;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  last_successfully_used_at: Date | null;
  ceiling_read_enabled: boolean;
  ceiling_write_enabled: boolean;
  ceiling_delete_enabled: boolean;
  ceiling_scopes: string | null;
  scopes: string | null;
  redirect_uris: string;
}

export interface AuthorizationTokenRow {
  id: string;
  organization_id: string;
  description: string;
  token_digest: string;
  token_sealed: string;
  read_enabled: boolean;
  write_enabled: boolean;
  delete_enabled: boolean;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  last_successfully_used_at: Date | null;
}

/** `badge_templates`: core's template record as stored (jsonb `skills` and `alignments` parsed). */
export type BadgeTemplateRow = BadgeTemplateData;

/** `badges`: core's badge record as stored, with the duplicate rule's keys and the status list index. */
export interface BadgeRow extends BadgeRecord {
  recipient_email_key: string;
  exclusive: boolean;
  status_index: number;
}

export interface UserRow {
  id: string;
  first_name: string;
  last_name: string;
  created_at: Date;
  updated_at: Date;
  public_profile: boolean;
  vanity_name: string | null;
  closed_at: Date | null;
  merged_into_user_id: string | null;
}

export interface UserEmailRow {
  email_key: string;
  user_id: string;
  email: string;
  position: number;
  confirmed: boolean;
  created_at: Date;
}

export interface MembershipRow {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  created_at: Date;
  updated_at: Date;
}

export interface MemberInvitationRow {
  id: string;
  organization_id: string;
  email: string;
  email_key: string;
  role: Role;
  token_digest: string;
  invited_by_kind: AuditActorKind;
  invited_by_id: string | null;
  invited_by_name: string;
  created_at: Date;
  expires_at: Date;
}

export interface AuditLogRow {
  id: string;
  organization_id: string;
  occurred_at: Date;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  action: AuditAction;
  target: string | null;
  client_address: string | null;
  details: Record<string, unknown>;
}

export interface ConnectGrantRow {
  id: string;
  user_id: string;
  application_id: Int8;
  organization_id: string;
  scopes: string;
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
}

export interface ConnectCodeRow {
  digest: string;
  grant_id: string;
  user_id: string;
  application_id: Int8;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  session_id: string | null;
}

export interface ConnectSessionRow {
  id: string;
  grant_id: string;
  scopes: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface ConnectRefreshTokenRow {
  digest: string;
  session_id: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface EarnerLinkRow {
  token_hash: string;
  purpose: LinkPurpose;
  email: string;
  email_key: string;
  user_id: string | null;
  next_path: string | null;
  client_key: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface EarnerSessionRow {
  token_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface EarnerExportRow {
  id: string;
  user_id: string;
  state: ExportState;
  lease_until: Date | null;
  attempts: number;
  token_digest: string | null;
  size_bytes: Int8 | null;
  created_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
}

/** `imports`: one import job. */
export interface ImportJobRow {
  id: string;
  organization_id: string;
  kind: ImportKind;
  state: ImportState;
  file_sha256: string;
  file_name: string;
  row_count: number;
  invalid_count: number;
  done_count: number;
  failed_count: number;
  repeat_of: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** `import_rows`: one line of an import's file. */
export interface ImportLineRow {
  import_id: string;
  row_no: number;
  status: RowStatus;
  item: Record<string, unknown>;
  outcome_id: string | null;
  detail: string | null;
  errors: FieldError[] | null;
}

/** `employees`: core's employee record as stored, with the list's lower-cased sort keys. */
export interface EmployeeRow extends EmployeeRecord {
  first_name_key: string | null;
  last_name_key: string | null;
  department_key: string | null;
  team_key: string | null;
}

/**
 * `external_badges`: core's record as stored, but for `details`, whose dates are ISO text inside
 * the jsonb.
 */
export interface ExternalBadgeRow extends Omit<ExternalBadgeRecord, "details"> {
  details: Record<string, unknown>;
}

export interface EventRow {
  id: string;
  organization_id: string;
  event_type: EventType;
  occurred_at: Date;
  detail: Record<string, unknown>;
  seq: Int8;
}

export interface MailOutboxRow {
  id: string;
  kind: string;
  organization_id: string | null;
  message: MailMessage;
  sent_event: { event_type: EventType; detail: Record<string, unknown> } | null;
  created_at: Date;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  failed_at: Date | null;
}

export interface WebhookDeliveryRow {
  id: string;
  event_id: string;
  organization_id: string;
  event_type: string;
  occurred_at: Date;
  status: DeliveryStatus;
  attempts_count: number;
  first_attempt_at: Date | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  succeeded_at: Date | null;
  lease_until: Date | null;
  claim_token: string | null;
  due_at: Date | null;
  created_at: Date;
}

export interface WebhookAttemptRow {
  id: string;
  delivery_id: string;
  attempt_number: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  outcome: WebhookAttemptRecord["outcome"];
}
