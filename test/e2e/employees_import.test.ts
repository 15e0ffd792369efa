import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { apiClient, eventRows, trpc } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { runTs } from "../support/processes.ts";
import { tempDir } from "../support/services.ts";

/** `employees import`: a CSV export of an HR system, through the CLI, on PostgreSQL. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
const dir = tempDir();
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(async () => {
  await laurel.close();
  dir.remove();
});

const cli = (...args: string[]) =>
  runTs("apps/cli.ts", args, { LAUREL_URL: laurel.adminOrigin, LAUREL_ADMIN_TOKEN: laurel.server.adminToken });
const file = (name: string, text: string): string => {
  const path = join(dir.path, name);
  writeFileSync(path, text);
  return path;
};

const PEOPLE = [
  "\uFEFFemail,first_name,last_name,external_id,team,position_title",
  'ada@example.com,Ada,"Lovelace, Countess",E-1,"Engines ""Analytical""",Programmer',
  "zoe@example.com,Zoë,Ångström,E-2,Физика,Физик",
  "",
  "not-an-address,Bad,Row,E-3,,",
  "wtb@example.com,渡辺,健,E-4,,",
  "short@example.com,Short,Row",
  '"multi@example.com",Multi,"Line',
  'Name",E-5,,',
].join("\r\n");

t.test(
  "quoted fields, UTF-8, a blank line and bad rows: reported, the rest imported; twice changes nothing",
  async (t) => {
    const { organization, authorization_token } = await laurel.createOrganization("HR Co");
    // The imported records are read back in full: the organization is authorized for workforce data.
    await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: true });
    const path = file("people.csv", PEOPLE);
    const first = await cli("employees", "import", "--organization", organization.id, "--file", path, "--json");
    t.equal(first.code, 1, "failed rows make the exit code 1");
    const report = JSON.parse(first.stdout);
    t.match(report, { rows: 6, created: 4, updated: 0, unchanged: 0, failed: 2 });
    t.match(report.errors, [
      { line: 5, external_id: "E-3", errors: [{ field: "email" }] },
      { line: 7, external_id: null, errors: [{ field: "row", message: "has 3 cells where the header has 6" }] },
    ]);
    const list = await api(
      "GET",
      `/organizations/${organization.id}/employees?sort=email`,
      basic(authorization_token.token),
    );
    t.same(
      list.body.data.map((e: Record<string, unknown>) => [
        e.external_id,
        e.first_name,
        e.last_name,
        e.team,
        e.position_title,
      ]),
      [
        ["E-1", "Ada", "Lovelace, Countess", 'Engines "Analytical"', "Programmer"],
        ["E-5", "Multi", "Line\r\nName", null, ""],
        ["E-4", "渡辺", "健", null, ""],
        ["E-2", "Zoë", "Ångström", "Физика", "Физик"],
      ],
    );
    const events = (await eventRows(laurel, organization.id)).length;
    t.equal(events, 4, "one employment.created per record");

    const again = await cli("employees", "import", "--organization", organization.id, "--file", path);
    t.equal(again.code, 1);
    t.match(again.stdout, /^6 rows: 0 created, 0 updated, 4 unchanged, 2 failed\n {2}line 5 \(E-3\): email /);
    t.equal((await eventRows(laurel, organization.id)).length, events, "importing the same file again records nothing");

    const changed = file(
      "changed.csv",
      "email,first_name,last_name,external_id,team\nada@example.com,Ada,Byron,E-1,\n",
    );
    const update = await cli("employees", "import", "--organization", organization.id, "--file", changed);
    t.equal(update.code, 0, update.stderr);
    t.match(update.stdout, "1 rows: 0 created, 1 updated, 0 unchanged, 0 failed");
    const [ada] = (
      await api("GET", `/organizations/${organization.id}/employees?external_id=E-1`, basic(authorization_token.token))
    ).body.data;
    t.match(
      ada,
      { last_name: "Byron", team: null, position_title: "Programmer" },
      "an empty cell clears, a missing column keeps",
    );
  },
);

t.test("usage errors: exit code 2, nothing sent", async (t) => {
  const { organization } = await laurel.createOrganization("Careful Co");
  const cases: Array<[string, string[], RegExp]> = [
    ["no --file", ["--organization", organization.id], /needs --file/],
    [
      "unknown column",
      ["--organization", organization.id, "--file", file("u.csv", "email,first_name,last_name,external_id,salary\n")],
      /unknown columns salary/,
    ],
    [
      "missing column",
      ["--organization", organization.id, "--file", file("m.csv", "email,first_name\n")],
      /missing columns last_name, external_id/,
    ],
    ["empty file", ["--organization", organization.id, "--file", file("e.csv", "")], /needs a header row/],
    [
      "unclosed quote",
      [
        "--organization",
        organization.id,
        "--file",
        file("q.csv", 'email,first_name,last_name,external_id\n"a,b,c,d\n'),
      ],
      /not valid CSV/,
    ],
    ["unreadable", ["--organization", organization.id, "--file", join(dir.path, "none.csv")], /Cannot read/],
  ];
  for (const [name, args, message] of cases) {
    const r = await cli("employees", "import", ...args);
    t.equal(r.code, 2, name);
    t.match(r.stderr, message, name);
  }
  t.equal((await eventRows(laurel, organization.id)).length, 0);
});

t.test("a 10,000-row file", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Big Co");
  const lines = ["email,first_name,last_name,external_id,department"];
  for (let i = 0; i < 10_000; i++) lines.push(`p${i}@example.com,Person,Number ${i},X-${i},Dept ${i % 7}`);
  const path = file("big.csv", `${lines.join("\n")}\n`);
  const first = await cli("employees", "import", "--organization", organization.id, "--file", path, "--json");
  t.equal(first.code, 0, first.stderr);
  t.match(JSON.parse(first.stdout), { rows: 10_000, created: 10_000, failed: 0, errors: [] });
  const list = await api(
    "GET",
    `/organizations/${organization.id}/employees?department=Dept%203`,
    basic(authorization_token.token),
  );
  t.equal(list.body.metadata.total_count, 1429);
  const second = await cli("employees", "import", "--organization", organization.id, "--file", path, "--json");
  t.match(JSON.parse(second.stdout), { rows: 10_000, created: 0, updated: 0, unchanged: 10_000 });
  t.equal((await eventRows(laurel, organization.id)).length, 10_000, "no event from the second import");
});
