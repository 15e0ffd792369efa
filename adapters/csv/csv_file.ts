import { parse } from "csv-parse/sync";
import { validationFailed } from "../../core/errors/mod.ts";
import {
  csvLine,
  type ImportInputRow,
  type ImportRow,
  type ImportStore,
  RESULT_HEADER,
  resultLine,
} from "../../core/imports/mod.ts";

const refused = (message: string) => validationFailed(message, [{ field: "file", message }]);

/**
 * An uploaded CSV file: UTF-8 (a byte order mark is allowed), a header row, then one record per
 * row; row 1 is the first record under the header. Blank lines are skipped; cells are trimmed.
 * Anything else (another encoding, a NUL, a quote left open) refuses the whole file.
 */
export const readCsvFile = (bytes: Uint8Array): { columns: string[]; rows: ImportInputRow[] } => {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refused("The file is not UTF-8 text");
  }
  // PostgreSQL stores no NUL in text, and no spreadsheet writes one in a CSV.
  if (text.includes("\u0000")) throw refused("The file holds a NUL character");
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  } catch (err) {
    throw refused(`The file is not valid CSV (${(err as Error).message})`);
  }
  const [header, ...data] = records;
  if (!header || header.every((c) => c === "")) throw refused("The file is empty: it needs a header row");
  return { columns: header, rows: data.map((cells, i) => ({ row: i + 1, cells })) };
};

/** Rows read per query while a result file is written. */
const RESULT_PAGE = 2000;

/** The result file, line by line (its header first), read from the store a page at a time. */
export async function* resultFileLines(store: Pick<ImportStore, "rows">, importId: string): AsyncGenerator<string> {
  yield csvLine(RESULT_HEADER);
  let after = 0;
  for (;;) {
    const page: ImportRow[] = await store.rows(importId, after, RESULT_PAGE);
    if (page.length === 0) return;
    yield page.map(resultLine).join("");
    after = (page[page.length - 1] as ImportRow).row;
  }
}
