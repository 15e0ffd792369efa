import { checkBatchItems, checkIssuedAtNotFuture, normalizeEmail } from "../badges/mod.ts";
import { type FieldError, resultOf } from "../errors/mod.ts";
import {
  employeeItemErrors,
  NULLABLE_FIELDS,
  REQUIRED_COLUMNS,
  TEXT_FIELDS,
  tableColumnProblems,
  tableRowItem,
} from "../workforce/mod.ts";
import type { IssueTarget } from "./issue_check.ts";

/** What an import creates: badges (issued), or employee records (created or updated by `external_id`). */
export const IMPORT_KINDS = ["badges", "employees"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export const isImportKind = (v: unknown): v is ImportKind => v === "badges" || v === "employees";

/**
 * The columns of a badge import: the issue body's field names, `evidence_url` for one evidence
 * link. `badge_template_id` may be left out when the file's template is chosen with the upload;
 * a row's own id wins, so one file may mix templates.
 */
export const BADGE_REQUIRED_COLUMNS = [
  "recipient_email",
  "issued_to_first_name",
  "issued_to_last_name",
  "issued_at",
] as const;
export const BADGE_OPTIONAL_COLUMNS = [
  "badge_template_id",
  "issued_to_middle_name",
  "expires_at",
  "evidence_url",
  "evidence_name",
  "issuer_earner_id",
  "locale",
  "suppress_badge_notification_email",
] as const;

export const COLUMNS: Record<ImportKind, { required: readonly string[]; optional: readonly string[] }> = {
  badges: { required: BADGE_REQUIRED_COLUMNS, optional: BADGE_OPTIONAL_COLUMNS },
  employees: { required: REQUIRED_COLUMNS, optional: [...TEXT_FIELDS, ...NULLABLE_FIELDS] },
};

const BADGE_KNOWN: ReadonlySet<string> = new Set([...BADGE_REQUIRED_COLUMNS, ...BADGE_OPTIONAL_COLUMNS]);

/** A header's columns that are no field and the required ones it lacks; duplicates count as unknown. */
export const headerProblems = (kind: ImportKind, columns: readonly string[]): FieldError[] => {
  const problems =
    kind === "employees"
      ? tableColumnProblems(columns)
      : {
          unknown: columns.filter((c) => !BADGE_KNOWN.has(c)),
          missing: BADGE_REQUIRED_COLUMNS.filter((c) => !columns.includes(c)),
        };
  const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
  return [
    ...problems.unknown.map((c) => ({ field: c, message: "is not a column of this import" })),
    ...problems.missing.map((c) => ({ field: c, message: "is a required column and is missing" })),
    ...repeated.map((c) => ({ field: c, message: "appears more than once in the header" })),
  ];
};

const TRUE = new Set(["true", "yes", "1"]);
const FALSE = new Set(["false", "no", "0", ""]);

/**
 * One row of a badge import as the body of a single issue: empty optional cells are left out,
 * `evidence_url` becomes one `UrlEvidence` named by `evidence_name` (or the address itself).
 */
const badgeItem = (columns: readonly string[], cells: readonly string[]): { item: object; errors: FieldError[] } => {
  const item: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  let evidence: string | undefined;
  let evidenceName: string | undefined;
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i] as string;
    const v = cells[i] ?? "";
    if (c === "evidence_url") evidence = v;
    else if (c === "evidence_name") evidenceName = v;
    else if (c === "suppress_badge_notification_email") {
      const lower = v.toLowerCase();
      if (TRUE.has(lower)) item[c] = true;
      else if (FALSE.has(lower)) item[c] = false;
      else errors.push({ field: c, message: "must be true or false" });
    } else if (v !== "" || BADGE_REQUIRED_COLUMNS.some((r) => r === c)) item[c] = v;
  }
  if (evidence) item.evidence = [{ type: "UrlEvidence", name: evidenceName || evidence, value: evidence }];
  return { item, errors };
};

/** A field path of the issue body as the column it came from. */
const badgeColumnOf = (field: string): string => {
  if (field.startsWith("evidence.0.name")) return "evidence_name";
  if (field.startsWith("evidence")) return "evidence_url";
  return field === "body" ? "row" : field;
};

const employeeColumnOf = (field: string): string => (field === "body" ? "row" : field);

/** A row of the file: its number (1 is the first line under the header) and its cells. */
export interface ImportInputRow {
  row: number;
  cells: readonly string[];
}

/** A row checked: the item it is (the API's body) and its problems by column (none: it will be issued). */
export interface CheckedRow {
  row: number;
  item: Record<string, unknown>;
  errors: FieldError[];
  /** A valid badge row's template and recipient, checked against the organization once the file is read. */
  target?: IssueTarget;
}

const NO_TEMPLATE: FieldError = {
  field: "badge_template_id",
  message: "is missing: choose a template for the file, or name one in this column",
};

const cellCount = (columns: readonly string[], r: ImportInputRow): FieldError[] =>
  r.cells.length === columns.length
    ? []
    : [{ field: "row", message: `has ${r.cells.length} cells where the header has ${columns.length}` }];

/**
 * A checker of one file's rows, one at a time (a large file is checked as it is read, never held
 * as cells and items at once): each row with the batch endpoints' rules and messages, each
 * problem named by its column. A badge's `issued_at` in the future is checked against `now` as
 * the endpoints do; a badge row without its own `badge_template_id` takes `template`, the one
 * chosen for the file, and is a problem of that column when none was. A repeated employee
 * `external_id` is refused as a batch refuses it, since the later row would silently overwrite
 * the earlier one.
 */
export const rowChecker = (
  kind: ImportKind,
  columns: readonly string[],
  now: Date,
  template: string | null = null,
): ((r: ImportInputRow) => CheckedRow) => {
  if (kind === "badges")
    return (r) => {
      const built = badgeItem(columns, r.cells);
      const item = built.item as Record<string, unknown>;
      const errors = [...cellCount(columns, r), ...built.errors];
      if (item.badge_template_id === undefined) {
        if (template === null) errors.push(NO_TEMPLATE);
        else item.badge_template_id = template;
      }
      const check = checkBatchItems([item])[0];
      if (check && !check.ok) {
        for (const e of check.error.errors) {
          const field = badgeColumnOf(e.field.replace("badges.0.", ""));
          if (!(field === NO_TEMPLATE.field && errors.includes(NO_TEMPLATE)))
            errors.push({ field, message: e.message });
        }
      } else if (check?.ok) {
        const future = resultOf(() => checkIssuedAtNotFuture(check.value, now, ""));
        if (!future.ok)
          errors.push(...future.error.errors.map((e) => ({ field: badgeColumnOf(e.field), message: e.message })));
      }
      const target =
        check?.ok && errors.length === 0
          ? { template: check.value.badge_template_id, key: normalizeEmail(check.value.recipient_email) }
          : undefined;
      return target ? { row: r.row, item, errors, target } : { row: r.row, item, errors };
    };
  const seen = new Set<string>();
  return (r) => {
    const item = tableRowItem(columns, r.cells);
    const errors = [
      ...cellCount(columns, r),
      ...employeeItemErrors(item, "").map((e) => ({ field: employeeColumnOf(e.field), message: e.message })),
    ];
    const id = typeof item.external_id === "string" ? item.external_id.trim() : null;
    if (id !== null && errors.length === 0) {
      if (seen.has(id)) errors.push({ field: "external_id", message: "appears more than once in the file" });
      seen.add(id);
    }
    return { row: r.row, item, errors };
  };
};

/** Every row checked (`rowChecker` over a table already read). */
export const checkRows = (
  kind: ImportKind,
  columns: readonly string[],
  rows: readonly ImportInputRow[],
  now: Date,
  template: string | null = null,
): CheckedRow[] => rows.map(rowChecker(kind, columns, now, template));
