import { checkIssue, type TemplateState, UNKNOWN_TEMPLATE_MESSAGE } from "../badges/mod.ts";
import { type FieldError, resultOf } from "../errors/mod.ts";
import { covers, type IssuerAuthorizationRecord } from "../issuer_authorizations/mod.ts";

/** The template and recipient of a badge row that passed its own checks (`normalizeEmail`'s key). */
export interface IssueTarget {
  template: string;
  key: string;
}

/**
 * What the organization holds for one target: its template (`state` null when none of the
 * organization's templates has that id) and whether the recipient holds a live badge of it
 * (pending or accepted, as issuing's own lookup counts one).
 */
export interface TargetFacts extends IssueTarget {
  state: TemplateState | null;
  allow_duplicate_badges: boolean;
  held: boolean;
  /** The template is the importing organization's own; else another's, issued only within an authorization. */
  own: boolean;
  /** The importing organization's accepted authorizations by the template's owner, when it is another's. */
  grants: ReadonlyArray<Pick<IssuerAuthorizationRecord, "state" | "all_templates" | "badge_template_ids">>;
}

/** Whether the organization may issue the target's template: its own, or one an accepted authorization covers. */
const mayIssue = (f: TargetFacts): boolean => f.own || f.grants.some((g) => covers(g, f.template));

/** A row found unissuable once the whole file is read, with its problems by column. */
export interface RowRefusal {
  row: number;
  errors: FieldError[];
}

const targetKey = (t: IssueTarget): string => `${t.template}\n${t.key}`;

/** Each target once, for one look-up over the whole file. */
export const distinctTargets = (targets: readonly IssueTarget[]): IssueTarget[] => {
  const seen = new Map<string, IssueTarget>();
  for (const t of targets) if (!seen.has(targetKey(t))) seen.set(targetKey(t), { template: t.template, key: t.key });
  return [...seen.values()];
};

/**
 * The rows the issue would refuse, by the rules and messages issuing applies to each badge: a
 * template the organization does not have, one not active, a recipient already holding a live
 * badge of a template that gives it once. Two rows of one file for the same recipient and such a
 * template would meet the same rule when issued, so the later one is refused here, naming the
 * earlier. `rows` are the file's valid rows in file order.
 */
export const issueRefusals = (
  rows: ReadonlyArray<IssueTarget & { row: number }>,
  facts: readonly TargetFacts[],
): RowRefusal[] => {
  const known = new Map(facts.map((f) => [targetKey(f), f]));
  const firstRow = new Map<string, number>();
  const refusals: RowRefusal[] = [];
  for (const r of rows) {
    const key = targetKey(r);
    const f = known.get(key);
    if (!f || f.state === null || !mayIssue(f)) {
      refusals.push({ row: r.row, errors: [{ field: "badge_template_id", message: UNKNOWN_TEMPLATE_MESSAGE }] });
      continue;
    }
    const template = { id: f.template, state: f.state, allow_duplicate_badges: f.allow_duplicate_badges };
    const rule = resultOf(() => checkIssue(template, f.held));
    if (!rule.ok) {
      refusals.push({ row: r.row, errors: rule.error.errors });
      continue;
    }
    if (f.allow_duplicate_badges) continue;
    const earlier = firstRow.get(key);
    if (earlier === undefined) firstRow.set(key, r.row);
    else
      refusals.push({
        row: r.row,
        errors: [
          {
            field: "recipient_email",
            message: `is also on row ${earlier} for this template, which gives a person its badge once`,
          },
        ],
      });
  }
  return refusals;
};
