import type { AuditRecord } from "../../core/audit/mod.ts";
import type { Queryable } from "./sql.ts";

export const AUDIT_COLUMNS =
  "id, organization_id, occurred_at, actor_kind, actor_id, action, target, client_address, details";

/**
 * Appends audit rows with the statement's queryable: a store writing a change calls it in the
 * change's transaction, so the row exists exactly when the change committed.
 */
export const appendAudit = async (q: Queryable, entries: readonly AuditRecord[]): Promise<void> => {
  for (const e of entries) {
    await q.run(`insert into audit_log (${AUDIT_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)`, [
      e.id,
      e.organization_id,
      e.occurred_at,
      e.actor.kind,
      e.actor.id,
      e.action,
      e.target,
      e.client_address,
      JSON.stringify(e.details),
    ]);
  }
};
