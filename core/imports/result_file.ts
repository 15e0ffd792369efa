import { csvLine } from "../shared/mod.ts";
import type { ImportRow } from "./imports.ts";

// The CSV cells (neutralized against formulas) are core/shared's, as every CSV file Laurel writes.
export { csvLine, neutralizeCell } from "../shared/mod.ts";

/** What identifies a row to the person who wrote the file: the recipient e-mail, the employee's external id. */
export const rowKey = (item: Record<string, unknown>): string => {
  const key = item.recipient_email ?? item.external_id ?? "";
  return typeof key === "string" ? key : "";
};

/** The result file's header: a row's number, what became of it, the id made, and why not. */
export const RESULT_HEADER = ["row", "status", "id", "key", "errors"] as const;

/**
 * One row of the result file. `key` echoes what identifies the row to the person who wrote the
 * file (the recipient e-mail, the employee's external id); `errors` lists `column: message`.
 */
export const resultLine = (r: ImportRow): string => {
  const status = r.status === "done" ? (r.detail ?? "done") : r.status;
  return csvLine([
    String(r.row),
    status,
    r.outcome_id ?? "",
    rowKey(r.item),
    r.errors.map((e) => `${e.field}: ${e.message}`).join("; "),
  ]);
};
