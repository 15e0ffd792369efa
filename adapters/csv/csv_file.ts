import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CsvError, parse } from "csv-parse";
import { validationFailed } from "../../core/errors/mod.ts";
import {
  type CheckedRow,
  checkHeader,
  csvLine,
  IMPORT_RECORD_LIMITS,
  type ImportFill,
  type ImportKind,
  type ImportPreview,
  type ImportRow,
  type ImportStore,
  maxImportColumns,
  previewCollector,
  RESULT_HEADER,
  recordTooLarge,
  resultLine,
  rowChecker,
} from "../../core/imports/mod.ts";

const refused = (message: string) => validationFailed(message, [{ field: "file", message }]);

/** Bytes handed to the parser at once: views of the upload, never copies. */
const SLICE_BYTES = 64 * 1024;

/** Checked rows handed to the store at once. */
const WRITE_ROWS = 1000;

function* slices(bytes: Uint8Array): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += SLICE_BYTES) yield bytes.subarray(i, i + SLICE_BYTES);
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The file's bytes on their way to the parser, passed on unchanged once checked: UTF-8 without a
 * NUL (PostgreSQL stores no NUL in text), and no record past `IMPORT_RECORD_LIMITS` in bytes or
 * cells. The records are found as the parser will find them (RFC 4180: a line break or comma
 * inside double quotes belongs to the cell; a doubled quote inside quotes is one), so a record
 * too large is refused, naming its row, before the parser builds it.
 */
export const checkedCsvBytes = (kind: ImportKind): Transform => {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const maxCells = maxImportColumns(kind);
  const maxBytes = IMPORT_RECORD_LIMITS.bytes;
  let quoted = false;
  let cells = 1;
  let bytes = 0;
  let blank = true;
  // The header is record 0; a blank line is no record (the parser skips it).
  let record = 0;
  const check = (chunk: Uint8Array): void => {
    try {
      utf8.decode(chunk, { stream: true });
    } catch {
      throw refused("The file is not UTF-8 text");
    }
    // In UTF-8 a zero byte is only ever the NUL character.
    if (chunk.includes(0)) throw refused("The file holds a NUL character");
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (b === LF && !quoted) {
        if (!blank) record++;
        cells = 1;
        bytes = 0;
        blank = true;
        continue;
      }
      if (++bytes > maxBytes) throw recordTooLarge(kind, record, "bytes");
      if (b === QUOTE) quoted = !quoted;
      else if (b === COMMA && !quoted && ++cells > maxCells) throw recordTooLarge(kind, record, "cells");
      if (b !== CR) blank = false;
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        check(chunk);
      } catch (err) {
        return done(err as Error);
      }
      done(null, chunk);
    },
    flush(done) {
      try {
        utf8.decode();
      } catch {
        return done(refused("The file is not UTF-8 text"));
      }
      done();
    },
  });
};

/**
 * An uploaded CSV file (its bytes, or a stream of them from a spooled upload), checked as it is
 * read: UTF-8 (a byte order mark is allowed), records within `IMPORT_RECORD_LIMITS`, a header row
 * (a wrong one refuses the file at once, before any row is held), then one record per row,
 * checked by the kind's rules (`template`: the badge template chosen for rows without their own);
 * row 1 is the first record under the header. Blank lines are skipped; cells are trimmed. The
 * checked rows go to `into` a chunk at a time and are then dropped, so a large file is never held
 * as records or items; the answer keeps counts and the first problems. Once read, the valid rows
 * are checked against the organization through `into` (one look-up), and those the issue would
 * refuse are refused there. Another encoding, a NUL, a record too large or a quote left open
 * refuses the whole file (a caller writing rows writes them in a transaction).
 */
export const checkCsvFile = async (
  kind: ImportKind,
  file: Uint8Array | Readable,
  check: { now: Date; template?: string | null },
  into: ImportFill,
): Promise<ImportPreview> => {
  const source = file instanceof Uint8Array ? Readable.from(slices(file), { objectMode: false }) : file;
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    trim: true,
    max_record_size: IMPORT_RECORD_LIMITS.bytes,
  });
  const text = checkedCsvBytes(kind);
  // The first failure (of the source, the checks or the parser) ends the read; the loop below sees it.
  const reading = pipeline(source, text, parser).catch((err: unknown) => err);
  let preview: ReturnType<typeof previewCollector> | null = null;
  let checkRow: ((r: { row: number; cells: readonly string[] }) => CheckedRow) | null = null;
  let chunk: CheckedRow[] = [];
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (preview === null || checkRow === null) {
        if (record.every((c) => c === "")) throw refused("The file is empty: it needs a header row");
        checkHeader(kind, record);
        preview = previewCollector(kind, record);
        checkRow = rowChecker(kind, record, check.now, check.template ?? null);
        continue;
      }
      row++;
      const checked = checkRow({ row, cells: record });
      preview.add(checked);
      chunk.push(checked);
      if (chunk.length >= WRITE_ROWS) {
        await into.write(chunk);
        chunk = [];
      }
    }
    const failed = await reading;
    if (failed) throw failed;
  } catch (err) {
    source.destroy();
    // The parser's own errors are the file's; a refusal while checking (the bytes, a record, the
    // header, the row limit) is the answer as it is, and so is a failure of the store.
    if (!(err instanceof CsvError)) throw err;
    throw refused(`The file is not valid CSV (${err.message})`);
  }
  if (preview === null) throw refused("The file is empty: it needs a header row");
  // A file without rows is refused before anything more is written.
  preview.done();
  if (chunk.length > 0) await into.write(chunk);
  return preview.settle(into);
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
