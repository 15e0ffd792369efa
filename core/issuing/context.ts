import { type AuditAction, type AuditBy, type AuditRecord, auditRecord } from "../audit/mod.ts";
import type { ShapeUrls } from "../badges/mod.ts";
import type { EventContext } from "../events/mod.ts";
import type { MailBudget } from "../mail/mod.ts";
import type { BadgeStore } from "./ports.ts";

/**
 * The tokens of pending-badge notification links: fresh unguessable ones, their keyed digest (the
 * only form stored), and a constant-time comparison of digests.
 */
export interface AcceptTokens {
  newToken(): string;
  digest(token: string): string;
  equal(a: string, b: string): boolean;
}

/** What the issuing use cases reach: storage, the mail budget and the addresses shapes are built from. */
export interface IssuingDeps {
  store: BadgeStore;
  urls: ShapeUrls;
  acceptTokens: AcceptTokens;
  /** Each organization's notification budget; none: unlimited. */
  mailBudget?: MailBudget;
}

/**
 * The clock and the sources of ids and randomness of one use case (core has none of its own).
 * `newEventId` gives UUIDv7s, so events sort by time; `newSalt` the per-badge OBI recipient salt.
 */
export interface IssuingContext {
  now: Date;
  newId: () => string;
  newEventId: () => string;
  newSalt: () => string;
  /**
   * Who acts on the organization's behalf (a credential or a member) and from where: their
   * template changes and badge revocations, replacements and deletions go to the audit log.
   * Absent for an earner's own actions, which are no organization's change.
   */
  by?: AuditBy;
}

export const eventContext = (ctx: IssuingContext, organizationId: string): EventContext => ({
  id: ctx.newEventId(),
  organization_id: organizationId,
  occurred_at: ctx.now,
});

/** The audit row of an organization's change, when someone acts for the organization; none otherwise. */
export const auditOf = (
  ctx: IssuingContext,
  organizationId: string,
  action: AuditAction,
  target: string,
  details: Record<string, unknown>,
): AuditRecord[] => (ctx.by ? [auditRecord(ctx, ctx.by, organizationId, action, target, details)] : []);
