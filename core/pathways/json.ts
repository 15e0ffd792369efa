import { type Static, Type } from "typebox";
import { Nullable } from "../badges/mod.ts";
import { isoMillis, isoMillisOrNull } from "../shared/mod.ts";
import { pathwayProgress } from "./progress.ts";
import { PATHWAY_STATES, type PathwayProgressRecord, type PathwayRecord, PROGRESS_STATES } from "./records.ts";

const Time = Type.String({ format: "date-time" });
const Uuid = Type.String({ format: "uuid" });

/** A pathway as the API answers it. */
export const Pathway = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  state: Type.Enum(PATHWAY_STATES),
  version: Type.Integer(),
  completion_badge_template_id: Uuid,
  milestones: Type.Array(
    Type.Object({ name: Type.String(), badge_template_ids: Type.Array(Uuid), required: Type.Integer() }),
  ),
  recommend_next: Type.Boolean(),
  created_at: Time,
  updated_at: Time,
  published_at: Nullable(Time),
});
export type Pathway = Static<typeof Pathway>;

export const pathwayJson = (p: PathwayRecord): Pathway => ({
  id: p.id,
  organization_id: p.organization_id,
  name: p.name,
  description: p.description,
  state: p.state,
  version: p.version,
  completion_badge_template_id: p.completion_badge_template_id,
  milestones: p.milestones.map((m) => ({ ...m, badge_template_ids: [...m.badge_template_ids] })),
  recommend_next: p.recommend_next,
  created_at: isoMillis(p.created_at),
  updated_at: isoMillis(p.updated_at),
  published_at: isoMillisOrNull(p.published_at),
});

/** One earner's progress on a pathway, against its current milestones. */
export const PathwayEarner = Type.Object({
  recipient_email: Type.String(),
  state: Type.Enum(PROGRESS_STATES),
  pathway_version: Type.Integer(),
  milestones: Type.Array(
    Type.Object({ name: Type.String(), held: Type.Integer(), required: Type.Integer(), done: Type.Boolean() }),
  ),
  milestones_done: Type.Integer(),
  held_badge_template_ids: Type.Array(Uuid),
  completed_at: Nullable(Time),
  completion_badge_id: Nullable(Uuid),
  updated_at: Time,
});
export type PathwayEarner = Static<typeof PathwayEarner>;

/** `completed` once the earner completed the pathway (kept when a later version adds milestones). */
export const pathwayEarnerJson = (pathway: PathwayRecord, r: PathwayProgressRecord): PathwayEarner => {
  const progress = pathwayProgress(pathway.milestones, r.held_template_ids);
  return {
    recipient_email: r.recipient_email,
    state: r.completed_at ? "completed" : "in_progress",
    pathway_version: pathway.version,
    milestones: progress.milestones.map((m, i) => ({ name: pathway.milestones[i]?.name ?? "", ...m })),
    milestones_done: progress.done,
    held_badge_template_ids: [...r.held_template_ids].sort(),
    completed_at: isoMillisOrNull(r.completed_at),
    completion_badge_id: r.completion_badge_id,
    updated_at: isoMillis(r.updated_at),
  };
};
