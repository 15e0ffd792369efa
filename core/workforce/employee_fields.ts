/**
 * The fields an organization supplies for an employee record, and how a table of them (the CLI's
 * CSV import) becomes batch items. Plain values with no import: the CLI reads them without loading
 * TypeBox and the schemas, which would weigh on every start (docs/benchmarks.md, figures behind the code).
 */

/** Fields that are strings on the wire (empty when not given). */
export const TEXT_FIELDS = [
  "position_title",
  "manager_external_id",
  "department",
  "job_family",
  "organization_level_1",
  "organization_level_2",
  "organization_level_3",
] as const;
/** Fields that are null when not given. */
export const NULLABLE_FIELDS = [
  "team",
  "manager_first_name",
  "manager_last_name",
  "country",
  "zip_code",
  "state_or_province",
  "level",
] as const;

/** Items of one batch upsert (REST `POST .../employees/batch`, the CLI's import). */
export const EMPLOYEE_BATCH_MAX = 1000;

/** The columns a table of employee records must have. */
export const REQUIRED_COLUMNS = ["email", "first_name", "last_name", "external_id"] as const;
const KNOWN: ReadonlySet<string> = new Set([...REQUIRED_COLUMNS, ...TEXT_FIELDS, ...NULLABLE_FIELDS]);
const NULLABLE: ReadonlySet<string> = new Set(NULLABLE_FIELDS);
const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_COLUMNS);

/** A header's columns that are no field (`unknown`) and the required ones it lacks (`missing`). */
export const tableColumnProblems = (columns: readonly string[]): { unknown: string[]; missing: string[] } => ({
  unknown: columns.filter((c) => !KNOWN.has(c)),
  missing: REQUIRED_COLUMNS.filter((c) => !columns.includes(c)),
});

/**
 * One row of a table as a batch item: an empty cell clears the field (null, or "" for the text
 * fields), except the required ones, which are then absent and reported missing by validation.
 * A column the row has no cell for counts as empty.
 */
export const tableRowItem = (columns: readonly string[], cells: readonly string[]): Record<string, string | null> => {
  const item: Record<string, string | null> = {};
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i] as string;
    const v = cells[i] ?? "";
    if (v !== "") item[c] = v;
    else if (NULLABLE.has(c)) item[c] = null;
    else if (!REQUIRED.has(c)) item[c] = "";
  }
  return item;
};
