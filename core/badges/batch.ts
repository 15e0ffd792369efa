import { fail, type Result, resultOf, validationFailed } from "../errors/mod.ts";
import { schemaFieldErrors } from "./field_errors.ts";
import { BadgeIssueBody } from "./input_schemas.ts";
import { type NormalizedIssue, normalizeIssue } from "./issue_rules.ts";

/** One item's check: a bad item is reported at its index, not a failure of the batch. */
export type BatchItemCheck = { index: number } & Result<NormalizedIssue>;

/**
 * Each batch item is validated on its own (schema, then `normalizeIssue`), with field paths
 * `badges.<i>.<field>`, so the route can issue the good items and report the bad ones.
 */
export const checkBatchItems = (items: readonly unknown[]): BatchItemCheck[] =>
  items.map((item, index) => {
    const prefix = `badges.${index}`;
    const errors = schemaFieldErrors(BadgeIssueBody, item, prefix);
    if (errors.length > 0) return { index, ...fail(validationFailed("Validation failed", errors)) };
    return { index, ...resultOf(() => normalizeIssue(item as BadgeIssueBody, prefix)) };
  });
