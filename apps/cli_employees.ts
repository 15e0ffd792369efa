import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
// Not through core/workforce/mod.ts: that brings TypeBox and every schema of core into each start
// of the CLI (docs/benchmarks.md, figures behind the code). This module imports nothing.
import {
  EMPLOYEE_BATCH_MAX,
  NULLABLE_FIELDS,
  REQUIRED_COLUMNS,
  TEXT_FIELDS,
  tableColumnProblems,
  tableRowItem,
} from "../core/workforce/employee_fields.ts";
import type { Handler } from "./cli.ts";
import { usage } from "./cli_args.ts";

/** Employee records from an HR system's CSV export, sent in batches of the REST batch's upsert. */
export const EMPLOYEE_USAGE = `  employees import --organization <id> --file <people.csv>
      (header row: ${REQUIRED_COLUMNS.join(", ")} and any of ${[...TEXT_FIELDS, ...NULLABLE_FIELDS].join(", ")})`;

export const EMPLOYEE_OPTIONS = { file: { type: "string" } } as const;

/** The tRPC endpoint takes bodies up to 1 MiB; stay well under it whatever the rows hold. */
const MAX_BATCH_BYTES = 700_000;
/** Batches sent at a time: the server reads and builds one while PostgreSQL writes the other. */
const IN_FLIGHT = 2;

interface Row {
  line: number;
  body: Record<string, string | null>;
  /** Set when the row cannot be sent (a wrong number of cells). */
  error?: string;
}

/**
 * The file's data rows: quoted fields, a UTF-8 byte order mark and blank lines are handled by
 * csv-parse. Cells become batch items by core's rule (`tableRowItem`: an empty cell clears the
 * field, a required one is then reported missing by the server's validation).
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
  const { unknown, missing } = tableColumnProblems(columns);
  if (unknown.length > 0 || missing.length > 0)
    return usage(
      `${path}: ${[unknown.length ? `unknown columns ${unknown.join(", ")}` : "", missing.length ? `missing columns ${missing.join(", ")}` : ""].filter(Boolean).join("; ")}`,
    );
  return data.map(({ record, info }) => {
    const row: Row = { line: info.lines, body: tableRowItem(columns, record) };
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
    const started = performance.now();
    const rows = readRows(file);
    const counts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    const errors: RowError[] = [];
    // The progress bar's module only on a terminal.
    const bar =
      process.stderr.isTTY && o.json !== true
        ? new (await import("cli-progress")).SingleBar({
            stream: process.stderr,
            format: "Importing [{bar}] {value}/{total} rows",
          })
        : null;
    bar?.start(rows.length, 0);
    const send = async (batch: Row[]): Promise<void> => {
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
    };
    // Batches go IN_FLIGHT at a time; each commits with its events, which stay together in the event
    // log. A batch holding an external_id of an earlier one waits until all earlier ones are done,
    // so the later row updates what the earlier created, as when each batch waits for the previous.
    const running = new Set<Promise<void>>();
    const sent = new Set<string>();
    for (const batch of batches(rows)) {
      const ids = batch.map((r) => r.body.external_id).filter((id): id is string => typeof id === "string");
      if (ids.some((id) => sent.has(id.trim()))) await Promise.all(running);
      for (const id of ids) sent.add(id.trim());
      while (running.size >= IN_FLIGHT) await Promise.race(running);
      const p: Promise<void> = send(batch).finally(() => running.delete(p));
      p.catch(() => {}); // The first failure ends the import below; the others have nobody to tell.
      running.add(p);
    }
    await Promise.all(running);
    bar?.stop();
    errors.sort((a, b) => a.line - b.line);
    if (errors.length > 0) process.exitCode = 1;
    // The benchmark's figure without the process start (ops/bench/employees.ts).
    if (process.env.LAUREL_IMPORT_TIMING)
      process.stderr.write(
        `import timing: ${JSON.stringify({ read_to_summary_ms: performance.now() - started, process_to_read_ms: started })}\n`,
      );
    const summary = `${rows.length} rows: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} failed`;
    const report = errors.map(
      (e) =>
        `  line ${e.line}${e.external_id ? ` (${e.external_id})` : ""}: ${e.errors.map((x) => `${x.field} ${x.message}`).join("; ")}`,
    );
    return { json: { rows: rows.length, ...counts, errors }, text: [summary, ...report].join("\n") };
  },
};
