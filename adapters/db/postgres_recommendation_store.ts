import { LIVE_BADGE_STATES } from "../../core/badges/mod.ts";
import type {
  RECOMMENDATION_LIST,
  RecommendationRecord,
  RecommendationStore,
  RecommendationTx,
  RecommendationView,
} from "../../core/recommendations/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import { type ListTable, listOrder, listWhere } from "./list_sql.ts";
import { enqueueMails } from "./postgres_mail_outbox.ts";
import { placeholders, type Queryable, toDate, toDateOrNull, toNumber } from "./sql.ts";

const COLUMNS = [
  "id",
  "organization_id",
  "badge_template_id",
  "recipient_email",
  "recipient_email_key",
  "employee_id",
  "message",
  "created_at",
  "dismissed_at",
  "notified_at",
] as const;

/**
 * The first issue of a live badge (core's `LIVE_BADGE_STATES`) of the template to the address: the
 * fact core's `recommendationState` reads as fulfilled. `?` is the live states.
 */
const FULFILLED_AT = `(select min(b.issued_at) from badges b
  where b.badge_template_id = r.badge_template_id and b.recipient_email_key = r.recipient_email_key
    and b.state = any(?::text[]))`;

const VIEW = `select r.id, r.organization_id, r.badge_template_id, r.recipient_email, r.recipient_email_key,
    r.employee_id, r.message, r.created_at, r.dismissed_at, r.notified_at, o.name as organization_name,
    t.name as badge_template_name, t.description as badge_template_description, t.image as badge_template_image,
    t.image_url as badge_template_image_url, t.criteria_url as badge_template_criteria_url,
    ${FULFILLED_AT} as fulfilled_at
  from recommendations r join badge_templates t on t.id = r.badge_template_id
    join organizations o on o.id = r.organization_id`;

type ViewRow = Omit<RecommendationView, "created_at" | "dismissed_at" | "notified_at" | "fulfilled_at"> & {
  created_at: Date | string;
  dismissed_at: Date | string | null;
  notified_at: Date | string | null;
  fulfilled_at: Date | string | null;
};

const viewOf = (row: ViewRow): RecommendationView => ({
  ...row,
  created_at: toDate(row.created_at),
  dismissed_at: toDateOrNull(row.dismissed_at),
  notified_at: toDateOrNull(row.notified_at),
  fulfilled_at: toDateOrNull(row.fulfilled_at),
});

const LIVE = [...LIVE_BADGE_STATES];

/**
 * The list's keys in SQL. `state` reads core's rule (`recommendationState`) off the same two facts
 * the view carries: fulfilled when a live badge exists, else dismissed when dismissed, else open.
 */
const LIST: ListTable<keyof typeof RECOMMENDATION_LIST.filters, "created_at"> = {
  filters: {
    badge_template_id: "r.badge_template_id",
    recipient_email: "r.recipient_email_key",
    employee_id: "r.employee_id",
    state: (value, params) => {
      const states = value.kind === "values" ? value.values : [];
      const exists = `exists (select 1 from badges b where b.badge_template_id = r.badge_template_id
        and b.recipient_email_key = r.recipient_email_key and b.state = any(?::text[]))`;
      const parts = states.map((state) => {
        params.push(LIVE);
        if (state === "fulfilled") return exists;
        return state === "dismissed"
          ? `(not ${exists} and r.dismissed_at is not null)`
          : `(not ${exists} and r.dismissed_at is null)`;
      });
      return parts.length === 0 ? "false" : `(${parts.join(" or ")})`;
    },
  },
  sorts: { created_at: "r.created_at" },
  id: "r.id",
};

const tx = (q: Queryable): RecommendationTx => ({
  async insertNew(records: readonly RecommendationRecord[]) {
    if (records.length === 0) return new Set<string>();
    const rows = await q.all<{ id: string }>(
      `insert into recommendations (${COLUMNS.join(", ")})
       select x.* from jsonb_to_recordset(?::jsonb) as x(id uuid, organization_id uuid, badge_template_id uuid,
         recipient_email text, recipient_email_key text, employee_id uuid, message text, created_at timestamptz,
         dismissed_at timestamptz, notified_at timestamptz)
       on conflict (organization_id, badge_template_id, recipient_email_key) do nothing returning id`,
      [JSON.stringify(records)],
    );
    return new Set(rows.map((r) => r.id));
  },
  enqueueMails: (mails) => enqueueMails(q, mails),
  appendAudit: (entries) => appendAudit(q, entries),
});

/** Recommendations, read with their template, their organization and whether they are fulfilled. */
export const postgresRecommendationStore = (db: Database): RecommendationStore => ({
  transaction: (work) => db.transaction((q) => work(tx(q))),
  async targets(organizationId, templateIds, employeeIds) {
    const [templates, employees, organization] = await Promise.all([
      templateIds.length === 0
        ? []
        : db.all<{
            id: string;
            state: string;
            name: string;
            description: string;
            image: string | null;
            image_url: string | null;
          }>(
            `select id, state, name, description, image, image_url from badge_templates
             where organization_id = ? and id in (${placeholders(templateIds.length)})`,
            [organizationId, ...templateIds],
          ),
      employeeIds.length === 0
        ? []
        : db.all<{ id: string; email: string; first_name: string }>(
            `select id, email, first_name from employees
             where organization_id = ? and id in (${placeholders(employeeIds.length)})`,
            [organizationId, ...employeeIds],
          ),
      db.one<{ name: string }>("select name from organizations where id = ?", [organizationId]),
    ]);
    return {
      templates: new Map(templates.map(({ id, ...t }) => [id, t])),
      employees: new Map(employees.map(({ id, ...e }) => [id, e])),
      organization_name: organization?.name ?? "",
    };
  },
  async list(organizationId, query, page) {
    const where = listWhere(LIST, query, ["r.organization_id = ?"], [organizationId]);
    const [items, counted] = await Promise.all([
      db.all<ViewRow>(`${VIEW} where ${where.sql} order by ${listOrder(LIST, query.sort)} limit ? offset ?`, [
        LIVE,
        ...where.params,
        page.per,
        page.offset,
      ]),
      db.one<{ n: string | number }>(`select count(*) as n from recommendations r where ${where.sql}`, where.params),
    ]);
    return { items: items.map(viewOf), total: toNumber(counted?.n ?? 0) };
  },
  async get(organizationId, id) {
    const row = await db.one<ViewRow>(`${VIEW} where r.organization_id = ? and r.id = ?`, [LIVE, organizationId, id]);
    return row ? viewOf(row) : null;
  },
  delete: (organizationId, id, audit) =>
    db.transaction(async (q) => {
      const gone = await q.run("delete from recommendations where organization_id = ? and id = ?", [
        organizationId,
        id,
      ]);
      if (gone === 0) return false;
      await appendAudit(q, [audit]);
      return true;
    }),
  async forAccount(userId) {
    const rows = await db.all<ViewRow>(
      `${VIEW} where r.recipient_email_key in (select e.email_key from user_emails e where e.user_id = ? and e.confirmed)
         and r.dismissed_at is null and t.state = 'active' and ${FULFILLED_AT} is null
       order by r.created_at desc, r.id desc limit 100`,
      [LIVE, userId, LIVE],
    );
    return rows.map(viewOf);
  },
  async dismiss(userId, id, at) {
    const changed = await db.run(
      `update recommendations set dismissed_at = coalesce(dismissed_at, ?)
       where id = ? and recipient_email_key in (select e.email_key from user_emails e where e.user_id = ? and e.confirmed)`,
      [at, id, userId],
    );
    return changed > 0;
  },
});
