import { type CoreError, isCoreError, validationFailed } from "../errors/mod.ts";
import { schemaFieldErrors } from "./field_errors.ts";
import { BadgeIssueBody } from "./input_schemas.ts";
import { type NormalizedIssue, normalizeIssue } from "./issue_rules.ts";

export type BatchItemCheck =
  | { index: number; ok: true; value: NormalizedIssue }
  | { index: number; ok: false; error: CoreError };

/**
 * Each batch item is validated on its own (schema, then `normalizeIssue`), with field paths
 * `badges.<i>.<field>`, so the route can issue the good items and report the bad ones.
 */
export const checkBatchItems = (items: readonly unknown[]): BatchItemCheck[] =>
  items.map((item, index) => {
    const prefix = `badges.${index}`;
    const errors = schemaFieldErrors(BadgeIssueBody, item, prefix);
    if (errors.length > 0) return { index, ok: false, error: validationFailed("Validation failed", errors) };
    const n = normalizeIssue(item as BadgeIssueBody, prefix);
    return isCoreError(n) ? { index, ok: false, error: n } : { index, ok: true, value: n };
  });
