import { type BadgeIssueBody, type BadgeRecord, normalizeEmail, organizationUrl } from "../badges/mod.ts";
import { settle } from "../errors/mod.ts";
import { countsFor, nextMilestone, pathwayProgress } from "../pathways/mod.ts";
import type { RecommendationRecord } from "../recommendations/mod.ts";
import type { IssuingContext, IssuingDeps } from "./context.ts";
import type { BadgeChangeTx, CompletionHolder, IssueWrites, PathwayStep } from "./ports.ts";

/** What counts toward a pathway: a badge its recipient accepted (pending, rejected, revoked and replaced do not). */
const holds = (badge: BadgeRecord | null): boolean => badge?.state === "accepted";

/**
 * The completion badge of a pathway, issued to the recipient of the badge that completed it, by
 * the same issue as any badge (`issue`: the caller's `issueWith` in this transaction). Its evidence
 * names the pathway, which is how its `badge.created` event (the badge's standard shape, which has
 * no field of its own for it) says where it came from.
 */
const completionIssue = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  step: PathwayStep,
  by: CompletionHolder,
): BadgeIssueBody => ({
  badge_template_id: step.pathway.completion_badge_template_id,
  issued_at: ctx.now.toISOString(),
  issued_to_first_name: by.issued_to_first_name,
  issued_to_middle_name: by.issued_to_middle_name,
  issued_to_last_name: by.issued_to_last_name,
  recipient_email: by.recipient_email,
  locale: by.locale,
  evidence: [
    {
      type: "UrlEvidence" as const,
      name: `Pathway completed: ${step.pathway.name}`.slice(0, 255),
      description: `Every milestone of the pathway ${step.pathway.id} (version ${step.pathway.version}) done`,
      value: organizationUrl(deps.urls, step.pathway.organization_id),
    },
  ],
});

/** Issues one badge in the transaction `tx` (the use cases' own issue); answers its id. */
export type CompletionIssuer = (tx: IssueWrites, organizationId: string, body: BadgeIssueBody) => Promise<string>;

/**
 * Keeps the pathways' progress of a badge's recipient as the badge changes from `before` to
 * `after` (null: deleted), in the badge's transaction: a template held (accepted) is added to or
 * released from their progress on every published pathway naming it whose organization the badge
 * counts for. A pathway whose every
 * milestone is now done, and not completed before, is completed, with its completion badge issued
 * through `issue`. The progress rows stay locked until the transaction ends, and the completion is
 * recorded only where none is, so two acceptances at once complete a pathway once.
 */
export const keepPathwayProgress = async (
  tx: BadgeChangeTx,
  deps: IssuingDeps,
  ctx: IssuingContext,
  before: BadgeRecord,
  after: BadgeRecord | null,
  issue: CompletionIssuer,
): Promise<void> => {
  const was = holds(before);
  const is = holds(after);
  if (was === is) return;
  const key = normalizeEmail(before.recipient_email);
  if (!is) {
    await tx.releaseTemplate(before.badge_template_id, key, ctx.now, countsFor(before));
    return;
  }
  const badge = after as BadgeRecord;
  const steps = await tx.holdTemplate(badge.badge_template_id, key, badge.recipient_email, ctx.now, countsFor(badge));
  await recommendNext(tx, ctx, steps, badge);
  await completeSteps(tx, deps, ctx, steps, key, badge, issue);
};

/**
 * On the pathways set to `recommend_next`: when the template just held makes another milestone
 * the recipient's next one not done, its templates they do not hold are recommended to them, as
 * core/recommendations records them (one per template and person; existing ones, a dismissed one
 * included, skipped). In the badge's transaction, so without the hourly mail budget (a store a
 * transaction must not wait on): no mail, shown in the wallet's "Recommended for you".
 */
const recommendNext = async (
  tx: BadgeChangeTx,
  ctx: IssuingContext,
  steps: readonly PathwayStep[],
  badge: BadgeRecord,
): Promise<void> => {
  const records: RecommendationRecord[] = [];
  for (const step of steps) {
    if (!step.pathway.recommend_next || step.completed_at !== null) continue;
    const held = step.held_template_ids;
    const before = held.filter((id) => id !== badge.badge_template_id.toLowerCase());
    const next = nextMilestone(step.pathway.milestones, held);
    if (next < 0 || next === nextMilestone(step.pathway.milestones, before)) continue;
    for (const templateId of step.pathway.milestones[next]?.badge_template_ids ?? []) {
      if (held.includes(templateId)) continue;
      records.push({
        id: ctx.newId(),
        organization_id: step.pathway.organization_id,
        badge_template_id: templateId,
        recipient_email: badge.recipient_email,
        recipient_email_key: normalizeEmail(badge.recipient_email),
        employee_id: null,
        message: null,
        created_at: ctx.now,
        dismissed_at: null,
        notified_at: null,
      });
    }
  }
  if (records.length > 0) await tx.recommendTemplates(records);
};

/**
 * Completes each of the recipient's locked progress rows whose every milestone is done and that no
 * completion is recorded for: its completion badge issued through `issue`, then recorded.
 */
const completeSteps = async (
  tx: BadgeChangeTx,
  deps: IssuingDeps,
  ctx: IssuingContext,
  steps: readonly PathwayStep[],
  key: string,
  holder: CompletionHolder,
  issue: CompletionIssuer,
): Promise<void> => {
  for (const step of steps) {
    if (step.completed_at !== null || !pathwayProgress(step.pathway.milestones, step.held_template_ids).complete)
      continue;
    // A completion template archived since, or a live badge of it the recipient holds already:
    // the pathway is completed all the same, without a second badge.
    const issued = await settle(() =>
      issue(tx, step.pathway.organization_id, completionIssue(deps, ctx, step, holder)),
    );
    await tx.recordCompletion(step.pathway.id, key, issued.ok ? issued.value : null, ctx.now);
  }
};

/**
 * Completes the earners who hold every milestone of a pathway already when it is published (or
 * at its new version), as an acceptance would have: their rows locked, each completed once.
 */
export const completeHeldProgress = async (
  tx: BadgeChangeTx,
  deps: IssuingDeps,
  ctx: IssuingContext,
  pathwayId: string,
  issue: CompletionIssuer,
): Promise<number> => {
  const rows = await tx.uncompletedProgress(pathwayId);
  let completed = 0;
  for (const row of rows) {
    if (!pathwayProgress(row.pathway.milestones, row.held_template_ids).complete) continue;
    await completeSteps(tx, deps, ctx, [row], row.recipient_key, row.holder, issue);
    completed += 1;
  }
  return completed;
};
