import type { ImportRow } from "./imports.ts";

/**
 * A spreadsheet reads a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return as a
 * formula; a leading apostrophe makes it text again. Applied to every cell a result file echoes,
 * since those cells came from whoever wrote the uploaded file.
 */
export const neutralizeCell = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** One CSV field: quoted when it holds a quote, a comma or a line break (RFC 4180). */
const field = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

export const csvLine = (cells: readonly string[]): string =>
  `${cells.map((c) => field(neutralizeCell(c))).join(",")}\r\n`;

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
