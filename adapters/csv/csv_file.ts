import { parse } from "csv-parse/sync";
import { isCoreError, validationFailed } from "../../core/errors/mod.ts";
import {
  type CheckedRow,
  checkHeader,
  checkRowCount,
  csvLine,
  type ImportInputRow,
  type ImportKind,
  type ImportPreview,
  type ImportRow,
  type ImportStore,
  previewChecked,
  RESULT_HEADER,
  resultLine,
  rowChecker,
} from "../../core/imports/mod.ts";

/** csv-parse's synchronous parser, typed for an `on_record` that turns each record into a value. */
const parseWith = parse as unknown as <T>(
  input: string,
  options: {
    bom: boolean;
    skip_empty_lines: boolean;
    relax_column_count: boolean;
    trim: boolean;
    on_record?: (record: string[], context: { records: number }) => T;
  },
) => T[];

const refused = (message: string) => validationFailed(message, [{ field: "file", message }]);

/** The bytes as text, refused unless UTF-8 without a NUL (PostgreSQL stores no NUL in text). */
const textOf = (bytes: Uint8Array): string => {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refused("The file is not UTF-8 text");
  }
  if (text.includes("\u0000")) throw refused("The file holds a NUL character");
  return text;
};

const parseRecords = <T>(text: string, onRecord?: (record: string[], index: number) => T): T[] => {
  try {
    return parseWith<T>(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      ...(onRecord
        ? { on_record: (record: string[], context: { records: number }) => onRecord(record, context.records) }
        : {}),
    });
  } catch (err) {
    // A refusal thrown while checking a record (the header, the row limit) is the answer.
    if (isCoreError(err)) throw err;
    const cause = (err as { cause?: unknown }).cause;
    if (isCoreError(cause)) throw cause;
    throw refused(`The file is not valid CSV (${(err as Error).message})`);
  }
};

/**
 * An uploaded CSV file, checked as it is read: UTF-8 (a byte order mark is allowed), a header row
 * (a wrong one refuses the file at once), then one record per row, checked by the kind's rules;
 * row 1 is the first record under the header. Blank lines are skipped; cells are trimmed. Only the
 * checked rows stay in memory, never the cells too. Another encoding, a NUL or a quote left open
 * refuses the whole file.
 */
export const checkCsvFile = (kind: ImportKind, bytes: Uint8Array, now: Date): ImportPreview => {
  let columns: string[] | null = null;
  let check: ((r: ImportInputRow) => CheckedRow) | null = null;
  const checked = parseRecords<CheckedRow | null>(textOf(bytes), (record, index) => {
    if (columns === null || check === null) {
      if (record.every((c) => c === "")) throw refused("The file is empty: it needs a header row");
      checkHeader(kind, record);
      columns = record;
      check = rowChecker(kind, record, now);
      return null;
    }
    checkRowCount(kind, index - 1);
    return check({ row: index - 1, cells: record });
  });
  if (columns === null) throw refused("The file is empty: it needs a header row");
  return previewChecked(
    kind,
    columns,
    checked.filter((r): r is CheckedRow => r !== null),
  );
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
