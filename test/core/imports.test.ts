import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import {
  checkRows,
  csvLine,
  endState,
  headerProblems,
  neutralizeCell,
  previewImport,
  resultLine,
} from "../../core/imports/mod.ts";

/** The import rules without I/O: headers, rows by column, limits, result-file cells. */

const NOW = new Date("2026-01-01T00:00:00Z");
const T = "0190a0d8-0000-7000-8000-000000000001";
const BADGE_COLUMNS = [
  "badge_template_id",
  "recipient_email",
  "issued_to_first_name",
  "issued_to_last_name",
  "issued_at",
];

t.test("a formula prefix makes a cell text; other cells are kept", async (t) => {
  const table: Array<[string, string]> = [
    ["=1+1", "'=1+1"],
    ["+1@example.org", "'+1@example.org"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tx", "'\tx"],
    ["\rx", "'\rx"],
    ["ada@example.org", "ada@example.org"],
    ["", ""],
    ["a=b", "a=b"],
  ];
  for (const [cell, expected] of table) t.equal(neutralizeCell(cell), expected, JSON.stringify(cell));
  t.equal(csvLine(["1", '=HYPERLINK("x")', "a,b"]), `1,"'=HYPERLINK(""x"")","a,b"\r\n`);
  t.equal(
    resultLine({
      row: 3,
      status: "invalid",
      item: { recipient_email: "-x" },
      outcome_id: null,
      detail: null,
      errors: [{ field: "recipient_email", message: 'must match format "email"' }],
    }),
    `3,invalid,,'-x,"recipient_email: must match format ""email"""\r\n`,
  );
});

t.test("headers: unknown, missing and repeated columns, per kind", async (t) => {
  t.same(headerProblems("badges", BADGE_COLUMNS), []);
  t.same(
    headerProblems("badges", [...BADGE_COLUMNS.slice(1), "shoe", "shoe"]).map((p) => p.field),
    ["shoe", "shoe", "badge_template_id", "shoe"],
  );
  t.same(headerProblems("employees", ["email", "first_name", "last_name", "external_id", "team"]), []);
  t.same(
    headerProblems("employees", ["email", "first_name", "last_name"]).map((p) => [p.field, p.message]),
    [["external_id", "is a required column and is missing"]],
  );
});

t.test("rows are checked with the batch rules, each problem named by its column", async (t) => {
  const rows = [
    [T, "ada@example.org", "Ada", "Lovelace", "2024-03-01T10:00:00Z"],
    [T, "nope", "Ada", "Lovelace", "2024-03-01T10:00:00Z"],
    [T, "ada@example.org", "Ada", "Lovelace", "2999-01-01T00:00:00Z"],
    ["x", "ada@example.org", "", "Lovelace", "2024-03-01T10:00:00Z"],
    [T, "ada@example.org", "Ada"],
  ].map((cells, i) => ({ row: i + 1, cells }));
  const checked = checkRows("badges", BADGE_COLUMNS, rows, NOW);
  t.same(
    checked.map((r) => r.errors.map((e) => e.field)),
    [
      [],
      ["recipient_email"],
      ["issued_at"],
      ["badge_template_id", "issued_to_first_name"],
      ["row", "issued_at", "issued_to_last_name"],
    ],
  );
  const optional = checkRows(
    "badges",
    [...BADGE_COLUMNS, "evidence_url", "suppress_badge_notification_email"],
    [
      { row: 1, cells: [T, "a@example.org", "A", "B", "2024-01-01", "https://example.org/e", "yes"] },
      { row: 2, cells: [T, "a@example.org", "A", "B", "2024-01-01", "ftp:nope", "maybe"] },
    ],
    NOW,
  );
  t.same(optional[0]?.item.evidence, [
    { type: "UrlEvidence", name: "https://example.org/e", value: "https://example.org/e" },
  ]);
  t.equal(optional[0]?.item.suppress_badge_notification_email, true);
  t.same(
    optional[1]?.errors.map((e) => e.field),
    ["suppress_badge_notification_email", "evidence_url"],
  );
  const people = checkRows(
    "employees",
    ["external_id", "email", "first_name", "last_name"],
    [
      { row: 1, cells: ["E1", "a@example.org", "A", "B"] },
      { row: 2, cells: ["E1", "b@example.org", "A", "B"] },
      { row: 3, cells: ["E2", "b@example.org", "", "B"] },
    ],
    NOW,
  );
  t.same(
    people.map((r) => r.errors.map((e) => [e.field, e.message])),
    [[], [["external_id", "appears more than once in the file"]], [["first_name", "is required"]]],
  );
});

t.test("a file without rows or over the limit is refused as a whole", async (t) => {
  const refused = (fn: () => unknown) => {
    try {
      fn();
      return null;
    } catch (err) {
      return isCoreError(err) ? err.message : String(err);
    }
  };
  t.match(
    refused(() => previewImport("badges", BADGE_COLUMNS, [], NOW)),
    /no rows/,
  );
  const many = Array.from({ length: 10_001 }, (_, i) => ({ row: i + 1, cells: [] as string[] }));
  t.match(
    refused(() => previewImport("badges", BADGE_COLUMNS, many, NOW)),
    /at most 10,000 rows/,
  );
  t.match(
    refused(() => previewImport("badges", ["x"], [{ row: 1, cells: ["y"] }], NOW)),
    /header row/,
  );
  const preview = previewImport("badges", BADGE_COLUMNS, [{ row: 1, cells: [T, "x", "A", "B", "2024-01-01"] }], NOW);
  t.match(preview, { row_count: 1, valid_count: 0, invalid_count: 1 });
  t.same(preview.problems, [{ row: 1, field: "recipient_email", message: 'must match format "email"' }]);
  t.equal(endState(0), "failed");
  t.equal(endState(3), "finished");
});
