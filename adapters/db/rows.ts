import type { AuditActorKind, AuditRecord } from "../../core/audit/mod.ts";
import type { BadgeRecord, BadgeTemplateData } from "../../core/badges/mod.ts";
import type { CodeRecord, GrantRecord, RefreshTokenRecord, SessionRecord } from "../../core/connect/mod.ts";
import type { AuthorizationTokenRecord, OAuthApplicationRecord } from "../../core/credentials/mod.ts";
import type { EarnerAccount, EarnerExportRecord, EarnerLink, EarnerSession } from "../../core/earners/mod.ts";
import type { EndorsementRecord, EndorsementView } from "../../core/endorsements/mod.ts";
import type { FieldError } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import type { ImportRecord, ImportRow } from "../../core/imports/mod.ts";
import type { IssuerAuthorizationRecord, IssuerAuthorizationView } from "../../core/issuer_authorizations/mod.ts";
import type { UserRecord } from "../../core/issuing/mod.ts";
import type { DueMail } from "../../core/mail/mod.ts";
import type { InvitationRecord, MembershipRecord } from "../../core/members/mod.ts";
import type { PlatformRecord } from "../../core/ob_api/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";
import type { DeliveryEvent, DeliveryStatus, WebhookAttemptRecord } from "../../core/webhooks/mod.ts";
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

/** `organizations`: core's record, with the switch operators set for workforce features. */
export interface OrganizationRow extends OrganizationRecord {
  workforce_authorized: boolean;
}

export type OAuthApplicationRow = OAuthApplicationRecord;

export type AuthorizationTokenRow = AuthorizationTokenRecord;

/** `badge_templates`: core's template record as stored (jsonb `skills` and `alignments` parsed). */
export type BadgeTemplateRow = BadgeTemplateData;

/** `badges`: core's badge record as stored, with the duplicate rule's keys and the status list index. */
export interface BadgeRow extends BadgeRecord {
  recipient_email_key: string;
  exclusive: boolean;
  status_index: number;
}

/** `users`: core's account without its addresses (`user_emails` holds them), with its web settings. */
export interface UserRow extends Omit<UserRecord, "emails">, Omit<EarnerAccount, "user"> {
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

export type MembershipRow = MembershipRecord;

/** `member_invitations`: core's invitation with its inviter in two columns. */
export interface MemberInvitationRow extends Omit<InvitationRecord, "invited_by"> {
  invited_by_kind: AuditActorKind;
  invited_by_id: string | null;
}

/** `audit_log`: core's record with its actor in two columns. */
export interface AuditLogRow extends Omit<AuditRecord, "actor"> {
  actor_kind: AuditActorKind;
  actor_id: string | null;
}

/** `connect_grants`: core's grant; `application_id` is int8. */
export interface ConnectGrantRow extends Omit<GrantRecord, "application_id" | "platform_id"> {
  application_id: Int8 | null;
  platform_id: Int8 | null;
}

/** `connect_codes`: core's code; `application_id` is int8. */
export interface ConnectCodeRow extends Omit<CodeRecord, "application_id" | "platform_id"> {
  application_id: Int8 | null;
  platform_id: Int8 | null;
}

/** `ob_platforms`: core's record; `id` is int8. */
export interface ObPlatformRow extends Omit<PlatformRecord, "id"> {
  id: Int8;
}

/** `endorsements`. */
export type EndorsementRow = EndorsementRecord;
/** An endorsement with both organizations' names, as its reads join them. */
export type EndorsementViewRow = EndorsementView;

/** `issuer_authorizations` (jsonb `badge_template_ids` parsed). */
export type IssuerAuthorizationRow = IssuerAuthorizationRecord;
/** An authorization with both organizations' names and the templates it covers, as its reads join them. */
export type IssuerAuthorizationViewRow = IssuerAuthorizationView;

export type ConnectSessionRow = SessionRecord;

export type ConnectRefreshTokenRow = RefreshTokenRecord;

export type EarnerLinkRow = EarnerLink;

export type EarnerSessionRow = EarnerSession;

/** `earner_exports`: core's record with the worker's lease; `size_bytes` is int8. */
export interface EarnerExportRow extends Omit<EarnerExportRecord, "size_bytes"> {
  lease_until: Date | null;
  attempts: number;
  size_bytes: Int8 | null;
}

/** `imports`: one import job, core's record. */
export type ImportJobRow = ImportRecord;

/** `import_rows`: one line of an import's file. */
export interface ImportLineRow extends Omit<ImportRow, "row" | "errors"> {
  import_id: string;
  row_no: number;
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

/** `events`: core's record with its place in the relay's order (int8). */
export interface EventRow extends EventRecord {
  seq: Int8;
}

/** `mail_outbox`: core's due mail with its retry schedule and end. */
export interface MailOutboxRow extends DueMail {
  next_attempt_at: Date;
  last_error: string | null;
  failed_at: Date | null;
}

/** `webhook_deliveries`: the event it carries, and core's `DeliveryProgress` as columns with the worker's claim. */
export interface WebhookDeliveryRow extends DeliveryEvent {
  id: string;
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

export type WebhookAttemptRow = WebhookAttemptRecord;
