import type { AuditBy, AuditRecord } from "../audit/mod.ts";
import { auditRecord } from "../audit/mod.ts";
import { checkBatchItems, type NormalizedIssue } from "../badges/mod.ts";
import { type CoreError, type FieldError, orNotFound, validationFailed } from "../errors/mod.ts";
import { type IssueWrites, type IssuingDeps, issueChecked, mailAllowedFor } from "../issuing/mod.ts";
import { type EmployeeContext, type EmployeeStore, upsertEmployees } from "../workforce/mod.ts";
import {
  type CheckedRow,
  COLUMNS,
  checkRows,
  headerProblems,
  type ImportInputRow,
  type ImportKind,
} from "./columns.ts";
import { distinctTargets, type IssueTarget, issueRefusals, type RowRefusal, type TargetFacts } from "./issue_check.ts";

/**
 * An import's life: `validating` while its rows are read, `ready` (checked, waiting for the go),
 * `running` (the workers issue its valid rows), then `finished`, or `failed` when not one row
 * could be issued.
 */
export const IMPORT_STATES = ["validating", "ready", "running", "finished", "failed"] as const;
export type ImportState = (typeof IMPORT_STATES)[number];

/** Rows and bytes of one file: badges as ten batches of a thousand, employees as an HR system's whole export. */
export const IMPORT_LIMITS: Record<ImportKind, { rows: number; bytes: number }> = {
  badges: { rows: 10_000, bytes: 8 * 1024 * 1024 },
  employees: { rows: 100_000, bytes: 48 * 1024 * 1024 },
};

/**
 * The most one record of an import file (a row, line breaks inside quotes included) may hold, in
 * bytes and in cells: a parser builds a whole record before anyone sees it, so a line of millions
 * of empty cells would otherwise be millions of strings. Spreadsheets add a few empty trailing
 * cells, hence the room beyond the known columns.
 */
export const IMPORT_RECORD_LIMITS = { bytes: 64 * 1024, extraColumns: 8 } as const;

/** The most cells one record of a `kind` import may have. */
export const maxImportColumns = (kind: ImportKind): number =>
  COLUMNS[kind].required.length + COLUMNS[kind].optional.length + IMPORT_RECORD_LIMITS.extraColumns;

/** The refusal of a record past `IMPORT_RECORD_LIMITS`; `row` 0 is the header, 1 the first row under it. */
export const recordTooLarge = (kind: ImportKind, row: number, what: "bytes" | "cells"): CoreError => {
  const where = row === 0 ? "The header row" : `Row ${row}`;
  const message =
    what === "cells"
      ? `${where} has more than ${maxImportColumns(kind)} cells`
      : `${where} is longer than ${IMPORT_RECORD_LIMITS.bytes / 1024} KiB`;
  return validationFailed(message, [{ field: "file", message: row === 0 ? message : `row ${row}: ${message}` }]);
};

/** Rows a worker takes at once: the grouped issue statement's size, and the employee batch's. */
export const CHUNK_ROWS: Record<ImportKind, number> = { badges: 200, employees: 1000 };

export interface ImportRecord {
  id: string;
  organization_id: string;
  kind: ImportKind;
  state: ImportState;
  /** SHA-256 (hex) of the file's bytes: the same file again is recognized by it. */
  file_sha256: string;
  file_name: string;
  row_count: number;
  /** Rows refused by validation: never issued. */
  invalid_count: number;
  /** Rows issued (badges) or written (employees: created, updated or unchanged). */
  done_count: number;
  /** Valid rows that could not be issued (a duplicate badge, a template archived meanwhile). */
  failed_count: number;
  /** An earlier import of the same file to this organization, when there is one. */
  repeat_of: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export type RowStatus = "invalid" | "pending" | "done" | "failed";

/** One row as stored: its item, and once worked, its outcome (the id made, or its errors). */
export interface ImportRow {
  row: number;
  status: RowStatus;
  item: Record<string, unknown>;
  /** The badge or employee record id. */
  outcome_id: string | null;
  /** What happened to an employee record (`created`, `updated`, `unchanged`); `issued` for a badge. */
  detail: string | null;
  errors: FieldError[];
}

export interface RowOutcome {
  row: number;
  status: "done" | "failed";
  outcome_id: string | null;
  detail: string | null;
  errors: FieldError[];
}

/** A template a badge import's valid rows issue: its name (null: none of the organization's now), rows, and rows that notify by mail. */
export interface ImportTemplate {
  id: string;
  name: string | null;
  rows: number;
  notifying: number;
}

/**
 * How many of `notifying` badges issued together go without their notification at least: mail
 * past the organization's hourly budget (`perHour`) is not sent, the badge is issued all the same.
 * An import is worked within minutes, so its mail falls in one hour, beside whatever the
 * organization sent already.
 */
export const mailShortfall = (notifying: number, perHour: number): number => Math.max(0, notifying - perHour);

/** A problem of one row and column, as the preview, the status and the result file show it. */
export interface RowProblem {
  row: number;
  field: string;
  message: string;
  /** The row's recipient e-mail or external id (`rowKey`), where the stored row is read. */
  key?: string;
}

/** The writes of one worker's chunk, all in the transaction that holds its rows. */
export interface ImportTx {
  /** Issuing inside the transaction; calls made together share statements. */
  issueWrites: IssueWrites;
  /** Employee records, with `transaction` running inside this one. */
  employees: EmployeeStore;
  /** The rows' outcomes and the import's counts; the import ends when no row is left pending. */
  record(importId: string, outcomes: RowOutcome[], now: Date): Promise<void>;
}

/**
 * Where a file's check puts what it finds, and what it asks: inside the import's transaction when
 * the import is stored, nowhere (`dryRun`) for a check alone.
 */
export interface ImportFill {
  /** Rows checked, chunk by chunk as the file is read. */
  write(rows: CheckedRow[]): Promise<void>;
  /** What the organization holds of these templates and recipients, in one look-up. */
  facts(targets: IssueTarget[]): Promise<TargetFacts[]>;
  /** Rows written valid that the issue would refuse: invalid from now on, with their problems. */
  refuse(refusals: RowRefusal[]): Promise<void>;
}

export interface ImportStore {
  /**
   * The import, its rows and the audit rows in one transaction. The import is inserted as
   * `record` (`validating`); `fill` writes the rows chunk by chunk as the file is read and
   * answers the import as it ends (`ready` or `running`), which `audit` turns into the audit
   * rows. A refusal thrown by `fill` leaves nothing stored.
   */
  create(
    record: ImportRecord,
    fill: (into: ImportFill) => Promise<ImportRecord>,
    audit: (record: ImportRecord) => AuditRecord[],
  ): Promise<ImportRecord>;
  /** `ImportFill.facts` outside any import: a dry run's look-up. */
  facts(organizationId: string, targets: IssueTarget[]): Promise<TargetFacts[]>;
  /** The latest earlier import of a file with this digest to the organization. */
  sameFile(organizationId: string, kind: ImportKind, sha256: string): Promise<ImportRecord | null>;
  get(organizationId: string, id: string): Promise<ImportRecord | null>;
  /** The organization's imports, newest first. */
  list(organizationId: string, limit: number): Promise<ImportRecord[]>;
  /** Problems of invalid and failed rows, in row order, at most `limit`. */
  problems(importId: string, limit: number): Promise<RowProblem[]>;
  /**
   * The templates a badge import's valid rows issue, with their names (null: none of the
   * organization's now) and how many rows each, most rows first.
   */
  templates(importId: string): Promise<ImportTemplate[]>;
  /** Rows after `afterRow`, in order, at most `limit` (the result file, read page by page). */
  rows(importId: string, afterRow: number, limit: number): Promise<ImportRow[]>;
  /** `ready` -> `running` (or `failed` when it has no valid row), with the audit rows; null: not ready. */
  start(organizationId: string, id: string, now: Date, audit: AuditRecord[]): Promise<ImportRecord | null>;
  /** Up to `limit` pending rows of the oldest running import that no worker holds now. */
  pending(
    limit: number,
  ): Promise<{ record: ImportRecord; rows: Array<{ row: number; item: Record<string, unknown> }> } | null>;
  /**
   * Runs `work` in one transaction holding those of `rows` that are still pending and held by no
   * other worker (`for update skip locked`); their issue and their outcome commit together.
   */
  claim<T>(
    importId: string,
    rows: number[],
    work: (claimed: Array<{ row: number; item: Record<string, unknown> }>, tx: ImportTx) => Promise<T>,
  ): Promise<T>;
  /** Marks one pending row failed on its own (a row whose issue fails the whole statement). */
  fail(importId: string, outcome: RowOutcome, now: Date): Promise<void>;
}

/**
 * The checked file: its counts and its first problems (`PROBLEMS_KEPT`), never its rows, which go
 * to the store as they are read: a large file is never held whole.
 */
export interface ImportPreview {
  kind: ImportKind;
  columns: string[];
  row_count: number;
  valid_count: number;
  invalid_count: number;
  problems: RowProblem[];
}

/** Problems an upload's answer keeps: as many as an answer lists; the stored rows hold every one. */
export const PROBLEMS_KEPT = 1000;

const tooLarge = (kind: ImportKind): CoreError =>
  validationFailed(`A ${kind} import holds at most ${IMPORT_LIMITS[kind].rows.toLocaleString("en")} rows`, [
    { field: "file", message: `has more than ${IMPORT_LIMITS[kind].rows} rows` },
  ]);

/** The header's problems refuse the whole file (unknown, missing or repeated columns). */
export const checkHeader = (kind: ImportKind, columns: readonly string[]): void => {
  const header = headerProblems(kind, columns);
  if (header.length > 0) throw validationFailed("The file's header row does not name this import's columns", header);
};

/** Refuses a file past its kind's row limit; called as rows are read, so a huge file stops early. */
export const checkRowCount = (kind: ImportKind, rows: number): void => {
  if (rows > IMPORT_LIMITS[kind].rows) throw tooLarge(kind);
};

/** A check that writes nothing and asks the store for the facts outside any import. */
export const dryRun = (store: Pick<ImportStore, "facts">, organizationId: string): ImportFill => ({
  write: async () => {},
  facts: (targets) => store.facts(organizationId, targets),
  refuse: async () => {},
});

/**
 * A file's preview gathered as its rows are checked one by one (`rowChecker`); no row is kept but
 * a valid badge row's template and recipient (a few dozen bytes each), which `settle` checks
 * against the organization in one look-up once the file is read.
 */
export const previewCollector = (kind: ImportKind, columns: string[]) => {
  const problems: RowProblem[] = [];
  const targets: Array<IssueTarget & { row: number }> = [];
  let rows = 0;
  let invalid = 0;
  const done = (): ImportPreview => {
    if (rows === 0)
      throw validationFailed("The file has no rows under its header", [{ field: "file", message: "has no rows" }]);
    return { kind, columns, row_count: rows, valid_count: rows - invalid, invalid_count: invalid, problems };
  };
  return {
    add(r: CheckedRow): void {
      rows++;
      checkRowCount(kind, rows);
      if (r.errors.length === 0) {
        if (r.target) targets.push({ row: r.row, ...r.target });
        return;
      }
      invalid++;
      for (const e of r.errors)
        if (problems.length < PROBLEMS_KEPT) problems.push({ row: r.row, field: e.field, message: e.message });
    },
    /** The preview of the rows' own checks once every row is read; a file without rows is refused. */
    done,
    /**
     * The preview once the valid rows are also checked against the organization (`issueRefusals`):
     * those the issue would refuse are refused in `into` and counted invalid, their problems in
     * row order among the others'. Kept problems stay the file's first ones: every problem up to
     * the last one kept was kept, so the first `PROBLEMS_KEPT` of both lists are the file's.
     */
    async settle(into: ImportFill): Promise<ImportPreview> {
      const preview = done();
      if (targets.length === 0) return preview;
      const refusals = issueRefusals(targets, await into.facts(distinctTargets(targets)));
      if (refusals.length === 0) return preview;
      await into.refuse(refusals);
      const found = refusals.flatMap((r) => r.errors.map((e) => ({ row: r.row, field: e.field, message: e.message })));
      const merged = [...preview.problems, ...found].sort((a, b) => a.row - b.row).slice(0, PROBLEMS_KEPT);
      return {
        ...preview,
        valid_count: preview.valid_count - refusals.length,
        invalid_count: preview.invalid_count + refusals.length,
        problems: merged,
      };
    },
  };
};

/** The preview of rows checked one by one (`rowChecker`): counts and problems; none stored. */
export const previewChecked = (kind: ImportKind, columns: string[], checked: readonly CheckedRow[]): ImportPreview => {
  const collector = previewCollector(kind, columns);
  for (const r of checked) collector.add(r);
  return collector.done();
};

/**
 * Checks a parsed file: its header, its size, then every row with the batch endpoints' rules.
 * Nothing is stored.
 */
export const previewImport = (
  kind: ImportKind,
  columns: string[],
  rows: readonly ImportInputRow[],
  now: Date,
): ImportPreview => {
  checkHeader(kind, columns);
  checkRowCount(kind, rows.length);
  return previewChecked(kind, columns, checkRows(kind, columns, rows, now));
};

/**
 * `previewImport`, then the valid rows checked against the organization through `into`: the
 * preview of everything the issue would refuse.
 */
export const settledPreview = async (
  kind: ImportKind,
  columns: string[],
  rows: readonly ImportInputRow[],
  now: Date,
  into: ImportFill,
  template: string | null = null,
): Promise<ImportPreview> => {
  checkHeader(kind, columns);
  checkRowCount(kind, rows.length);
  const collector = previewCollector(kind, columns);
  for (const r of checkRows(kind, columns, rows, now, template)) collector.add(r);
  return collector.settle(into);
};

export interface ImportContext {
  now: Date;
  newId: () => string;
  by: AuditBy;
}

/**
 * Stores a file as an import while it is checked: `check` reads the file, hands its checked rows
 * to `into` chunk by chunk, refuses there what the issue would refuse, and answers the preview; the import is then `running` (`start`), else
 * `ready` for a look at the preview first. The same file (by digest) already imported to the
 * organization is refused when `allowRepeat` is false, before anything is stored; otherwise the
 * import names the earlier one. A file refused while it is read leaves nothing stored.
 */
export const createImport = async (
  store: ImportStore,
  ctx: ImportContext,
  organizationId: string,
  kind: ImportKind,
  file: { sha256: string; name: string },
  options: { start: boolean; allowRepeat: boolean },
  check: (into: ImportFill) => Promise<ImportPreview>,
): Promise<{ record: ImportRecord; preview: ImportPreview }> => {
  const earlier = await store.sameFile(organizationId, kind, file.sha256);
  if (earlier && !options.allowRepeat) throw repeatedFile(earlier);
  const start = options.start;
  const reading: ImportRecord = {
    id: ctx.newId(),
    organization_id: organizationId,
    kind,
    state: "validating",
    file_sha256: file.sha256,
    file_name: file.name,
    row_count: 0,
    invalid_count: 0,
    done_count: 0,
    failed_count: 0,
    repeat_of: earlier?.id ?? null,
    created_at: ctx.now,
    started_at: null,
    finished_at: null,
  };
  const read: { preview?: ImportPreview } = {};
  const record = await store.create(
    reading,
    async (into) => {
      const preview = await check(into);
      read.preview = preview;
      return {
        ...reading,
        state: !start ? "ready" : preview.valid_count === 0 ? "failed" : "running",
        row_count: preview.row_count,
        invalid_count: preview.invalid_count,
        started_at: start ? ctx.now : null,
        finished_at: start && preview.valid_count === 0 ? ctx.now : null,
      };
    },
    (r) => (start ? [importAudit(ctx, r)] : []),
  );
  if (!read.preview) throw new Error("The import was stored without its file being read");
  return { record, preview: read.preview };
};

const importAudit = (ctx: ImportContext, record: ImportRecord): AuditRecord =>
  auditRecord(ctx, ctx.by, record.organization_id, "import.started", `import:${record.id}`, {
    kind: record.kind,
    file_name: record.file_name,
    file_sha256: record.file_sha256,
    row_count: record.row_count,
    valid_count: record.row_count - record.invalid_count,
  });

/** The refusal of a file already imported to the organization. */
export const repeatedFile = (earlier: ImportRecord): CoreError =>
  validationFailed("This file was already imported to this organization", [
    {
      field: "file",
      message: `is the same file as import ${earlier.id} of ${earlier.created_at.toISOString()}; send it again with repeat=true to import it anyway`,
    },
  ]);

export const getImport = async (store: ImportStore, organizationId: string, id: string): Promise<ImportRecord> =>
  orNotFound(await store.get(organizationId, id), "Import");

/** The go for an import checked first: its valid rows are issued by the workers from now on. */
export const startImport = async (
  store: ImportStore,
  ctx: ImportContext,
  organizationId: string,
  id: string,
): Promise<ImportRecord> => {
  const record = await getImport(store, organizationId, id);
  const started = await store.start(organizationId, id, ctx.now, [importAudit(ctx, record)]);
  if (!started)
    throw validationFailed("This import was already started", [{ field: "state", message: `is ${record.state}` }]);
  return started;
};

/** Rows worked (issued, written, or refused) out of all: the progress bar's value and maximum. */
export const importProgress = (r: ImportRecord): { value: number; max: number } => ({
  value: r.done_count + r.failed_count + r.invalid_count,
  max: r.row_count,
});

/** The state an import reaches once no row is left pending. */
export const endState = (doneCount: number): ImportState => (doneCount > 0 ? "finished" : "failed");

/** What a worker needs to issue an import's rows: the issuing and employee use cases' own deps. */
export interface ImportWorkDeps {
  store: ImportStore;
  issuing: IssuingDeps;
  /** Where the badges in employments are hosted. */
  urls: EmployeeContext["urls"];
}

export interface ImportWorkContext {
  now: Date;
  newId: () => string;
  newEventId: () => string;
  newSalt: () => string;
}

const byColumn = (errors: readonly FieldError[], prefix: string): FieldError[] =>
  errors.map((e) => ({
    field: e.field.startsWith(prefix) ? e.field.slice(prefix.length) : e.field,
    message: e.message,
  }));

type PendingRow = { row: number; item: Record<string, unknown> };

const badgeChunk = async (
  deps: ImportWorkDeps,
  ctx: ImportWorkContext,
  record: ImportRecord,
  candidates: PendingRow[],
): Promise<number> => {
  // The mail budget is a store of its own: taken before the chunk's transaction, since on a
  // one-connection database a second connection would wait for that transaction forever.
  const allowed = new Map<number, boolean>();
  const checks = checkBatchItems(candidates.map((c) => c.item));
  // One at a time: every take of an organization updates the same counter row.
  for (const [i, c] of candidates.entries()) {
    const check = checks[i];
    if (check?.ok) allowed.set(c.row, await mailAllowedFor(deps.issuing, record.organization_id, check.value));
  }
  return deps.store.claim(
    record.id,
    candidates.map((c) => c.row),
    async (claimed, tx) => {
      const checked = checkBatchItems(claimed.map((c) => c.item));
      const outcomes: RowOutcome[] = [];
      const ok: Array<{ row: number; value: NormalizedIssue }> = [];
      claimed.forEach((c, i) => {
        const check = checked[i];
        if (check?.ok) ok.push({ row: c.row, value: check.value });
        else if (check)
          outcomes.push({
            row: c.row,
            status: "failed",
            outcome_id: null,
            detail: null,
            errors: byColumn(check.error.errors, `badges.${i}.`),
          });
      });
      const results = await issueChecked(
        tx.issueWrites,
        deps.issuing,
        ctx,
        record.organization_id,
        ok.map((o) => ({ value: o.value, mailAllowed: allowed.get(o.row) ?? false })),
      );
      results.forEach((r, i) => {
        const row = (ok[i] as { row: number }).row;
        outcomes.push(
          r.ok
            ? { row, status: "done", outcome_id: r.value.view.badge.id, detail: "issued", errors: [] }
            : { row, status: "failed", outcome_id: null, detail: null, errors: byColumn(r.error.errors, "") },
        );
      });
      if (outcomes.length > 0) await tx.record(record.id, outcomes, ctx.now);
      return claimed.length;
    },
  );
};

const employeeChunk = (
  deps: ImportWorkDeps,
  ctx: ImportWorkContext,
  record: ImportRecord,
  candidates: PendingRow[],
): Promise<number> =>
  deps.store.claim(
    record.id,
    candidates.map((c) => c.row),
    async (claimed, tx) => {
      if (claimed.length === 0) return 0;
      const results = await upsertEmployees(
        tx.employees,
        { now: ctx.now, newId: ctx.newId, newEventId: ctx.newEventId, urls: deps.urls },
        record.organization_id,
        claimed.map((c) => c.item),
      );
      const outcomes = results.map((r): RowOutcome => {
        const row = (claimed[r.index] as PendingRow).row;
        return r.status === "failed"
          ? {
              row,
              status: "failed",
              outcome_id: null,
              detail: null,
              errors: byColumn(r.error.errors, `employees.${r.index}.`),
            }
          : { row, status: "done", outcome_id: r.id, detail: r.status, errors: [] };
      });
      await tx.record(record.id, outcomes, ctx.now);
      return claimed.length;
    },
  );

/**
 * One step of the import workers: the next pending rows of the oldest running import, issued and
 * recorded in one transaction. `worked` 0: nothing it could take. `size` (rows) below the kind's
 * chunk lets a caller work a failing chunk row by row.
 */
export const workImportChunk = async (
  deps: ImportWorkDeps,
  ctx: ImportWorkContext,
  size?: number,
): Promise<{ worked: number; importId: string | null; rows: number[] }> => {
  const next = await deps.store.pending(size ?? Math.max(CHUNK_ROWS.badges, CHUNK_ROWS.employees));
  if (!next) return { worked: 0, importId: null, rows: [] };
  const { record } = next;
  const rows = next.rows.slice(0, size ?? CHUNK_ROWS[record.kind]);
  const worked =
    record.kind === "badges" ? await badgeChunk(deps, ctx, record, rows) : await employeeChunk(deps, ctx, record, rows);
  return { worked, importId: record.id, rows: rows.map((r) => r.row) };
};
