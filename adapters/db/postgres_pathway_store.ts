import {
  type AccountPathwayRow,
  type EARNER_LIST,
  type HeldRow,
  milestoneTemplateIds,
  type PATHWAY_LIST,
  type PathwayProgressRecord,
  type PathwayRecord,
  type PathwayShown,
  type PathwayStore,
  type PathwayTemplateRef,
  type PathwayTx,
} from "../../core/pathways/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import { type ListTable, listOrder, listWhere } from "./list_sql.ts";
import { PATHWAY_COLUMNS as COLUMNS, PATHWAY_COLUMNS, type PathwayRow, pathwayOf } from "./pathway_rows.ts";
import { placeholders, type Queryable, toDate, toDateOrNull, toJson, toNumber } from "./sql.ts";

type ProgressRow = Omit<PathwayProgressRecord, "held_template_ids" | "completed_at" | "updated_at"> & {
  held_template_ids: unknown;
  completed_at: Date | string | null;
  updated_at: Date | string;
};

const progressOf = (row: ProgressRow): PathwayProgressRecord => ({
  ...row,
  held_template_ids: toJson<string[]>(row.held_template_ids),
  completed_at: toDateOrNull(row.completed_at),
  updated_at: toDate(row.updated_at),
});

const LIST: ListTable<keyof typeof PATHWAY_LIST.filters, "created_at"> = {
  filters: { state: "p.state" },
  sorts: { created_at: "p.created_at" },
  id: "p.id",
};

const EARNERS: ListTable<keyof typeof EARNER_LIST.filters, "updated_at"> = {
  filters: {
    recipient_email: "g.recipient_email_key",
    state: (value) => {
      const states = value.kind === "values" ? value.values : [];
      const parts = states.map((s) => (s === "completed" ? "g.completed_at is not null" : "g.completed_at is null"));
      return parts.length === 0 ? "false" : `(${parts.join(" or ")})`;
    },
  },
  sorts: { updated_at: "g.updated_at" },
  id: "g.recipient_email_key",
};

/** The row's values in `COLUMNS` order, and the templates its milestones name (the index's column). */
const values = (p: PathwayRecord) => [
  p.id,
  p.organization_id,
  p.name,
  p.description,
  p.state,
  p.version,
  p.completion_badge_template_id,
  JSON.stringify(p.milestones),
  p.created_at,
  p.updated_at,
  p.published_at,
  p.recommend_next,
  JSON.stringify(milestoneTemplateIds(p.milestones)),
];

const tx = (q: Queryable): PathwayTx => ({
  async lock(organizationId, id) {
    const row = await q.one<PathwayRow>(
      `select ${COLUMNS} from pathways where organization_id = ? and id = ? for update`,
      [organizationId, id],
    );
    return row ? pathwayOf(row) : null;
  },
  async insert(p) {
    await q.run(
      `insert into pathways (${COLUMNS}, template_ids) values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::jsonb)`,
      values(p),
    );
  },
  async update(p) {
    const [id, , name, description, state, version, completion, milestones, , updatedAt, publishedAt, recommend, ids] =
      values(p);
    await q.run(
      `update pathways set name = ?, description = ?, state = ?, version = ?, completion_badge_template_id = ?,
         milestones = ?::jsonb, updated_at = ?, published_at = ?, recommend_next = ?, template_ids = ?::jsonb where id = ?`,
      [name, description, state, version, completion, milestones, updatedAt, publishedAt, recommend, ids, id],
    );
  },
  async delete(id) {
    await q.run("delete from pathways where id = ?", [id]);
  },
  async seedProgress(pathwayId, organizationId, templateIds, at) {
    if (templateIds.length === 0) return [];
    const rows = await q.all<{ recipient_email: string; recipient_email_key: string; held_template_ids: unknown }>(
      `insert into pathway_progress as g (pathway_id, recipient_email_key, recipient_email, held_template_ids, updated_at)
       select ?, b.recipient_email_key, min(b.recipient_email), jsonb_agg(distinct b.badge_template_id::text), ?
       from badges b
       where (b.organization_id = ? or b.issued_by_organization_id = ?) and b.state = 'accepted'
         and b.badge_template_id in (${placeholders(templateIds.length)})
       group by b.recipient_email_key
       on conflict (pathway_id, recipient_email_key) do update set
         held_template_ids = (select jsonb_agg(distinct x) from jsonb_array_elements_text(
           g.held_template_ids || excluded.held_template_ids) as x),
         updated_at = excluded.updated_at
       returning g.recipient_email, g.recipient_email_key, g.held_template_ids`,
      [pathwayId, at, organizationId, organizationId, ...templateIds],
    );
    return rows.map((row): HeldRow => ({ ...row, held_template_ids: toJson<string[]>(row.held_template_ids) }));
  },
  appendAudit: (entries) => appendAudit(q, entries),
});

const P_COLUMNS = PATHWAY_COLUMNS.split(",")
  .map((c) => `p.${c.trim()}`)
  .join(", ");

/** The templates the pathways name (milestones and completion), by pathway. */
const templatesOf = async (db: Database, pathways: readonly PathwayRecord[]): Promise<PathwayTemplateRef[]> => {
  const ids = [
    ...new Set(pathways.flatMap((p) => [...milestoneTemplateIds(p.milestones), p.completion_badge_template_id])),
  ];
  if (ids.length === 0) return [];
  return db.all<PathwayTemplateRef>(
    `select id, name, image, image_url from badge_templates where id in (${placeholders(ids.length)})`,
    ids,
  );
};

const shownOf = (
  p: PathwayRecord,
  organizationName: string,
  templates: readonly PathwayTemplateRef[],
): PathwayShown => {
  const named = new Set([...milestoneTemplateIds(p.milestones), p.completion_badge_template_id]);
  return { pathway: p, organization_name: organizationName, templates: templates.filter((t) => named.has(t.id)) };
};

/** Pathways and their earners' progress. */
export const postgresPathwayStore = (db: Database): PathwayStore => ({
  transaction: (work) => db.transaction((q) => work(tx(q))),
  async templates(organizationId, ids) {
    const grants = (
      await db.all<{ grantor_id: string; all_templates: boolean; badge_template_ids: unknown }>(
        `select grantor_id, all_templates, badge_template_ids from issuer_authorizations
         where issuer_id = ? and state = 'accepted'`,
        [organizationId],
      )
    ).map((g) => ({ ...g, state: "accepted" as const, badge_template_ids: toJson<string[]>(g.badge_template_ids) }));
    if (ids.length === 0) return { templates: new Map(), grants };
    const owners = [organizationId, ...new Set(grants.map((g) => g.grantor_id))];
    const rows = await db.all<{ id: string; state: string; organization_id: string }>(
      `select id, state, organization_id from badge_templates
       where organization_id in (${placeholders(owners.length)}) and id in (${placeholders(ids.length)})`,
      [...owners, ...ids],
    );
    return {
      templates: new Map(rows.map((r) => [r.id, { state: r.state, organization_id: r.organization_id }])),
      grants,
    };
  },
  async list(organizationId, query, page) {
    const where = listWhere(LIST, query, ["p.organization_id = ?"], [organizationId]);
    const [items, counted] = await Promise.all([
      db.all<PathwayRow>(
        `select ${COLUMNS} from pathways p where ${where.sql} order by ${listOrder(LIST, query.sort)} limit ? offset ?`,
        [...where.params, page.per, page.offset],
      ),
      db.one<{ n: string | number }>(`select count(*) as n from pathways p where ${where.sql}`, where.params),
    ]);
    return { items: items.map(pathwayOf), total: toNumber(counted?.n ?? 0) };
  },
  async get(organizationId, id) {
    const row = await db.one<PathwayRow>(`select ${COLUMNS} from pathways where organization_id = ? and id = ?`, [
      organizationId,
      id,
    ]);
    return row ? pathwayOf(row) : null;
  },
  async earners(pathwayId, query, page) {
    const where = listWhere(EARNERS, query, ["g.pathway_id = ?"], [pathwayId]);
    const [items, counted] = await Promise.all([
      db.all<ProgressRow>(
        `select g.pathway_id, g.recipient_email_key, g.recipient_email, g.held_template_ids, g.completed_at,
           g.completion_badge_id, g.updated_at
         from pathway_progress g where ${where.sql} order by ${listOrder(EARNERS, query.sort)} limit ? offset ?`,
        [...where.params, page.per, page.offset],
      ),
      db.one<{ n: string | number }>(`select count(*) as n from pathway_progress g where ${where.sql}`, where.params),
    ]);
    return { items: items.map(progressOf), total: toNumber(counted?.n ?? 0) };
  },
  async shown(id) {
    const row = await db.one<PathwayRow & { organization_name: string }>(
      `select ${P_COLUMNS}, o.name as organization_name from pathways p join organizations o on o.id = p.organization_id
       where p.id = ?`,
      [id],
    );
    if (!row) return null;
    const pathway = pathwayOf(row);
    return shownOf(pathway, row.organization_name, await templatesOf(db, [pathway]));
  },
  async forAccount(userId) {
    const rows = await db.all<
      PathwayRow & { organization_name: string; held_template_ids: unknown; completed_at: Date | string | null }
    >(
      `select ${P_COLUMNS}, o.name as organization_name, held.held_template_ids, held.completed_at
       from (select g.pathway_id, coalesce(jsonb_agg(distinct x.id) filter (where x.id is not null), '[]'::jsonb)
               as held_template_ids, min(g.completed_at) as completed_at
             from pathway_progress g left join lateral jsonb_array_elements_text(g.held_template_ids) as x(id) on true
             where g.recipient_email_key in (select e.email_key from user_emails e where e.user_id = ? and e.confirmed)
             group by g.pathway_id) held
         join pathways p on p.id = held.pathway_id and p.state = 'published'
         join organizations o on o.id = p.organization_id
       order by p.name, p.id limit 100`,
      [userId],
    );
    const pathways = rows.map(pathwayOf);
    const templates = await templatesOf(db, pathways);
    return rows.map(
      (row, i): AccountPathwayRow => ({
        ...shownOf(pathways[i] as PathwayRecord, row.organization_name, templates),
        held_template_ids: toJson<string[]>(row.held_template_ids),
        completed_at: toDateOrNull(row.completed_at),
      }),
    );
  },
});
