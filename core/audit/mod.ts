export type { AuditAction, AuditActor, AuditActorKind, AuditBy, AuditCursor, AuditLog, AuditRecord } from "./audit.ts";
export {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_KINDS,
  AUDIT_PAGE_SIZE,
  AUDIT_RETENTION_DAYS,
  AuditEntry,
  auditCutoff,
  auditEntryJson,
  auditRecord,
  byCredential,
  byMember,
  credentialActor,
  decodeAuditCursor,
  encodeAuditCursor,
  OPERATOR,
  pruneAuditLog,
  readAuditLog,
} from "./audit.ts";
