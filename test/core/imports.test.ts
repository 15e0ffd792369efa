import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import {
  checkRows,
  csvLine,
  distinctTargets,
  endState,
  headerProblems,
  type ImportFill,
  issueRefusals,
  mailShortfall,
  neutralizeCell,
  previewImport,
  type RowRefusal,
  resultLine,
  settledPreview,
  type TargetFacts,
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
    headerProblems("badges", [...BADGE_COLUMNS.slice(2), "shoe", "shoe"]).map((p) => p.field),
    ["shoe", "shoe", "recipient_email", "shoe"],
  );
  t.same(headerProblems("badges", BADGE_COLUMNS.slice(1)), [], "badge_template_id may be left out");
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
  t.same(preview.problems, [
    { row: 1, field: "recipient_email", message: "must be an email address, such as name@example.org" },
  ]);
  t.equal(endState(0), "failed");
  t.equal(endState(3), "finished");
});

const U = "0190a0d8-0000-7000-8000-000000000002";
const RECIPIENTS = ["recipient_email", "issued_to_first_name", "issued_to_last_name", "issued_at"];

t.test("a badge row's template: its own cell wins, else the file's, else a problem of the column", async (t) => {
  const table: Array<[string, string[], string[], string | null, string | undefined, string[]]> = [
    ["the file's template", RECIPIENTS, ["a@example.org", "A", "B", "2024-01-01T09:00:00Z"], T, T, []],
    [
      "none chosen, no column",
      RECIPIENTS,
      ["a@example.org", "A", "B", "2024-01-01T09:00:00Z"],
      null,
      undefined,
      ["badge_template_id"],
    ],
    ["the row's own wins", BADGE_COLUMNS, [U, "a@example.org", "A", "B", "2024-01-01T09:00:00Z"], T, U, []],
    [
      "an empty cell takes the file's",
      BADGE_COLUMNS,
      ["", "a@example.org", "A", "B", "2024-01-01T09:00:00Z"],
      T,
      T,
      [],
    ],
    [
      "an empty cell, none chosen",
      BADGE_COLUMNS,
      ["", "a@example.org", "A", "B", "2024-01-01T09:00:00Z"],
      null,
      undefined,
      ["badge_template_id"],
    ],
    [
      "a bad id in the cell",
      BADGE_COLUMNS,
      ["x", "a@example.org", "A", "B", "2024-01-01T09:00:00Z"],
      T,
      "x",
      ["badge_template_id"],
    ],
  ];
  for (const [name, columns, cells, template, expected, fields] of table) {
    const [row] = checkRows("badges", columns, [{ row: 1, cells }], NOW, template);
    t.equal(row?.item.badge_template_id, expected, `${name}: template`);
    t.same(
      row?.errors.map((e) => e.field),
      fields,
      `${name}: problems`,
    );
    t.equal(
      row?.target?.template,
      fields.length === 0 ? expected : undefined,
      `${name}: checked against the organization`,
    );
  }
  const [none] = checkRows(
    "badges",
    RECIPIENTS,
    [{ row: 1, cells: ["a@example.org", "A", "B", "2024-01-01T09:00:00Z"] }],
    NOW,
  );
  t.same(none?.errors, [
    { field: "badge_template_id", message: "is missing: choose a template for the file, or name one in this column" },
  ]);
  const [mixed] = checkRows(
    "badges",
    BADGE_COLUMNS,
    [{ row: 1, cells: [U.toUpperCase(), "Ada@Example.org", "A", "B", "2024-01-01T09:00:00Z"] }],
    NOW,
  );
  t.same(mixed?.target, { template: U, key: "ada@example.org" }, "targets are compared as issuing compares them");
});

const fact = (over: Partial<TargetFacts> & { key: string }): TargetFacts => ({
  template: T,
  state: "active",
  allow_duplicate_badges: false,
  held: false,
  own: true,
  grants: [],
  ...over,
});

t.test("the issue's refusals, found before anything is issued", async (t) => {
  const row = (n: number, key: string, template = T) => ({ row: n, template, key });
  const table: Array<[string, Array<ReturnType<typeof row>>, TargetFacts[], Array<[number, string, RegExp]>]> = [
    ["an active template, a new recipient", [row(1, "a")], [fact({ key: "a" })], []],
    [
      "a template the organization does not have",
      [row(1, "a")],
      [fact({ key: "a", state: null })],
      [[1, "badge_template_id", /no badge template of this organization/]],
    ],
    ["a target nobody answered for", [row(1, "a")], [], [[1, "badge_template_id", /no badge template/]]],
    [
      "a draft template",
      [row(1, "a")],
      [fact({ key: "a", state: "draft" })],
      [[1, "badge_template_id", /is draft, not active/]],
    ],
    [
      "an archived template",
      [row(1, "a")],
      [fact({ key: "a", state: "archived" })],
      [[1, "badge_template_id", /is archived, not active/]],
    ],
    [
      "a badge already held",
      [row(1, "a")],
      [fact({ key: "a", held: true })],
      [[1, "recipient_email", /already has this badge/]],
    ],
    ["held, duplicates allowed", [row(1, "a")], [fact({ key: "a", held: true, allow_duplicate_badges: true })], []],
    [
      "another organization's template, no authorization",
      [row(1, "a")],
      [fact({ key: "a", own: false })],
      [[1, "badge_template_id", /no badge template of this organization/]],
    ],
    [
      "another organization's template, an accepted authorization naming it",
      [row(1, "a")],
      [fact({ key: "a", own: false, grants: [{ state: "accepted", all_templates: false, badge_template_ids: [T] }] })],
      [],
    ],
    [
      "another organization's template, an authorization of every template",
      [row(1, "a")],
      [fact({ key: "a", own: false, grants: [{ state: "accepted", all_templates: true, badge_template_ids: [] }] })],
      [],
    ],
    [
      "another organization's template, an authorization naming others",
      [row(1, "a")],
      [fact({ key: "a", own: false, grants: [{ state: "accepted", all_templates: false, badge_template_ids: [U] }] })],
      [[1, "badge_template_id", /no badge template of this organization/]],
    ],
    [
      "twice in the file",
      [row(1, "a"), row(2, "b"), row(3, "a")],
      [fact({ key: "a" }), fact({ key: "b" })],
      [[3, "recipient_email", /also on row 1/]],
    ],
    ["twice, duplicates allowed", [row(1, "a"), row(2, "a")], [fact({ key: "a", allow_duplicate_badges: true })], []],
    ["twice, two templates", [row(1, "a"), row(2, "a", U)], [fact({ key: "a" }), fact({ key: "a", template: U })], []],
    [
      "twice and held: both refused as held",
      [row(1, "a"), row(2, "a")],
      [fact({ key: "a", held: true })],
      [
        [1, "recipient_email", /already has/],
        [2, "recipient_email", /already has/],
      ],
    ],
  ];
  for (const [name, rows, facts, expected] of table) {
    const refusals = issueRefusals(rows, facts);
    t.same(
      refusals.flatMap((r) => r.errors.map((e) => [r.row, e.field])),
      expected.map(([n, f]) => [n, f]),
      name,
    );
    for (const [i, r] of refusals.entries())
      t.match(r.errors[0]?.message, expected[i]?.[2] ?? /^$/, `${name}: message`);
  }
  t.same(distinctTargets([row(1, "a"), row(2, "a"), row(3, "b")]), [
    { template: T, key: "a" },
    { template: T, key: "b" },
  ]);
});

t.test("the settled preview counts what the issue would refuse, asking once for the whole file", async (t) => {
  const asked: Array<Array<{ template: string; key: string }>> = [];
  const refused: RowRefusal[][] = [];
  const into = (facts: (key: string) => Partial<TargetFacts>): ImportFill => ({
    write: async () => {},
    facts: async (targets) => {
      asked.push(targets);
      return targets.map((x) => fact({ ...x, ...facts(x.key) }));
    },
    refuse: async (r) => {
      refused.push(r);
    },
  });
  const rows = [
    ["held@example.org", "A", "B", "2024-01-01T09:00:00Z"],
    ["bad", "A", "B", "2024-01-01T09:00:00Z"],
    ["new@example.org", "A", "B", "2024-01-01T09:00:00Z"],
    ["NEW@example.org", "A", "B", "2024-01-01T09:00:00Z"],
  ].map((cells, i) => ({ row: i + 1, cells }));
  const preview = await settledPreview(
    "badges",
    RECIPIENTS,
    rows,
    NOW,
    into((key) => ({ held: key === "held@example.org" })),
    T,
  );
  t.match(preview, { row_count: 4, valid_count: 1, invalid_count: 3 });
  t.same(
    preview.problems.map((p) => [p.row, p.field]),
    [
      [1, "recipient_email"],
      [2, "recipient_email"],
      [4, "recipient_email"],
    ],
    "the problems in row order, the file's own among the organization's",
  );
  t.equal(asked.length, 1, "one look-up");
  t.same(
    asked[0]?.map((x) => x.key),
    ["held@example.org", "new@example.org"],
    "each target once",
  );
  t.same(
    refused[0]?.map((r) => r.row),
    [1, 4],
    "the refused rows go to the store",
  );
  const unknown = await settledPreview(
    "badges",
    RECIPIENTS,
    rows.slice(2, 3),
    NOW,
    into(() => ({ state: null })),
    U,
  );
  t.match(unknown, { valid_count: 0, invalid_count: 1 });
  const people = await settledPreview(
    "employees",
    ["external_id", "email", "first_name", "last_name"],
    [{ row: 1, cells: ["E1", "a@example.org", "A", "B"] }],
    NOW,
    into(() => ({})),
  );
  t.match(people, { valid_count: 1 });
  t.equal(asked.length, 2, "employee files ask nothing");
  // More problems than are kept: the refusals of early rows come first, the list stays the file's first 1,000.
  const many = Array.from({ length: 1200 }, (_, i) => ({
    row: i + 1,
    cells: [i < 5 ? `held${i}@example.org` : "bad", "A", "B", "2024-01-01T09:00:00Z"],
  }));
  const capped = await settledPreview(
    "badges",
    RECIPIENTS,
    many,
    NOW,
    into(() => ({ held: true })),
    T,
  );
  t.match(capped, { row_count: 1200, valid_count: 0, invalid_count: 1200 });
  t.equal(capped.problems.length, 1000);
  t.same(
    capped.problems.slice(0, 6).map((p) => [p.row, p.field]),
    [
      [1, "recipient_email"],
      [2, "recipient_email"],
      [3, "recipient_email"],
      [4, "recipient_email"],
      [5, "recipient_email"],
      [6, "recipient_email"],
    ],
  );
  t.equal(capped.problems.at(-1)?.row, 1000);
});

t.test("badges past the organization's hourly mail budget go without their notification", async (t) => {
  const table: Array<[number, number, number]> = [
    [0, 1000, 0],
    [999, 1000, 0],
    [1000, 1000, 0],
    [1001, 1000, 1],
    [10_000, 1000, 9000],
    [200, 150, 50],
  ];
  for (const [notifying, perHour, short] of table)
    t.equal(mailShortfall(notifying, perHour), short, `${notifying} notifying, ${perHour} an hour`);
});
