import type { Milestone } from "./records.ts";

/**
 * The organizations whose pathways a badge counts toward: the one whose it is and the one that
 * issued it on its behalf. Not a grantor's other issuers: their badges are not in its lists.
 */
export const countsFor = (badge: { organization_id: string; issued_by_organization_id: string | null }): string[] =>
  badge.issued_by_organization_id ? [badge.organization_id, badge.issued_by_organization_id] : [badge.organization_id];

export interface MilestoneProgress {
  /** How many of the milestone's templates the earner holds. */
  held: number;
  required: number;
  done: boolean;
}

export interface PathwayProgress {
  milestones: MilestoneProgress[];
  /** How many milestones are done. */
  done: number;
  /** Every milestone done. */
  complete: boolean;
}

/**
 * An earner's progress from the templates they hold (ids, any case): each milestone is done when
 * `required` of its templates are held. Pure: the stores keep the held templates, this reads them.
 */
export const pathwayProgress = (milestones: readonly Milestone[], held: Iterable<string>): PathwayProgress => {
  const has = new Set([...held].map((id) => id.toLowerCase()));
  const each = milestones.map((m) => {
    const count = new Set(m.badge_template_ids.filter((id) => has.has(id.toLowerCase()))).size;
    return { held: count, required: m.required, done: count >= m.required };
  });
  const done = each.filter((m) => m.done).length;
  return { milestones: each, done, complete: each.length > 0 && done === each.length };
};

/** The index of the first milestone not done with `held`, or -1 when every one is. */
export const nextMilestone = (milestones: readonly Milestone[], held: Iterable<string>): number =>
  pathwayProgress(milestones, held).milestones.findIndex((m) => !m.done);

/** Every template a pathway's milestones name, each once. */
export const milestoneTemplateIds = (milestones: readonly Milestone[]): string[] => [
  ...new Set(milestones.flatMap((m) => m.badge_template_ids)),
];
