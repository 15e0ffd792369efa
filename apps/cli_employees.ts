import { readFileSync } from "node:fs";
import { SingleBar } from "cli-progress";
import { parse } from "csv-parse/sync";
import { EMPLOYEE_BATCH_MAX, NULLABLE_FIELDS, TEXT_FIELDS } from "../core/workforce/mod.ts";
import type { Handler } from "./cli.ts";

/** Employee records from an HR system's CSV export, sent in batches of the REST batch's upsert. */
export const EMPLOYEE_USAGE = `  employees import --organization <id> --file <people.csv>
      (header row: email, first_name, last_name, external_id and any of ${[...TEXT_FIELDS, ...NULLABLE_FIELDS].join(", ")})`;

export const EMPLOYEE_OPTIONS = { file: { type: "string" } } as const;

const REQUIRED = ["email", "first_name", "last_name", "external_id"] as const;
const KNOWN: ReadonlySet<string> = new Set([...REQUIRED, ...TEXT_FIELDS, ...NULLABLE_FIELDS]);
const NULLABLE: ReadonlySet<string> = new Set(NULLABLE_FIELDS);
/** The tRPC endpoint takes bodies up to 1 MiB; stay well under it whatever the rows hold. */
const MAX_BATCH_BYTES = 700_000;

const usage = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(2);
};

interface Row {
  line: number;
  body: Record<string, string | null>;
  /** Set when the row cannot be sent (a wrong number of cells). */
  error?: string;
}

/**
 * The file's data rows: quoted fields, a UTF-8 byte order mark and blank lines are handled by
 * csv-parse. An empty cell clears the field (null or ""), except the required ones, which are
 * then reported missing by the server's validation.
 */
const readRows = (path: string): Row[] => {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return usage(`Cannot read ${path}: ${(err as Error).message}`);
  }
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      trim: true,
    }) as unknown as typeof records;
  } catch (err) {
    return usage(`${path} is not valid CSV: ${(err as Error).message}`);
  }
  const [header, ...data] = records;
  if (!header) return usage(`${path} is empty: it needs a header row`);
  const columns = header.record;
  const unknown = columns.filter((c) => !KNOWN.has(c));
  const missing = REQUIRED.filter((c) => !columns.includes(c));
  if (unknown.length > 0 || missing.length > 0)
    return usage(
      `${path}: ${[unknown.length ? `unknown columns ${unknown.join(", ")}` : "", missing.length ? `missing columns ${missing.join(", ")}` : ""].filter(Boolean).join("; ")}`,
    );
  return data.map(({ record, info }) => {
    const body: Record<string, string | null> = {};
    columns.forEach((c, i) => {
      const v = record[i] ?? "";
      if (v !== "") body[c] = v;
      else if (NULLABLE.has(c)) body[c] = null;
      else if (!(REQUIRED as readonly string[]).includes(c)) body[c] = "";
    });
    const row: Row = { line: info.lines, body };
    if (record.length !== columns.length)
      row.error = `has ${record.length} cells where the header has ${columns.length}`;
    return row;
  });
};

const batches = (rows: Row[]): Row[][] => {
  const out: Row[][] = [];
  let current: Row[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = JSON.stringify(row.body).length;
    if (current.length === EMPLOYEE_BATCH_MAX || (current.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
};

interface RowError {
  line: number;
  external_id: string | null;
  errors: Array<{ field: string; message: string }>;
}

export const EMPLOYEE_HANDLERS: Record<string, Handler> = {
  "employees import": async (client, o) => {
    const organization =
      typeof o.organization === "string" ? o.organization : usage("employees import needs --organization");
    const file = typeof o.file === "string" ? o.file : usage("employees import needs --file");
    const rows = readRows(file);
    const counts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    const errors: RowError[] = [];
    const bar =
      process.stderr.isTTY && o.json !== true
        ? new SingleBar({ stream: process.stderr, format: "Importing [{bar}] {value}/{total} rows" })
        : null;
    bar?.start(rows.length, 0);
    for (const batch of batches(rows)) {
      const sendable = batch.filter((r) => r.error === undefined);
      for (const r of batch) {
        if (r.error === undefined) continue;
        counts.failed++;
        errors.push({
          line: r.line,
          external_id: r.body.external_id ?? null,
          errors: [{ field: "row", message: r.error }],
        });
      }
      if (sendable.length > 0) {
        const results = await client.workforce.importEmployees.mutate({
          organization_id: organization,
          employees: sendable.map((r) => r.body),
        });
        for (const r of results) {
          counts[r.status]++;
          if (r.status !== "failed") continue;
          const row = sendable[r.index] as Row;
          const prefix = `employees.${r.index}.`;
          errors.push({
            line: row.line,
            external_id: r.external_id,
            errors: r.errors.map((e) => ({ field: e.field.replace(prefix, ""), message: e.message })),
          });
        }
      }
      bar?.increment(batch.length);
    }
    bar?.stop();
    errors.sort((a, b) => a.line - b.line);
    if (errors.length > 0) process.exitCode = 1;
    const summary = `${rows.length} rows: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} failed`;
    const report = errors.map(
      (e) =>
        `  line ${e.line}${e.external_id ? ` (${e.external_id})` : ""}: ${e.errors.map((x) => `${x.field} ${x.message}`).join("; ")}`,
    );
    return { json: { rows: rows.length, ...counts, errors }, text: [summary, ...report].join("\n") };
  },
};
