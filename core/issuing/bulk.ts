import { auditRecord } from "../audit/mod.ts";
import type { BadgeListQuery, BadgeRevokeBody } from "../badges/mod.ts";
import { isCoreError } from "../errors/mod.ts";
import { MAX_PER, pageRequest } from "../shared/mod.ts";
import { listBadges, resendNotification, revokeBadge } from "./badges.ts";
import type { IssuingContext, IssuingDeps } from "./context.ts";

/**
 * Bulk actions on badges: each badge goes through the single-badge use case (`revokeBadge`,
 * `resendNotification`), so the rules, events, audit rows and mail budget are those of one
 * badge; then one more audit row names the bulk action, how many it touched and what it was
 * asked on (a selection of ids, or a filter).
 */

/** The most badges one bulk action touches; a filter matching more acts on its first this many. */
export const BULK_LIMIT = 10_000;

export type BulkAction = "revoke" | "resend";

/** What a bulk action was asked on: ids picked in the list, or the list's filter as sent. */
export type BulkScope = { kind: "selection"; ids: string[] } | { kind: "filter"; filter: Record<string, string> };

export interface BulkResult {
  action: BulkAction;
  /** Badges asked for (after the limit). */
  asked: number;
  /** Badges changed (revoked, or notified again). */
  done: number;
  /** Badges the rule passed over: not in a state the action applies to, or gone meanwhile. */
  skipped: number;
  /** Badges not reached because the organization's mail budget was spent (resend only). */
  budgetLeft: number;
}

/**
 * The ids a filter matches, in the list's default order (newest issued first), at most `limit`,
 * and how many match in all. The ids are read before anything changes, so revoking does not move
 * the pages under the reader.
 */
export const bulkTargets = async (
  deps: IssuingDeps,
  organizationId: string,
  query: BadgeListQuery,
  limit = BULK_LIMIT,
): Promise<{ ids: string[]; total: number }> => {
  const ids: string[] = [];
  let total = 0;
  for (let page = 1; ids.length < limit; page++) {
    const found = await listBadges(deps, organizationId, query, pageRequest(page, MAX_PER));
    total = found.total;
    for (const v of found.items) if (ids.length < limit) ids.push(v.badge.id);
    if (found.items.length < MAX_PER) break;
  }
  return { ids, total };
};

/** A refusal that passes one badge over rather than stopping the action: a state the rule refuses, or gone. */
const passedOver = (err: unknown): boolean =>
  isCoreError(err) && (err.code === "validation_failed" || err.code === "not_found");

const scopeDetails = (scope: BulkScope): Record<string, unknown> =>
  scope.kind === "selection" ? { selection: scope.ids.length } : { filter: scope.filter };

const bulk = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  action: BulkAction,
  scope: BulkScope,
  ids: string[],
  one: (id: string) => Promise<unknown>,
  details: Record<string, unknown> = {},
): Promise<BulkResult> => {
  const asked = ids.slice(0, BULK_LIMIT);
  const result: BulkResult = { action, asked: asked.length, done: 0, skipped: 0, budgetLeft: 0 };
  let interrupted = false;
  try {
    for (const [i, id] of asked.entries()) {
      try {
        await one(id);
        result.done++;
      } catch (err) {
        if (action === "resend" && isCoreError(err) && err.code === "rate_limited") {
          result.budgetLeft = asked.length - i;
          break;
        }
        if (!passedOver(err)) {
          interrupted = true;
          throw err;
        }
        result.skipped++;
      }
    }
  } finally {
    // Written even when a failure stops the loop: the badges done so far are done, each with its own row.
    const audit = ctx.by
      ? [
          auditRecord(
            ctx,
            ctx.by,
            organizationId,
            action === "revoke" ? "badges.bulk_revoked" : "badges.bulk_notifications_resent",
            null,
            {
              ...scopeDetails(scope),
              ...details,
              asked: result.asked,
              done: result.done,
              skipped: result.skipped,
              ...(action === "resend" ? { not_sent_budget_spent: result.budgetLeft } : {}),
              ...(interrupted ? { interrupted: true } : {}),
            },
          ),
        ]
      : [];
    if (audit.length > 0) await deps.store.transaction((tx) => tx.appendAudit(audit));
  }
  return result;
};

/** Revokes each badge with the one reason, as `revokeBadge` would one by one; those not pending or accepted are passed over. */
export const bulkRevoke = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  scope: BulkScope,
  ids: string[],
  body: BadgeRevokeBody,
): Promise<BulkResult> =>
  bulk(deps, ctx, organizationId, "revoke", scope, ids, (id) => revokeBadge(deps, ctx, organizationId, id, body), {
    reason: body.reason,
  });

/**
 * Sends each pending badge's notification again, as `resendNotification` would one by one; badges
 * not pending are passed over, and once the mail budget is spent the rest are left unsent.
 */
export const bulkResend = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  scope: BulkScope,
  ids: string[],
): Promise<BulkResult> =>
  bulk(deps, ctx, organizationId, "resend", scope, ids, (id) => resendNotification(deps, ctx, organizationId, id));
