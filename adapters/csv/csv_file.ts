import { isUtf8 } from "node:buffer";
import { Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import { validationFailed } from "../../core/errors/mod.ts";
import {
  type CheckedRow,
  checkHeader,
  csvLine,
  type ImportKind,
  type ImportPreview,
  type ImportRow,
  type ImportStore,
  previewCollector,
  RESULT_HEADER,
  resultLine,
  rowChecker,
} from "../../core/imports/mod.ts";

const refused = (message: string) => validationFailed(message, [{ field: "file", message }]);

/** Refused unless UTF-8 without a NUL (PostgreSQL stores no NUL in text); checked in place, nothing decoded. */
const checkText = (bytes: Uint8Array): void => {
  if (!isUtf8(bytes)) throw refused("The file is not UTF-8 text");
  // In UTF-8 a zero byte is only ever the NUL character.
  if (bytes.includes(0)) throw refused("The file holds a NUL character");
};

/** Bytes handed to the parser at once: views of the upload, never copies. */
const SLICE_BYTES = 64 * 1024;

/** Checked rows handed to the store at once. */
const WRITE_ROWS = 1000;

function* slices(bytes: Uint8Array): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += SLICE_BYTES) yield bytes.subarray(i, i + SLICE_BYTES);
}

/**
 * An uploaded CSV file, checked as it is read: UTF-8 (a byte order mark is allowed), a header row
 * (a wrong one refuses the file at once), then one record per row, checked by the kind's rules;
 * row 1 is the first record under the header. Blank lines are skipped; cells are trimmed. The
 * checked rows go to `write` a chunk at a time and are then dropped, so a large file is never held
 * as records or items; the answer keeps counts and the first problems. Another encoding, a NUL or
 * a quote left open refuses the whole file (a caller writing rows writes them in a transaction).
 */
export const checkCsvFile = async (
  kind: ImportKind,
  bytes: Uint8Array,
  now: Date,
  write: (rows: CheckedRow[]) => Promise<void> = async () => {},
): Promise<ImportPreview> => {
  checkText(bytes);
  const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, trim: true });
  Readable.from(slices(bytes), { objectMode: false }).pipe(parser);
  let preview: ReturnType<typeof previewCollector> | null = null;
  let check: ((r: { row: number; cells: readonly string[] }) => CheckedRow) | null = null;
  let chunk: CheckedRow[] = [];
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (preview === null || check === null) {
        if (record.every((c) => c === "")) throw refused("The file is empty: it needs a header row");
        checkHeader(kind, record);
        preview = previewCollector(kind, record);
        check = rowChecker(kind, record, now);
        continue;
      }
      row++;
      const checked = check({ row, cells: record });
      preview.add(checked);
      chunk.push(checked);
      if (chunk.length >= WRITE_ROWS) {
        await write(chunk);
        chunk = [];
      }
    }
  } catch (err) {
    // The parser's own errors are the file's; a refusal while checking a record (the header, the
    // row limit) is the answer as it is, and so is a failure of the store.
    if (!(err instanceof CsvError)) throw err;
    throw refused(`The file is not valid CSV (${err.message})`);
  }
  if (preview === null) throw refused("The file is empty: it needs a header row");
  const answer = preview.done();
  if (chunk.length > 0) await write(chunk);
  return answer;
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
