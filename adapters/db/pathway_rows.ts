import type { PathwayStep, UncompletedStep } from "../../core/issuing/mod.ts";
import type { Milestone, PathwayRecord, PathwayState } from "../../core/pathways/mod.ts";
import type { RecommendationRecord } from "../../core/recommendations/mod.ts";
import { type Queryable, toDate, toDateOrNull, toJson, toNumber } from "./sql.ts";

/**
 * The pathway rows the pathway store and the badge transaction share: a pathway's columns, and
 * the two writes that keep an earner's progress as their badges change.
 */
export const PATHWAY_COLUMNS = `id, organization_id, name, description, state, version, completion_badge_template_id,
  milestones, created_at, updated_at, published_at, recommend_next`;

export type PathwayRow = {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  state: PathwayState;
  version: number | string;
  completion_badge_template_id: string;
  milestones: unknown;
  created_at: Date | string;
  updated_at: Date | string;
  published_at: Date | string | null;
  recommend_next: boolean;
};

export const pathwayOf = (row: PathwayRow): PathwayRecord => ({
  id: row.id,
  organization_id: row.organization_id,
  name: row.name,
  description: row.description,
  state: row.state,
  version: toNumber(row.version),
  completion_badge_template_id: row.completion_badge_template_id,
  milestones: toJson<Milestone[]>(row.milestones),
  created_at: toDate(row.created_at),
  updated_at: toDate(row.updated_at),
  published_at: toDateOrNull(row.published_at),
  recommend_next: row.recommend_next === true,
});

const P_COLUMNS = PATHWAY_COLUMNS.split(",")
  .map((c) => `p.${c.trim()}`)
  .join(", ");

type StepRow = PathwayRow & { held_template_ids: unknown; completed_at: Date | string | null };

const stepOf = (row: StepRow): PathwayStep => ({
  pathway: pathwayOf(row),
  held_template_ids: toJson<string[]>(row.held_template_ids),
  completed_at: toDateOrNull(row.completed_at),
});

/** The one or two organizations a badge counts for (core's `countsFor`), as two placeholders' values. */
const twoOrganizations = (countsFor: readonly string[]): [string, string] => {
  const [owner, issuer] = countsFor;
  if (!owner) throw new Error("a badge counts for its organization at least");
  return [owner, issuer ?? owner];
};

/**
 * The recipient now holds the template (a badge of it accepted): added to their progress on every
 * published pathway naming it of the organizations the badge counts for, the missing rows made, in
 * pathway order (rows locked in one order, so two changes of one recipient's badges wait for each
 * other rather than deadlock).
 */
export const holdTemplate = async (
  q: Queryable,
  templateId: string,
  recipientKey: string,
  recipientEmail: string,
  at: Date,
  countsFor: readonly string[],
): Promise<PathwayStep[]> => {
  const rows = await q.all<StepRow>(
    `with touched as (
       insert into pathway_progress as g (pathway_id, recipient_email_key, recipient_email, held_template_ids, updated_at)
       select p.id, ?, ?, jsonb_build_array(?::text), ?
       from pathways p where p.state = 'published' and p.template_ids @> jsonb_build_array(?::text)
         and p.organization_id in (?, ?)
       order by p.id
       on conflict (pathway_id, recipient_email_key) do update set
         held_template_ids = case when g.held_template_ids @> excluded.held_template_ids then g.held_template_ids
           else g.held_template_ids || excluded.held_template_ids end,
         updated_at = excluded.updated_at
       returning g.pathway_id, g.held_template_ids, g.completed_at)
     select ${P_COLUMNS}, t.held_template_ids, t.completed_at
     from touched t join pathways p on p.id = t.pathway_id order by p.id`,
    [recipientKey, recipientEmail, templateId, at, templateId, ...twoOrganizations(countsFor)],
  );
  return rows.map(stepOf);
};

/**
 * The recipient no longer holds the template (its accepted badge revoked, replaced or deleted):
 * removed from their progress on every published pathway naming it of the organizations the badge
 * counted for, where no other accepted badge of it that counts for the pathway's organization is
 * theirs; the rows locked in pathway order first.
 */
export const releaseTemplate = async (
  q: Queryable,
  templateId: string,
  recipientKey: string,
  at: Date,
  countsFor: readonly string[],
): Promise<void> => {
  await q.run(
    `with locked as (
       select g.pathway_id from pathway_progress g join pathways p on p.id = g.pathway_id
       where g.recipient_email_key = ? and p.state = 'published' and p.template_ids @> jsonb_build_array(?::text)
         and p.organization_id in (?, ?)
         and g.held_template_ids @> jsonb_build_array(?::text)
         and not exists (select 1 from badges b where b.badge_template_id = ? and b.recipient_email_key = ?
           and b.state = 'accepted'
           and (b.organization_id = p.organization_id or b.issued_by_organization_id = p.organization_id))
       order by g.pathway_id for update of g)
     update pathway_progress g set held_template_ids = g.held_template_ids - ?::text, updated_at = ?
     from locked l where g.pathway_id = l.pathway_id and g.recipient_email_key = ?`,
    [
      recipientKey,
      templateId,
      ...twoOrganizations(countsFor),
      templateId,
      templateId,
      recipientKey,
      templateId,
      at,
      recipientKey,
    ],
  );
};

type UncompletedRow = StepRow & {
  recipient_key: string;
  recipient_email: string;
  issued_to_first_name: string;
  issued_to_middle_name: string | null;
  issued_to_last_name: string;
  locale: string | null;
};

/**
 * The pathway's progress rows not completed, locked in address order, each with the names of the
 * earner's latest accepted badge of one of its templates that counts for its organization (whom a
 * completion badge names).
 */
export const uncompletedProgress = async (q: Queryable, pathwayId: string): Promise<UncompletedStep[]> => {
  const rows = await q.all<UncompletedRow>(
    `select ${P_COLUMNS}, g.held_template_ids, g.completed_at, g.recipient_email_key as recipient_key,
       h.recipient_email, h.issued_to_first_name, h.issued_to_middle_name, h.issued_to_last_name, h.locale
     from pathway_progress g join pathways p on p.id = g.pathway_id
       join lateral (select b.recipient_email, b.issued_to_first_name, b.issued_to_middle_name, b.issued_to_last_name,
           b.locale from badges b
         where b.recipient_email_key = g.recipient_email_key and b.state = 'accepted'
           and p.template_ids @> jsonb_build_array(b.badge_template_id::text)
           and (b.organization_id = p.organization_id or b.issued_by_organization_id = p.organization_id)
         order by b.state_updated_at desc, b.id desc limit 1) h on true
     where g.pathway_id = ? and p.state = 'published' and g.completed_at is null
     order by g.recipient_email_key
     for update of g`,
    [pathwayId],
  );
  return rows.map((row) => ({
    ...stepOf(row),
    recipient_key: row.recipient_key,
    holder: {
      recipient_email: row.recipient_email,
      issued_to_first_name: row.issued_to_first_name,
      issued_to_middle_name: row.issued_to_middle_name,
      issued_to_last_name: row.issued_to_last_name,
      locale: row.locale,
    },
  }));
};

/**
 * A pathway's recommendations of its next milestone's templates: written where the template is
 * the organization's and active and no recommendation of it to the address is (the unique index
 * of recommendations), in template order; the others skipped.
 */
export const recommendTemplates = async (q: Queryable, records: readonly RecommendationRecord[]): Promise<void> => {
  if (records.length === 0) return;
  await q.run(
    `insert into recommendations (id, organization_id, badge_template_id, recipient_email, recipient_email_key,
       employee_id, message, created_at, dismissed_at, notified_at)
     select x.id, x.organization_id, x.badge_template_id, x.recipient_email, x.recipient_email_key,
       null, null, x.created_at, null, null
     from jsonb_to_recordset(?::jsonb) as x(id uuid, organization_id uuid, badge_template_id uuid,
       recipient_email text, recipient_email_key text, created_at timestamptz)
     join badge_templates t on t.id = x.badge_template_id and t.organization_id = x.organization_id and t.state = 'active'
     order by x.badge_template_id, x.recipient_email_key
     on conflict (organization_id, badge_template_id, recipient_email_key) do nothing`,
    [JSON.stringify(records)],
  );
};

/** Records the completion (and its badge, when one was issued) unless one is recorded; false then. */
export const recordCompletion = async (
  q: Queryable,
  pathwayId: string,
  recipientKey: string,
  badgeId: string | null,
  at: Date,
): Promise<boolean> => {
  const changed = await q.run(
    `update pathway_progress set completed_at = ?, completion_badge_id = ?, updated_at = ?
     where pathway_id = ? and recipient_email_key = ? and completed_at is null`,
    [at, badgeId, at, pathwayId, recipientKey],
  );
  return changed > 0;
};
