import type { IssuerAuthorizationStore, IssuerAuthorizationTx } from "../../core/issuer_authorizations/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import type { Int8, IssuerAuthorizationRow, IssuerAuthorizationViewRow } from "./rows.ts";
import { type Queryable, toNumber } from "./sql.ts";

const COLUMNS =
  "id, grantor_id, issuer_id, state, all_templates, badge_template_ids, created_at, updated_at, accepted_at, ended_at, ended_by";
/**
 * An authorization with both organizations' names and the grantor's templates it covers: all but
 * drafts when it covers every template, else those it names, by name.
 */
const VIEW = `select a.id, a.grantor_id, a.issuer_id, a.state, a.all_templates, a.badge_template_ids, a.created_at,
    a.updated_at, a.accepted_at, a.ended_at, a.ended_by, grantor.name as grantor_name, issuer.name as issuer_name,
    coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'state', t.state) order by lower(t.name), t.id)
      from badge_templates t where t.organization_id = a.grantor_id
        and case when a.all_templates then t.state <> 'draft'
          else a.badge_template_ids @> jsonb_build_array(t.id) end), '[]'::json) as badge_templates
  from issuer_authorizations a join organizations grantor on grantor.id = a.grantor_id
    join organizations issuer on issuer.id = a.issuer_id`;

const tx = (q: Queryable): IssuerAuthorizationTx => ({
  lock: async (id) =>
    (await q.one<IssuerAuthorizationRow>(`select ${COLUMNS} from issuer_authorizations where id = ? for update`, [
      id,
    ])) ?? null,
  async insertIfNoneLive(a) {
    // The partial unique index on live authorizations is the check: a second one inserts nothing.
    const written = await q.run(
      `insert into issuer_authorizations (${COLUMNS}) values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?) on conflict do nothing`,
      [
        a.id,
        a.grantor_id,
        a.issuer_id,
        a.state,
        a.all_templates,
        JSON.stringify(a.badge_template_ids),
        a.created_at,
        a.updated_at,
        a.accepted_at,
        a.ended_at,
        a.ended_by,
      ],
    );
    return written > 0;
  },
  async update(a) {
    await q.run(
      "update issuer_authorizations set state = ?, updated_at = ?, accepted_at = ?, ended_at = ?, ended_by = ? where id = ?",
      [a.state, a.updated_at, a.accepted_at, a.ended_at, a.ended_by, a.id],
    );
  },
  appendAudit: (entries) => appendAudit(q, entries),
});

/** Authorized issuers: the authorizations between organizations, read with both names and the templates covered. */
export const postgresIssuerAuthorizationStore = (db: Database): IssuerAuthorizationStore => ({
  transaction: (work) => db.transaction((q) => work(tx(q))),
  get: async (id) => (await db.one<IssuerAuthorizationViewRow>(`${VIEW} where a.id = ?`, [id])) ?? null,
  async list(organizationId, side, page, options = {}) {
    const column = side === "grantor" ? "grantor_id" : "issuer_id";
    const live = options.liveOnly ? " and a.state in ('pending', 'accepted')" : "";
    const items = await db.all<IssuerAuthorizationViewRow>(
      `${VIEW} where a.${column} = ?${live} order by a.created_at desc, a.id desc limit ? offset ?`,
      [organizationId, page.per, page.offset],
    );
    const count = await db.one<{ n: Int8 }>(
      `select count(*) as n from issuer_authorizations a where a.${column} = ?${live}`,
      [organizationId],
    );
    return { items, total: toNumber(count?.n ?? 0) };
  },
  async organizationExists(id) {
    return (await db.one<{ id: string }>("select id from organizations where id = ?", [id])) !== undefined;
  },
  async foreignTemplates(organizationId, ids) {
    const found = await db.all<{ id: string }>(
      `select t.id from badge_templates t
       where t.organization_id = ? and t.id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
      [organizationId, JSON.stringify(ids)],
    );
    const mine = new Set(found.map((r) => r.id));
    return ids.filter((id) => !mine.has(id));
  },
});
