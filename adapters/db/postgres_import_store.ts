import type { FieldError } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import {
  endState,
  type ImportRecord,
  type ImportRow,
  type ImportStore,
  type ImportTx,
  type IssueTarget,
  type RowOutcome,
  rowKey,
  type TargetFacts,
} from "../../core/imports/mod.ts";
import type { IssueWrites } from "../../core/issuing/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import { LIVE } from "./badge_rows.ts";
import type { Database } from "./database.ts";
import { groupedIssueWrites } from "./grouped_issues.ts";
import { postgresBadgeTx } from "./postgres_badge_tx.ts";
import { employeeStoreWithin } from "./postgres_employee_store.ts";
import { appendEvents } from "./postgres_event_log.ts";
import type { BadgeTemplateRow, ImportJobRow, ImportLineRow } from "./rows.ts";
import { arrayLiteral, type Queryable, toJson } from "./sql.ts";

const COLUMNS = [
  "id",
  "organization_id",
  "kind",
  "state",
  "file_sha256",
  "file_name",
  "row_count",
  "invalid_count",
  "done_count",
  "failed_count",
  "repeat_of",
  "created_at",
  "started_at",
  "finished_at",
] as const;
const SELECT = COLUMNS.map((c) => `i.${c}`).join(", ");

const recordOf = (r: ImportJobRow): ImportRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  kind: r.kind,
  state: r.state,
  file_sha256: r.file_sha256,
  file_name: r.file_name,
  row_count: r.row_count,
  invalid_count: r.invalid_count,
  done_count: r.done_count,
  failed_count: r.failed_count,
  repeat_of: r.repeat_of ?? null,
  created_at: r.created_at,
  started_at: r.started_at,
  finished_at: r.finished_at,
});

const rowOf = (r: Omit<ImportLineRow, "import_id">): ImportRow => ({
  row: r.row_no,
  status: r.status,
  item: toJson(r.item),
  outcome_id: r.outcome_id ?? null,
  detail: r.detail ?? null,
  errors: r.errors === null || r.errors === undefined ? [] : toJson(r.errors),
});

/** Rows per insert statement: a 100,000-row file goes in a few dozen statements, each a bounded parameter. */
const INSERT_ROWS = 5000;

/**
 * Outcomes, then the import's counts; the import ends in the same statement when its counts show
 * no row left pending (a worker's chunk and another's may finish it in either order).
 */
const record = async (q: Queryable, importId: string, outcomes: RowOutcome[], now: Date): Promise<void> => {
  if (outcomes.length === 0) return;
  await q.run(
    `update import_rows r set status = o.status, outcome_id = o.outcome_id, detail = o.detail, errors = o.errors
     from jsonb_to_recordset(?::jsonb) as o(row_no int, status text, outcome_id uuid, detail text, errors jsonb)
     where r.import_id = ? and r.row_no = o.row_no and r.status = 'pending'`,
    [
      JSON.stringify(
        outcomes.map((o) => ({
          row_no: o.row,
          status: o.status,
          outcome_id: o.outcome_id,
          detail: o.detail,
          errors: o.errors.length > 0 ? o.errors : null,
        })),
      ),
      importId,
    ],
  );
  const done = outcomes.filter((o) => o.status === "done").length;
  const failed = outcomes.length - done;
  await q.run(
    `update imports set done_count = done_count + ?, failed_count = failed_count + ?,
       state = case when done_count + ? + failed_count + ? + invalid_count >= row_count
         then (case when done_count + ? > 0 then ? else ? end) else state end,
       finished_at = case when done_count + ? + failed_count + ? + invalid_count >= row_count then ? else finished_at end
     where id = ?`,
    [done, failed, done, failed, done, endState(1), endState(0), done, failed, now, importId],
  );
};

/**
 * What the organization holds of many issue targets, in one statement: each target's template
 * (nulls when the organization has none of that id) and whether a live badge of it went to the
 * recipient, probed on the recipient's index as issuing's own look-up does.
 */
const targetFacts = async (q: Queryable, organizationId: string, targets: IssueTarget[]): Promise<TargetFacts[]> => {
  if (targets.length === 0) return [];
  // Another organization's template comes with the importer's accepted authorizations by its owner.
  const found = await q.all<
    IssueTarget &
      Pick<BadgeTemplateRow, "state" | "allow_duplicate_badges"> &
      Pick<TargetFacts, "grants"> & { held: boolean; own: boolean | null }
  >(
    `select p.template, p.key, t.state, t.allow_duplicate_badges, t.organization_id = ? as own,
       case when t.organization_id <> ? then coalesce((select json_agg(json_build_object('state', a.state,
           'all_templates', a.all_templates, 'badge_template_ids', a.badge_template_ids))
         from issuer_authorizations a where a.issuer_id = ? and a.grantor_id = t.organization_id
           and a.state = 'accepted'), '[]'::json) else '[]'::json end as grants,
       t.id is not null and exists (select 1 from badges b
         where b.recipient_email_key = p.key and b.badge_template_id = t.id and b.state in (${LIVE})) as held
     from jsonb_to_recordset(?::jsonb) as p(template uuid, key text)
     left join badge_templates t on t.id = p.template`,
    [organizationId, organizationId, organizationId, JSON.stringify(targets)],
  );
  return found.map((f) => ({
    template: f.template,
    key: f.key,
    state: f.state ?? null,
    allow_duplicate_badges: f.allow_duplicate_badges === true,
    held: f.held === true,
    own: f.own === true,
    grants: f.grants ?? [],
  }));
};

/** Imports and their rows, read by the pages and the API, worked by the workers. */
export const postgresImportStore = (db: Database): ImportStore => {
  const txOf = (q: Queryable): ImportTx => {
    const single: IssueWrites & { appendEvents(events: EventRecord[]): Promise<void> } = {
      issueLookup: (o, t, k) => postgresBadgeTx(q).issueLookup(o, t, k),
      insertBadge: (badge, key, exclusive, events, mails) =>
        postgresBadgeTx(q).insertBadge(badge, key, exclusive, events, mails),
      grantsFor: (issuerId, templateId) => postgresBadgeTx(q).grantsFor(issuerId, templateId),
      // The import's chunk is a transaction already: an issue on another's behalf joins it.
      inTransaction: (work) => work(postgresBadgeTx(q)),
      appendEvents: (events) => appendEvents(q, events),
    };
    return {
      issueWrites: groupedIssueWrites(q, single),
      employees: employeeStoreWithin(db, q),
      record: (importId, outcomes, now) => record(q, importId, outcomes, now),
    };
  };
  return {
    create: (reading, fill, audit) =>
      db.transaction(async (q) => {
        await q.run(
          `insert into imports (${COLUMNS.join(", ")}) values (${COLUMNS.map(() => "?").join(", ")})`,
          COLUMNS.map((c) => reading[c]),
        );
        const rec = await fill({
          async write(rows) {
            for (let i = 0; i < rows.length; i += INSERT_ROWS) {
              const slice = rows.slice(i, i + INSERT_ROWS).map((r) => ({
                row_no: r.row,
                status: r.errors.length > 0 ? "invalid" : "pending",
                item: r.item,
                errors: r.errors.length > 0 ? r.errors : null,
              }));
              await q.run(
                `insert into import_rows (import_id, row_no, status, item, errors)
                 select ?, x.row_no, x.status, x.item, x.errors
                 from jsonb_to_recordset(?::jsonb) as x(row_no int, status text, item jsonb, errors jsonb)`,
                [reading.id, JSON.stringify(slice)],
              );
            }
          },
          facts: (targets) => targetFacts(q, reading.organization_id, targets),
          async refuse(refusals) {
            for (let i = 0; i < refusals.length; i += INSERT_ROWS)
              await q.run(
                `update import_rows r set status = 'invalid', errors = x.errors
                 from jsonb_to_recordset(?::jsonb) as x(row_no int, errors jsonb)
                 where r.import_id = ? and r.row_no = x.row_no`,
                [
                  JSON.stringify(refusals.slice(i, i + INSERT_ROWS).map((r) => ({ row_no: r.row, errors: r.errors }))),
                  reading.id,
                ],
              );
          },
        });
        await q.run(
          `update imports set state = ?, row_count = ?, invalid_count = ?, started_at = ?, finished_at = ? where id = ?`,
          [rec.state, rec.row_count, rec.invalid_count, rec.started_at, rec.finished_at, reading.id],
        );
        await appendAudit(q, audit(rec));
        return rec;
      }),
    facts: (organizationId, targets) => targetFacts(db, organizationId, targets),
    async sameFile(organizationId, kind, sha256) {
      const row = await db.one<ImportJobRow>(
        `select ${SELECT} from imports i where i.organization_id = ? and i.kind = ? and i.file_sha256 = ?
         order by i.created_at desc limit 1`,
        [organizationId, kind, sha256],
      );
      return row ? recordOf(row) : null;
    },
    async get(organizationId, id) {
      const row = await db.one<ImportJobRow>(
        `select ${SELECT} from imports i where i.id = ? and i.organization_id = ?`,
        [id, organizationId],
      );
      return row ? recordOf(row) : null;
    },
    async list(organizationId, limit) {
      const rows = await db.all<ImportJobRow>(
        `select ${SELECT} from imports i where i.organization_id = ? order by i.created_at desc, i.id desc limit ?`,
        [organizationId, limit],
      );
      return rows.map(recordOf);
    },
    async problems(importId, limit) {
      const rows = await db.all<Pick<ImportLineRow, "row_no" | "item"> & FieldError>(
        `select r.row_no, r.item, e.field, e.message
         from import_rows r, jsonb_to_recordset(r.errors) as e(field text, message text)
         where r.import_id = ? and r.status in ('invalid', 'failed') order by r.row_no limit ?`,
        [importId, limit],
      );
      return rows.map((r) => ({ row: r.row_no, field: r.field, message: r.message, key: rowKey(toJson(r.item)) }));
    },
    // Rows that passed the check name a template of the organization or of one it issues for.
    async templates(importId) {
      const found = await db.all<
        Pick<BadgeTemplateRow, "id"> & { name: string | null; rows: number; notifying: number }
      >(
        `select x.id, t.name, x.rows, x.notifying from (
           select (r.item->>'badge_template_id')::uuid as id, count(*)::int as rows,
             (count(*) filter (where not coalesce((r.item->>'suppress_badge_notification_email')::boolean, false)))::int
               as notifying
           from import_rows r where r.import_id = ? and r.status <> 'invalid' group by 1
         ) x join imports i on i.id = ?
         left join badge_templates t on t.id = x.id
         order by x.rows desc, t.name`,
        [importId, importId],
      );
      return found.map((f) => ({ id: f.id, name: f.name ?? null, rows: f.rows, notifying: f.notifying }));
    },
    async rows(importId, afterRow, limit) {
      const rows = await db.all<Omit<ImportLineRow, "import_id">>(
        `select row_no, status, item, outcome_id, detail, errors from import_rows
         where import_id = ? and row_no > ? order by row_no limit ?`,
        [importId, afterRow, limit],
      );
      return rows.map(rowOf);
    },
    start: (organizationId, id, now, audit) =>
      db.transaction(async (q) => {
        const row = await q.one<ImportJobRow>(
          `update imports i set state = case when i.invalid_count >= i.row_count then 'failed' else 'running' end,
             started_at = ?::timestamptz,
             finished_at = case when i.invalid_count >= i.row_count then ?::timestamptz else null end
           where i.id = ? and i.organization_id = ? and i.state = 'ready' returning ${SELECT}`,
          [now, now, id, organizationId],
        );
        if (!row) return null;
        await appendAudit(q, audit);
        return recordOf(row);
      }),
    async pending(limit) {
      // Oldest running import first, so imports finish in the order they were started. The rows
      // are locked only for this statement: it skips rows a worker's transaction holds now.
      for (const imp of await db.all<ImportJobRow>(
        `select ${SELECT} from imports i where i.state = 'running' order by i.started_at, i.id limit 5`,
      )) {
        const rows = await db.all<Pick<ImportLineRow, "row_no" | "item">>(
          `select row_no, item from import_rows where import_id = ? and status = 'pending'
           order by row_no limit ? for update skip locked`,
          [imp.id, limit],
        );
        if (rows.length > 0)
          return {
            record: recordOf(imp),
            rows: rows.map((r) => ({ row: r.row_no, item: toJson(r.item) })),
          };
      }
      return null;
    },
    claim: (importId, rows, work) =>
      db.transaction(async (q) => {
        const claimed = await q.all<Pick<ImportLineRow, "row_no" | "item">>(
          `select row_no, item from import_rows where import_id = ? and row_no = any(?::int[]) and status = 'pending'
           order by row_no for update skip locked`,
          [importId, arrayLiteral(rows)],
        );
        return work(
          claimed.map((r) => ({ row: r.row_no, item: toJson(r.item) })),
          txOf(q),
        );
      }),
    fail: (importId, outcome, now) => db.transaction((q) => record(q, importId, [outcome], now)),
  };
};
