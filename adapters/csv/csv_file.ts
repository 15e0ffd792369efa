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
const SEMICOLON = 0x3b;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** How a file was read: what a spreadsheet saved it as, said back to the person who uploaded it. */
export interface CsvReading {
  /** `windows-1252` when the bytes were not UTF-8 and were read as a Windows spreadsheet writes text. */
  encoding: "utf-8" | "windows-1252";
  delimiter: "," | ";" | "\t";
  /** The file began with a UTF-8 byte order mark (skipped). */
  bom: boolean;
}

const DELIMITERS = [
  [COMMA, ","],
  [SEMICOLON, ";"],
  [TAB, "\t"],
] as const;

/**
 * The separator of a file, from its header line: the one of comma, semicolon and tab found most
 * often outside double quotes (a comma on a tie, or when there is none: a one-column file).
 * Spreadsheets in locales whose decimal mark is a comma save "CSV" with semicolons.
 */
export const csvDelimiter = (header: Uint8Array): CsvReading["delimiter"] => {
  const seen = new Map<number, number>();
  let quoted = false;
  for (const b of header) {
    if (b === LF && !quoted) break;
    if (b === QUOTE) quoted = !quoted;
    else if (!quoted) seen.set(b, (seen.get(b) ?? 0) + 1);
  }
  let best: CsvReading["delimiter"] = ",";
  let most = 0;
  for (const [byte, name] of DELIMITERS) {
    const n = seen.get(byte) ?? 0;
    if (n > most) {
      best = name;
      most = n;
    }
  }
  return best;
};

/** The first non-ASCII character of `chunk` is a whole UTF-8 sequence (so the text began as UTF-8). */
const startsUtf8 = (chunk: Uint8Array): boolean => {
  const i = chunk.findIndex((b) => b >= 0x80);
  const lead = chunk[i] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(chunk.subarray(i, i + length));
    return i + length <= chunk.length;
  } catch {
    return false;
  }
};

const hasBom = (head: Uint8Array): boolean => head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;

/**
 * The file's bytes on their way to the parser, as UTF-8 without a NUL (PostgreSQL stores no NUL
 * in text), and no record past `IMPORT_RECORD_LIMITS` in bytes or cells. Bytes that are not UTF-8
 * are read as Windows-1252 (what Excel saves on Windows) and passed on transcoded, when all that
 * came before was ASCII (the same in both); a file that is UTF-8 first and something else later
 * is refused, since no reading of it is right. The records are found as the parser will find them
 * (RFC 4180: a line break or separator inside double quotes belongs to the cell; a doubled quote
 * inside quotes is one), so a record too large is refused, naming its row, before the parser
 * builds it. `reading.encoding` says which encoding was used once the file is read.
 */
export const checkedCsvBytes = (
  kind: ImportKind,
  reading: CsvReading = { encoding: "utf-8", delimiter: ",", bom: false },
): Transform => {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const windows1252 = new TextDecoder("windows-1252");
  const separator = DELIMITERS.find(([, name]) => name === reading.delimiter)?.[0] ?? COMMA;
  const maxCells = maxImportColumns(kind);
  const maxBytes = IMPORT_RECORD_LIMITS.bytes;
  let onlyAscii = true;
  let quoted = false;
  let cells = 1;
  let bytes = 0;
  let blank = true;
  // The header is record 0; a blank line is no record (the parser skips it).
  let record = 0;
  const notText = () => refused("The file is not text in UTF-8 or Windows-1252: save it again as CSV UTF-8");
  const asUtf8 = (chunk: Uint8Array): Uint8Array => {
    if (reading.encoding === "windows-1252") return Buffer.from(windows1252.decode(chunk), "utf8");
    try {
      utf8.decode(chunk, { stream: true });
    } catch {
      if (!onlyAscii || startsUtf8(chunk)) throw notText();
      reading.encoding = "windows-1252";
      return Buffer.from(windows1252.decode(chunk), "utf8");
    }
    if (onlyAscii && chunk.some((b) => b >= 0x80)) onlyAscii = false;
    return chunk;
  };
  const check = (chunk: Uint8Array): void => {
    // In UTF-8 and Windows-1252 alike a zero byte is only ever the NUL character.
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
      else if (b === separator && !quoted && ++cells > maxCells) throw recordTooLarge(kind, record, "cells");
      if (b !== CR) blank = false;
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let out: Uint8Array;
      try {
        out = asUtf8(chunk);
        check(out);
      } catch (err) {
        return done(err as Error);
      }
      done(null, out);
    },
    flush(done) {
      if (reading.encoding === "utf-8") {
        try {
          utf8.decode();
        } catch {
          return done(notText());
        }
      }
      done();
    },
  });
};

/** The source's first bytes up to the end of its first line (or a record's limit), and the rest after them. */
const splitHead = async (source: Readable): Promise<{ head: Uint8Array; whole: Readable }> => {
  const it = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size <= IMPORT_RECORD_LIMITS.bytes) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = next.value as Uint8Array;
    head.push(chunk);
    size += chunk.length;
    if (chunk.includes(LF)) break;
  }
  async function* again(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (done) return;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield next.value as Uint8Array;
    }
  }
  return { head: Buffer.concat(head), whole: Readable.from(again(), { objectMode: false }) };
};

/**
 * An uploaded CSV file (its bytes, or a stream of them from a spooled upload), checked as it is
 * read: UTF-8 (a byte order mark is allowed) or Windows-1252, comma, semicolon or tab separated
 * (`csvDelimiter`; `read` is told what was found), records within `IMPORT_RECORD_LIMITS`, a header row
 * (a wrong one refuses the file at once, before any row is held), then one record per row,
 * checked by the kind's rules (`template`: the badge template chosen for rows without their own);
 * row 1 is the first record under the header. Blank lines are skipped; cells are trimmed. The
 * checked rows go to `into` a chunk at a time and are then dropped, so a large file is never held
 * as records or items; the answer keeps counts and the first problems. Once read, the valid rows
 * are checked against the organization through `into` (one look-up), and those the issue would
 * refuse are refused there. Text in neither encoding, a NUL, a record too large or a quote left open
 * refuses the whole file (a caller writing rows writes them in a transaction).
 */
export const checkCsvFile = async (
  kind: ImportKind,
  file: Uint8Array | Readable,
  check: { now: Date; template?: string | null },
  into: ImportFill,
  read?: (reading: CsvReading) => void,
): Promise<ImportPreview> => {
  const source = file instanceof Uint8Array ? Readable.from(slices(file), { objectMode: false }) : file;
  const { head, whole } = await splitHead(source);
  const reading: CsvReading = { encoding: "utf-8", delimiter: csvDelimiter(head), bom: hasBom(head) };
  const parser = parse({
    bom: true,
    delimiter: reading.delimiter,
    skip_empty_lines: true,
    relax_column_count: true,
    trim: true,
    max_record_size: IMPORT_RECORD_LIMITS.bytes,
  });
  const text = checkedCsvBytes(kind, reading);
  // The first failure (of the source, the checks or the parser) ends the read; the loop below sees it.
  const finished = pipeline(whole, text, parser).catch((err: unknown) => err);
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
    const failed = await finished;
    if (failed) throw failed;
  } catch (err) {
    whole.destroy();
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
  read?.(reading);
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
