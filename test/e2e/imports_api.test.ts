import t from "tap";
import {
  apiClient,
  createTemplate,
  eventRows,
  eventually,
  issueBody,
  type OrgFixture,
  organization,
} from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * CSV imports over REST: the dry run's preview, an import started and polled to its end with its
 * result file, the same file twice, hostile cells, files refused as a whole, and employees.
 */

let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel({ importWorker: true });
});
t.teardown(() => laurel.close());

const HEADER = "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at";

const post = async (
  org: OrgFixture,
  path: string,
  body: BodyInit,
  type = "text/csv",
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of several shapes
): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${laurel.baseUrl}/organizations/${org.id}/${path}`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": type },
    body,
  });
  return { status: res.status, body: await res.json() };
};
// biome-ignore lint/suspicious/noExplicitAny: JSON answers
const get = async (org: OrgFixture, path: string): Promise<any> => {
  const res = await fetch(`${laurel.baseUrl}/organizations/${org.id}/${path}`, {
    headers: { authorization: org.auth },
  });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()).data;
};
const finished = (org: OrgFixture, kind: string, id: string) =>
  eventually(async () => {
    const r = await get(org, `${kind}/imports/${id}`);
    return r.state === "finished" || r.state === "failed" ? r : undefined;
  }, 30_000);

const badgeCsv = (template: string, n: number, extra: string[] = []) =>
  [
    HEADER,
    ...Array.from({ length: n }, (_, i) => `${template},person${i}@example.org,Ada,Lovelace,2024-03-01T10:00:00Z`),
    ...extra,
  ].join("\n");

t.test("a dry run answers the preview, by row and column, and stores and issues nothing", async (t) => {
  const org = await organization(laurel, "Dry Run Org");
  const template = (await createTemplate(laurel, org)).id;
  const csv = badgeCsv(template, 3, [
    `${template},not-an-address,Ada,Lovelace,2024-03-01T10:00:00Z`,
    `${template},ok@example.org,,Lovelace,2024-03-01`,
    `${template},later@example.org,Ada,Lovelace,2999-01-01`,
  ]);
  const res = await post(org, "badges/imports?dry_run=true", csv);
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.match(res.body.data, { dry_run: true, row_count: 6, valid_count: 3, invalid_count: 3 });
  t.same(
    res.body.data.errors.map((e: { row: number; column: string }) => [e.row, e.column]),
    [
      [4, "recipient_email"],
      [5, "issued_to_first_name"],
      [6, "issued_at"],
    ],
  );
  const [n] = await laurel.db.all<{ n: number }>("select count(*)::int as n from imports where organization_id = ?", [
    org.id,
  ]);
  t.equal(n?.n, 0, "no import stored");
  t.equal((await eventRows(laurel, org.id, "badge.created")).length, 0, "no badge issued");
});

t.test("the dry run finds every row the issue would refuse, and the import then does what it said", async (t) => {
  const org = await organization(laurel, "Truthful Check Org");
  const chosen = (await createTemplate(laurel, org, { name: "Chosen" })).id;
  const draft = (await createTemplate(laurel, org, { name: "Draft", state: "draft" })).id;
  const archived = (await createTemplate(laurel, org, { name: "Archived" })).id;
  await laurel.db.run("update badge_templates set state = 'archived' where id = ?", [archived]);
  const many = (await createTemplate(laurel, org, { name: "Many", allow_duplicate_badges: true })).id;
  const elsewhere = (await createTemplate(laurel, await organization(laurel, "Other Org"))).id;
  const held = await apiClient(laurel)(
    "POST",
    org.badges,
    org.auth,
    issueBody(chosen, { recipient_email: "held@example.org" }),
  );
  t.equal(held.status, 201);
  const row = (template: string, email: string) => `${template},${email},Ada,Lovelace,2024-03-01T10:00:00Z`;
  const csv = [
    HEADER,
    row("", "new@example.org"),
    row("", "Held@Example.org"),
    row(draft, "d@example.org"),
    row(archived, "a@example.org"),
    row(elsewhere, "e@example.org"),
    row("", "NEW@example.org"),
    row(many, "held@example.org"),
    row(many, "twice@example.org"),
    row(many, "twice@example.org"),
  ].join("\n");
  const expected = [
    [2, "recipient_email", /already has this badge/],
    [3, "badge_template_id", /draft, not active/],
    [4, "badge_template_id", /archived, not active/],
    [5, "badge_template_id", /no badge template of this organization/],
    [6, "recipient_email", /also on row 1/],
  ] as const;
  const dry = await post(org, `badges/imports?dry_run=true&badge_template_id=${chosen}`, csv);
  t.equal(dry.status, 200, JSON.stringify(dry.body));
  t.match(dry.body.data, { row_count: 9, valid_count: 4, invalid_count: 5 });
  t.same(
    dry.body.data.errors.map((e: { row: number; column: string }) => [e.row, e.column]),
    expected.map(([r, c]) => [r, c]),
  );
  for (const [i, [, , message]] of expected.entries()) t.match(dry.body.data.errors[i].message, message);

  const started = await post(org, `badges/imports?badge_template_id=${chosen}`, csv);
  t.equal(started.status, 201, JSON.stringify(started.body));
  t.match(started.body.data, { valid_count: 4, invalid_count: 5 }, "the import counts as its check did");
  const done = await finished(org, "badges", started.body.data.id);
  t.match(done, { state: "finished", done_count: 4, failed_count: 0 }, "and issues every row it called valid");
  t.same(
    done.errors.map((e: { row: number; column: string }) => [e.row, e.column]),
    expected.map(([r, c]) => [r, c]),
  );
  const [issued] = await laurel.db.all<{ n: number }>(
    "select count(*)::int as n from badges where badge_template_id = ? and recipient_email = 'new@example.org'",
    [chosen],
  );
  t.equal(issued?.n, 1, "the rows without their own template got the chosen one");

  const again = await post(org, `badges/imports?dry_run=true&badge_template_id=${chosen}`, csv);
  t.match(again.body.data, { valid_count: 3, repeat_of: started.body.data.id }, "the same file again");
  t.same(
    again.body.data.errors
      .filter((e: { message: string }) => /already has/.test(e.message))
      .map((e: { row: number }) => e.row),
    [1, 2, 6],
    "its issued rows are found already held; only the template allowing duplicates issues again",
  );
  const none = await post(
    org,
    "badges/imports?dry_run=true",
    [
      "recipient_email,issued_to_first_name,issued_to_last_name,issued_at",
      "x@example.org,X,Y,2024-03-01T10:00:00Z",
    ].join("\n"),
  );
  t.match(none.body.data, { valid_count: 0, invalid_count: 1 }, "no template chosen, no column");
  t.same(none.body.data.errors, [
    {
      row: 1,
      column: "badge_template_id",
      message: "is missing: choose a template for the file, or name one in this column",
    },
  ]);
  const bad = await post(org, "badges/imports?dry_run=true&badge_template_id=nope", csv);
  t.equal(bad.status, 400, "a template id that is no id: 400");
  const people = await fetch(
    `${laurel.baseUrl}/organizations/${org.id}/employees/imports?dry_run=true&badge_template_id=${chosen}`,
    {
      method: "POST",
      headers: { authorization: org.auth, "content-type": "text/csv" },
      body: "external_id,email,first_name,last_name\nE1,e@example.org,E,F",
    },
  );
  t.match(people.headers.get("laurel-ignored-parameters"), /badge_template_id/, "an employee import takes no template");
});

t.test("an import starts at once, is polled to its end, and its result file names every row", async (t) => {
  const org = await organization(laurel, "Started Org");
  const template = (await createTemplate(laurel, org)).id;
  const csv = badgeCsv(template, 450, [`${template},bad,Ada,Lovelace,2024-03-01T10:00:00Z`]);
  const res = await post(org, "badges/imports?file_name=class.csv", csv);
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.match(res.body.data, {
    state: "running",
    row_count: 451,
    valid_count: 450,
    invalid_count: 1,
    file_name: "class.csv",
  });
  const done = await finished(org, "badges", res.body.data.id);
  t.match(done, { state: "finished", done_count: 450, failed_count: 0, pending_count: 0 });
  t.same(done.errors, [{ row: 451, column: "recipient_email", message: done.errors[0].message }]);
  t.equal((await eventRows(laurel, org.id, "badge.created")).length, 450, "450 badge.created events");
  const file = await fetch(done.result_url, { headers: { authorization: org.auth } });
  t.equal(file.status, 200);
  t.match(file.headers.get("content-type"), /^text\/csv/);
  const lines = (await file.text()).trimEnd().split("\r\n");
  t.equal(lines[0], "row,status,id,key,errors");
  t.equal(lines.length, 452);
  t.match(lines[1], /^1,issued,[0-9a-f-]{36},person0@example\.org,$/);
  t.match(lines[451], /^451,invalid,,bad,"recipient_email: must be an email address, such as name@example\.org"$/);
  const ids = new Set(lines.slice(1, 451).map((l) => l.split(",")[2]));
  const [issued] = await laurel.db.all<{ n: number }>(
    "select count(*)::int as n from badges where organization_id = ? and id = any(?::uuid[])",
    [org.id, `{${[...ids].join(",")}}`],
  );
  t.equal(issued?.n, 450, "the result file's ids are the badges issued");
});

t.test("the same file again is refused before anything is issued, unless repeat=true", async (t) => {
  const org = await organization(laurel, "Twice Org");
  const template = (await createTemplate(laurel, org, { allow_duplicate_badges: true })).id;
  const csv = badgeCsv(template, 5);
  const first = await post(org, "badges/imports", csv);
  t.equal(first.status, 201);
  await finished(org, "badges", first.body.data.id);
  const again = await post(org, "badges/imports", csv);
  t.equal(again.status, 422);
  t.equal(again.body.data.code, "validation_failed");
  t.match(again.body.data.errors[0], { field: "file", message: new RegExp(first.body.data.id) });
  const dry = await post(org, "badges/imports?dry_run=true", csv);
  t.equal(dry.body.data.repeat_of, first.body.data.id, "the dry run names the earlier import");
  t.equal((await eventRows(laurel, org.id, "badge.created")).length, 5, "nothing more issued");
  const repeated = await post(org, "badges/imports?repeat=true", csv);
  t.equal(repeated.status, 201);
  t.equal(repeated.body.data.repeat_of, first.body.data.id);
  await finished(org, "badges", repeated.body.data.id);
  t.equal((await eventRows(laurel, org.id, "badge.created")).length, 10);
});

t.test("cells the result file echoes cannot start a formula", async (t) => {
  const org = await organization(laurel, "Hostile Org");
  const template = (await createTemplate(laurel, org)).id;
  const csv = [
    HEADER,
    `${template},"=HYPERLINK(""http://evil.example/"",""x"")",Ada,Lovelace,2024-03-01T10:00:00Z`,
    `${template},+1@example.org,<b>Ada</b>,Lovelace,2024-03-01T10:00:00Z`,
    `${template},-2@example.org,Ada,Lovelace,2024-03-01T10:00:00Z`,
    `${template},@cmd,Ada,Lovelace,2024-03-01T10:00:00Z`,
    `${template},"\tx@example.org",Ada,Lovelace,2024-03-01T10:00:00Z`,
  ].join("\n");
  const res = await post(org, "badges/imports", csv);
  t.equal(res.status, 201, JSON.stringify(res.body));
  const done = await finished(org, "badges", res.body.data.id);
  const text = await (await fetch(done.result_url, { headers: { authorization: org.auth } })).text();
  const cells = text
    .trimEnd()
    .split("\r\n")
    .slice(1)
    .map((l) => l.split(",").slice(3));
  for (const line of text.trimEnd().split("\r\n").slice(1)) {
    for (const cell of line.match(/("([^"]|"")*"|[^,]*)(,|$)/g) ?? []) {
      const value = cell.replace(/,$/, "").replace(/^"|"$/g, "");
      t.notMatch(value, /^[=+\-@\t\r]/, `no cell starts a formula: ${JSON.stringify(value)}`);
    }
  }
  t.match(cells[0]?.join(","), /^"'=HYPERLINK/, "the formula is quoted as text");
  t.match(cells[1]?.[0], "'+1@example.org");
  t.match(cells[2]?.[0], "'-2@example.org");
  const [badge] = await laurel.db.all<{ issued_to_first_name: string }>(
    "select issued_to_first_name from badges where organization_id = ? and recipient_email = '+1@example.org'",
    [org.id],
  );
  t.equal(badge?.issued_to_first_name, "<b>Ada</b>", "the name is stored as sent (pages escape it)");
});

t.test("files that are not a CSV of this import are refused as a whole, never a 500", async (t) => {
  const org = await organization(laurel, "Bad Files Org");
  const template = (await createTemplate(laurel, org)).id;
  const cases: Array<[string, BodyInit, string, number, RegExp]> = [
    [
      "UTF-8, then not",
      Buffer.concat([Buffer.from("bé,"), Buffer.from([0x61, 0xff, 0x0a])]),
      "text/csv",
      422,
      /not text in UTF-8 or Windows-1252/,
    ],
    ["empty", "", "text/csv", 422, /header/],
    ["no rows", `${HEADER}\n`, "text/csv", 422, /no rows/],
    ["unknown column", `${HEADER},shoe_size\n${template},a@example.org,A,B,2024-01-01,44`, "text/csv", 422, /header/],
    ["missing column", "recipient_email\na@example.org", "text/csv", 422, /header/],
    ["a quote left open", `${HEADER}\n${template},"a@example.org,A,B,2024-01-01`, "text/csv", 422, /not valid CSV/],
    ["a NUL", `${HEADER}\n${template},a\u0000@example.org,A,B,2024-01-01`, "text/csv", 422, /NUL/],
    ["too many rows", badgeCsv(template, 10_001), "text/csv", 422, /at most 10,000 rows/],
    ["JSON", JSON.stringify({ rows: [] }), "application/json", 415, /./],
  ];
  for (const [name, body, type, status, message] of cases) {
    const res = await post(org, "badges/imports", body, type);
    t.equal(res.status, status, `${name}: ${status}`);
    t.match(res.body.data.message, message, name);
  }
  const big = await post(org, "badges/imports", "x".repeat(9 * 1024 * 1024));
  t.equal(big.status, 413, "a file over the byte limit: 413");
  t.equal((await eventRows(laurel, org.id, "badge.created")).length, 0);
});

t.test("employee records import through REST, in the workforce scope", async (t) => {
  const org = await organization(laurel, "Workforce Org");
  const csv = [
    "external_id,email,first_name,last_name,department",
    ...Array.from({ length: 30 }, (_, i) => `E${i},e${i}@example.org,Emp,${i},Sales`),
    "E3,dup@example.org,Dup,Licate,Sales",
    "E99,not-an-address,Bad,Row,",
  ].join("\n");
  const res = await post(org, "employees/imports", csv);
  t.equal(res.status, 201, JSON.stringify(res.body));
  const done = await finished(org, "employees", res.body.data.id);
  t.match(done, { state: "finished", done_count: 30, invalid_count: 2 });
  t.same(
    done.errors.map((e: { row: number; column: string }) => [e.row, e.column]),
    [
      [31, "external_id"],
      [32, "email"],
    ],
  );
  t.equal((await eventRows(laurel, org.id, "employment.created")).length, 30);
  const lines = (await (await fetch(done.result_url, { headers: { authorization: org.auth } })).text()).split("\r\n");
  t.match(lines[1], /^1,created,[0-9a-f-]{36},E0,$/);
  const other = await get(org, `employees/imports/${done.id}`);
  t.equal(other.id, done.id);
  const asBadges = await fetch(`${laurel.baseUrl}/organizations/${org.id}/badges/imports/${done.id}`, {
    headers: { authorization: org.auth },
  });
  t.equal(asBadges.status, 404, "an employee import is not a badge import");
});
