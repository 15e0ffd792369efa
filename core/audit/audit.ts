import { type Static, Type } from "typebox";
import type { Credential } from "../auth/mod.ts";
import { isoMillis } from "../shared/mod.ts";

/** Every change the audit log records; a new kind of change gets its name here first. */
export const AUDIT_ACTIONS = [
  "organization.created",
  "organization.updated",
  "membership.created",
  "membership.role_changed",
  "membership.removed",
  "invitation.created",
  "invitation.cancelled",
  "invitation.accepted",
  "oauth_application.created",
  "oauth_application.updated",
  "oauth_application.deleted",
  "authorization_token.created",
  "authorization_token.rotated",
  "authorization_token.revoked",
  "webhook_settings.updated",
  "webhook_secret.rotated",
  "badge_template.created",
  "badge_template.updated",
  "badge_template.archived",
  "badge_template.unarchived",
  "badge_template.deleted",
  "badge.issued",
  "badge.notification_resent",
  "badge.revoked",
  "badge.replaced",
  "badge.deleted",
  /** A revocation of many badges at once from the console (one row; each badge has its own `badge.revoked`). */
  "badges.bulk_revoked",
  /** Notifications sent again for many badges at once (one row; each badge has its own `badge.notification_resent`). */
  "badges.bulk_notifications_resent",
  "import.started",
  "employee.created",
  "employee.updated",
  "employee.deleted",
  /** A batch of employee records created or updated by `external_id` (one row for the batch, with its counts). */
  "employees.upserted",
  "endorsement.created",
  "endorsement.accepted",
  "endorsement.rejected",
  "endorsement.withdrawn",
  "recommendation.created",
  "recommendation.deleted",
  "pathway.created",
  "pathway.updated",
  "pathway.published",
  "pathway.archived",
  "pathway.deleted",
  "issuer_authorization.granted",
  "issuer_authorization.accepted",
  "issuer_authorization.ended",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who made a change: a member signed in to the console, a credential of the API, or an operator's tool. */
export type AuditActorKind = "member" | "authorization_token" | "oauth_application" | "operator";
export const AUDIT_ACTOR_KINDS: readonly AuditActorKind[] = [
  "member",
  "authorization_token",
  "oauth_application",
  "operator",
];

export interface AuditActor {
  kind: AuditActorKind;
  /** The account id, the token id, the application id; null for an operator. */
  id: string | null;
}

/** Who acts and from where, as the transport knows it; every write that is audited takes one. */
export interface AuditBy {
  actor: AuditActor;
  /** The client's address, when the transport knows it (the CLI has none). */
  client_address: string | null;
}

export interface AuditRecord {
  id: string;
  organization_id: string;
  occurred_at: Date;
  actor: AuditActor;
  action: AuditAction;
  /** What was changed, as `kind:id` (`membership:<uuid>`, `oauth_application:12`); null for the organization itself. */
  target: string | null;
  client_address: string | null;
  details: Record<string, unknown>;
}

/** How long audit rows are kept. */
export const AUDIT_RETENTION_DAYS = 400;

export const auditCutoff = (now: Date): Date => new Date(now.getTime() - AUDIT_RETENTION_DAYS * 86_400_000);

export const OPERATOR: AuditBy = { actor: { kind: "operator", id: null }, client_address: null };

export const credentialActor = (credential: Credential): AuditActor =>
  credential.kind === "authorization_token"
    ? { kind: "authorization_token", id: credential.tokenId }
    : { kind: "oauth_application", id: String(credential.applicationId) };

/** The `by` of a credential's request from `clientAddress`. */
export const byCredential = (credential: Credential, clientAddress: string | null): AuditBy => ({
  actor: credentialActor(credential),
  client_address: clientAddress,
});

export const byMember = (accountId: string, clientAddress: string | null): AuditBy => ({
  actor: { kind: "member", id: accountId },
  client_address: clientAddress,
});

/** One audit row, built where the change is made and written in its transaction. */
export const auditRecord = (
  ctx: { now: Date; newId: () => string },
  by: AuditBy,
  organizationId: string,
  action: AuditAction,
  target: string | null,
  details: Record<string, unknown> = {},
): AuditRecord => ({
  id: ctx.newId(),
  organization_id: organizationId,
  occurred_at: ctx.now,
  actor: by.actor,
  action,
  target,
  client_address: by.client_address,
  details,
});

/** Position in the log, newest first: a keyset page starts strictly after it. */
export interface AuditCursor {
  occurred_at: Date;
  id: string;
}

export interface AuditLog {
  /** Up to `limit` rows of the organization strictly older than `after` (newest first). */
  page(organizationId: string, after: AuditCursor | null, limit: number): Promise<AuditRecord[]>;
  /** Removes up to `limit` rows older than `before`; answers how many went. */
  prune(before: Date, limit: number): Promise<number>;
}

export const AUDIT_PAGE_SIZE = 50;

/** Removes up to `limit` rows older than the retention period; answers how many went. */
export const pruneAuditLog = (log: Pick<AuditLog, "prune">, now: Date, limit: number): Promise<number> =>
  log.prune(auditCutoff(now), limit);

/** An opaque cursor for the next page (`occurred_at` in ms and the id). */
export const encodeAuditCursor = (c: AuditCursor): string => `${c.occurred_at.getTime()}_${c.id}`;

export const decodeAuditCursor = (raw: string | undefined | null): AuditCursor | null => {
  if (!raw) return null;
  const m = /^(\d{1,15})_([0-9a-f-]{36})$/i.exec(raw);
  if (!m) return null;
  return { occurred_at: new Date(Number(m[1])), id: (m[2] ?? "").toLowerCase() };
};

/**
 * One page of an organization's audit log, newest first, and the cursor of the next page (null at
 * the end). Keyset pages: reading page 1,000 costs what page 1 does.
 */
export const readAuditLog = async (
  log: Pick<AuditLog, "page">,
  organizationId: string,
  after: AuditCursor | null,
  limit = AUDIT_PAGE_SIZE,
): Promise<{ items: AuditRecord[]; next: AuditCursor | null }> => {
  const rows = await log.page(organizationId, after, limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? { occurred_at: last.occurred_at, id: last.id } : null };
};

export const AuditEntry = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  occurred_at: Type.String(),
  actor: Type.Object({ kind: Type.String(), id: Type.Union([Type.String(), Type.Null()]) }),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  client_address: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type AuditEntry = Static<typeof AuditEntry>;

export const auditEntryJson = (r: AuditRecord): AuditEntry => ({
  id: r.id,
  organization_id: r.organization_id,
  occurred_at: isoMillis(r.occurred_at),
  actor: { kind: r.actor.kind, id: r.actor.id },
  action: r.action,
  target: r.target,
  client_address: r.client_address,
  details: r.details,
});
