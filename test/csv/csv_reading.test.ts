import { Readable } from "node:stream";
import t from "tap";
import { type CsvReading, checkCsvFile, csvDelimiter } from "../../adapters/csv/mod.ts";
import type { CheckedRow } from "../../core/imports/mod.ts";

const TEMPLATE = "0b6f4d3e-8c1a-4f7e-9a2b-5d6c7e8f9a0b";

/** The rows a file is read into, and how it was read. */
const read = async (file: Uint8Array | Readable) => {
  const rows: CheckedRow[] = [];
  let reading: CsvReading | null = null;
  await checkCsvFile(
    "badges",
    file,
    { now: new Date("2026-12-07T10:00:00Z"), template: TEMPLATE },
    { write: async (chunk) => void rows.push(...chunk), facts: async () => [], refuse: async () => {} },
    (r) => {
      reading = r;
    },
  );
  return { rows, reading: reading as CsvReading | null };
};

/** Text as Windows-1252 bytes: every character used here is in Latin-1, where the two agree. */
const windows1252 = (text: string): Uint8Array => Buffer.from(text, "latin1");

t.test("the separator is the header's most frequent one outside quotes", (t) => {
  const cases: [string, string][] = [
    ["a,b,c\n1;2", ","],
    ["a;b;c\n1,2", ";"],
    ["a\tb\tc", "\t"],
    ['"a;b",c', ","],
    ['"a,b";"c,d";e', ";"],
    ["only", ","],
    ["", ","],
  ];
  for (const [header, delimiter] of cases)
    t.equal(csvDelimiter(Buffer.from(header)), delimiter, JSON.stringify(header));
  t.end();
});

const HEADER = ["recipient_email", "issued_to_first_name", "issued_to_last_name", "issued_at"];

t.test("a spreadsheet's file: semicolons, Windows-1252, CRLF", async (t) => {
  const text = `${HEADER.join(";")}\r\nzoe@example.org;Zoë;Müller-Lüdenscheidt;2026-01-05T10:00:00Z\r\nandre@example.org;"André; Jr";Façade;2026-01-05T10:00:00Z\r\n`;
  const { rows, reading } = await read(windows1252(text));
  t.same(reading, { encoding: "windows-1252", delimiter: ";", bom: false });
  t.same(
    rows.map((r) => [r.item.issued_to_first_name, r.item.issued_to_last_name, r.errors]),
    [
      ["Zoë", "Müller-Lüdenscheidt", []],
      ["André; Jr", "Façade", []],
    ],
    "the names as typed, a quoted separator kept",
  );
  t.end();
});

t.test("UTF-8 with a byte order mark, tab separated, read in small pieces", async (t) => {
  const text = `\uFEFF${HEADER.join("\t")}\nchloé@example.org\tChloé\tÅngström\t2026-01-05T10:00:00Z\n`;
  const bytes = Buffer.from(text, "utf8");
  const pieces = Readable.from(
    Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7)),
    { objectMode: false },
  );
  const { rows, reading } = await read(pieces);
  t.same(reading, { encoding: "utf-8", delimiter: "\t", bom: true });
  t.same(rows[0]?.item.issued_to_last_name, "Ångström");
  t.same(rows[0]?.errors.length, 1, "the address is checked as the API checks it");
  t.end();
});

t.test("a file past its ASCII start in Windows-1252 is transcoded from there", async (t) => {
  const ascii = Array.from({ length: 3000 }, (_, i) => `p${i}@example.org,Ann,Lee,2026-01-05T10:00:00Z`).join("\n");
  const text = `${HEADER.join(",")}\n${ascii}\nlast@example.org,Renée,Noël,2026-01-05T10:00:00Z\n`;
  const { rows, reading } = await read(windows1252(text));
  t.equal(reading?.encoding, "windows-1252");
  t.equal(rows.at(-1)?.item.issued_to_first_name, "Renée");
  t.equal(rows.length, 3001);
  t.end();
});

t.test("UTF-8 first and another encoding later is refused, naming what to do", async (t) => {
  const filler = Array.from({ length: 3000 }, () => "p@example.org,Zoë,Lee,2026-01-05T10:00:00Z").join("\n");
  const text = Buffer.concat([
    Buffer.from(`${HEADER.join(",")}\n${filler}\n`, "utf8"),
    windows1252("x@example.org,Renée,Noël,2026-01-05T10:00:00Z\n"),
  ]);
  await t.rejects(read(text), { code: "validation_failed", message: /save it again as CSV UTF-8/ });
  const short = Buffer.concat([
    Buffer.from(`${HEADER.join(",")}\nz@example.org,Zoë,L,2026-01-05T10:00:00Z\n`, "utf8"),
    windows1252("x@example.org,Renée,N,2026-01-05T10:00:00Z\n"),
  ]);
  await t.rejects(
    read(short),
    { code: "validation_failed", message: /save it again as CSV UTF-8/ },
    "in one piece too",
  );
  t.end();
});
