export type { CheckedRow, ImportInputRow, ImportKind } from "./columns.ts";
export { COLUMNS, checkRows, headerProblems, IMPORT_KINDS, isImportKind, rowChecker } from "./columns.ts";
export type {
  ImportContext,
  ImportFill,
  ImportPreview,
  ImportRecord,
  ImportRow,
  ImportState,
  ImportStore,
  ImportTemplate,
  ImportTx,
  ImportWorkContext,
  ImportWorkDeps,
  RowOutcome,
  RowProblem,
  RowStatus,
} from "./imports.ts";
export {
  CHUNK_ROWS,
  checkHeader,
  checkRowCount,
  createImport,
  dryRun,
  endState,
  getImport,
  IMPORT_LIMITS,
  IMPORT_RECORD_LIMITS,
  IMPORT_STATES,
  importProgress,
  mailShortfall,
  maxImportColumns,
  PROBLEMS_KEPT,
  previewChecked,
  previewCollector,
  previewImport,
  recordTooLarge,
  repeatedFile,
  settledPreview,
  startImport,
  workImportChunk,
} from "./imports.ts";
export type { IssueTarget, RowRefusal, TargetFacts } from "./issue_check.ts";
export { distinctTargets, issueRefusals } from "./issue_check.ts";
export { csvLine, neutralizeCell, RESULT_HEADER, resultLine, rowKey } from "./result_file.ts";
