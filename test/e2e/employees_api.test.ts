import t from "tap";
import { apiClient, eventRows, eventually, rowXmin, trpc } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/** Employee records over REST, end to end on PostgreSQL: CRUD, list, batch upsert, invitations. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
t.before(async () => {
  smtp = await startSmtpSink();
  laurel = await startLaurel({
    env: { SMTP_URL: smtp.url, PUBLIC_URL: "https://badges.example", INVITATIONS_PER_HOUR: "5" },
  });
  api = apiClient(laurel);
});
t.teardown(async () => {
  await laurel.close();
  await smtp.close();
});

/** An organization authorized for workforce data: these tests read employments in full. */
const employer = async (name: string) => {
  const { organization, authorization_token } = await laurel.createOrganization(name);
  await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: true });
  return {
    id: organization.id,
    auth: basic(authorization_token.token),
    path: `/organizations/${organization.id}/employees`,
  };
};

const ada = { email: "Ada@Example.com", first_name: "Ada", last_name: "Lovelace", external_id: "E-1" };

t.test("create, get, update, delete; each event in the same transaction", async (t) => {
  const org = await employer("Engines Ltd");
  const created = await api("POST", org.path, org.auth, {
    ...ada,
    team: "Analytical",
    department: "R&D",
    employment_histories: [{ current: true, employer_job_title: "Programmer" }],
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const e = created.body.data;
  t.equal(created.headers.get("location"), `${laurel.baseUrl}${org.path}/${e.id}`);
  t.match(e, {
    email: "Ada@Example.com",
    full_name: "Ada Lovelace",
    employee_state: "created",
    last_invitation_sent_at: null,
    photo_url: null,
    team: "Analytical",
    position_title: "",
    manager_first_name: null,
    employer: { id: org.id, name: "Engines Ltd", bio: "", industry: "" },
    badges: [],
    employment_histories: [
      { current: true, employer_job_title: "Programmer", state: "unmapped", vendor_occupation: null },
    ],
  });
  t.equal(e.created_at, e.last_updated_by_organization_at);
  const [createdEvent] = await eventRows(laurel, org.id, "employment.created");
  t.same(createdEvent?.detail, { employment: e }, "the event carries the employment the API answers");
  t.equal(createdEvent?.xmin, await rowXmin(laurel, "employees", e.id), "written in the same transaction");

  t.same((await api("GET", `${org.path}/${e.id}`, org.auth)).body.data, e);

  const same = await api("PUT", `${org.path}/${e.id}`, org.auth, { team: "Analytical" });
  t.same(same.body.data, e, "an update that changes nothing");
  t.equal((await eventRows(laurel, org.id, "employment.updated")).length, 0, "records no event");

  const updated = await api("PUT", `${org.path}/${e.id}`, org.auth, { team: null, level: "L3" });
  t.equal(updated.status, 200);
  t.match(updated.body.data, { team: null, level: "L3", first_name: "Ada" });
  t.not(updated.body.data.last_updated_by_organization_at, e.last_updated_by_organization_at);
  const [updatedEvent] = await eventRows(laurel, org.id, "employment.updated");
  t.same(updatedEvent?.detail, { employment: updated.body.data });

  const dup = await api("POST", org.path, org.auth, { ...ada, email: "other@example.com" });
  t.equal(dup.status, 422);
  t.same(dup.body.data.errors, [
    { field: "external_id", message: "is already used by another employee of this organization" },
  ]);
  const second = await api("POST", org.path, org.auth, { ...ada, external_id: "E-2" });
  const clash = await api("PUT", `${org.path}/${second.body.data.id}`, org.auth, { external_id: "E-1" });
  t.equal(clash.status, 422, "an update onto another record's external_id");
  const elsewhere = await employer("Elsewhere");
  t.equal((await api("POST", elsewhere.path, elsewhere.auth, ada)).status, 201, "external_id is per organization");

  t.equal((await api("DELETE", `${org.path}/${e.id}`, org.auth)).status, 204);
  t.equal((await api("GET", `${org.path}/${e.id}`, org.auth)).status, 404);
  t.equal((await api("DELETE", `${org.path}/${e.id}`, org.auth)).status, 404);
  const [deleted] = await eventRows(laurel, org.id, "employment.deleted");
  const read = await api("GET", `/organizations/${org.id}/events/${deleted?.id}`, org.auth);
  t.same(read.body.data.employment, { id: e.id, email: "Ada@Example.com", external_id: "E-1" }, "reduced when deleted");
  const full = await api("GET", `/organizations/${org.id}/events/${updatedEvent?.id}`, org.auth);
  t.same(full.body.data.employment, updated.body.data, "in full while authorized");
});

t.test("refused requests: scope, flags, organization, bad input", async (t) => {
  const org = await employer("Strict");
  const other = await employer("Other");
  const readOnly = (await api("POST", `/organizations/${org.id}/authorization_tokens`, org.auth, {
    write_enabled: false,
    delete_enabled: false,
  })) as { body: { data: { token: string } } };
  const ro = basic(readOnly.body.data.token);
  t.equal((await api("GET", org.path, ro)).status, 200, "reading needs read_enabled only");
  t.equal((await api("POST", org.path, ro, ada)).status, 403, "writing needs write_enabled");
  t.equal((await api("GET", org.path, null)).status, 401);
  t.equal((await api("GET", org.path, other.auth)).status, 403, "another organization's credential");
  const cases: Array<[string, unknown, string[]]> = [
    ["missing fields", { email: "a@b.example" }, ["first_name"]],
    ["bad e-mail", { ...ada, email: "not-an-address" }, ["email"]],
    ["unknown field", { ...ada, nickname: "A" }, ["nickname"]],
  ];
  for (const [name, body, fields] of cases) {
    const res = await api("POST", org.path, org.auth, body);
    t.equal(res.status, 422, name);
    t.same(
      res.body.data.errors.map((x: { field: string }) => x.field).sort(),
      [...fields].sort(),
      `${name}: the fields named`,
    );
  }
  t.equal((await api("GET", `${org.path}?employee_state=created,fired`, org.auth)).status, 400);
  t.equal((await api("GET", `${org.path}?sort=salary`, org.auth)).status, 400);
  t.equal((await api("GET", `${org.path}/not-a-uuid`, org.auth)).status, 400);
  t.equal((await eventRows(laurel, org.id)).length, 0, "nothing was recorded");
});

t.test("list: filters, sorts and pages", async (t) => {
  const org = await employer("Listing");
  const people = [
    ["Grace", "Hopper", "grace@navy.example", "Compilers", "Eng"],
    ["Alan", "Turing", "alan@bletchley.example", "Crypto", "Research"],
    ["Katherine", "Johnson", "kj@nasa.example", "Orbits", "Research"],
    ["Ada", "Lovelace", "ada@engines.example", "Compilers", "Eng"],
  ];
  const batch = await api("POST", `${org.path}/batch`, org.auth, {
    employees: people.map(([first_name, last_name, email, team, department], i) => ({
      first_name,
      last_name,
      email,
      team,
      department,
      external_id: `P-${i}`,
    })),
  });
  t.equal(batch.status, 200);
  const names = async (query: string) => {
    const res = await api("GET", `${org.path}?${query}`, org.auth);
    t.equal(res.status, 200, query);
    return res.body.data.map((e: { first_name: string }) => e.first_name);
  };
  t.same(await names("sort=first_name"), ["Ada", "Alan", "Grace", "Katherine"]);
  t.same(await names("sort=-last_name"), ["Alan", "Ada", "Katherine", "Grace"]);
  t.same(await names("sort=email"), ["Ada", "Alan", "Grace", "Katherine"]);
  t.same(await names("sort=created_at"), ["Grace", "Alan", "Katherine", "Ada"]);
  t.same(await names(""), ["Ada", "Katherine", "Alan", "Grace"], "newest first by default");
  t.same(await names("team=compilers&sort=first_name"), ["Ada", "Grace"]);
  t.same(await names("department=Research&sort=first_name"), ["Alan", "Katherine"]);
  t.same(await names("name_or_email=ACE%20H"), ["Grace"], "a substring of the full name");
  t.same(await names("name_or_email=nasa"), ["Katherine"], "or of the e-mail");
  t.same(await names("name_or_email=%25"), [], "% is a character, not a wildcard");
  t.same(await names("external_id=P-1"), ["Alan"]);
  t.same(await names("employee_state=pending,accepted"), []);
  t.same(await names("employee_state=created&team=Orbits"), ["Katherine"]);

  const many = await api("POST", `${org.path}/batch`, org.auth, {
    employees: Array.from({ length: 60 }, (_, i) => ({
      first_name: `N${i}`,
      last_name: "Many",
      email: `n${i}@example.com`,
      external_id: `M-${i}`,
    })),
  });
  t.equal(many.body.metadata.created_count, 60);
  const page2 = await api("GET", `${org.path}?page=2&team=`, org.auth);
  t.equal(page2.status, 400, "an empty filter value is refused");
  const p2 = await api("GET", `${org.path}?page=2`, org.auth);
  t.match(p2.body.metadata, {
    count: 14,
    current_page: 2,
    total_count: 64,
    total_pages: 2,
    per: 50,
    next_page_url: null,
  });
  t.equal(p2.body.metadata.previous_page_url, `${new URL(laurel.baseUrl).origin}/v1${org.path}?page=1`);
});

t.test("batch: upsert by external_id, per-item results, unchanged items record no event", async (t) => {
  const org = await employer("Batching");
  const items = [
    { ...ada, external_id: "B-1" },
    { email: "bad", first_name: "X", last_name: "Y", external_id: "B-2" },
    { ...ada, email: "charles@example.com", first_name: "Charles", last_name: "Babbage", external_id: "B-3" },
    { ...ada, external_id: "B-1", first_name: "Twice" },
  ];
  const first = await api("POST", `${org.path}/batch`, org.auth, { employees: items });
  t.equal(first.status, 200);
  t.match(first.body.data, [
    { index: 0, status: "created", external_id: "B-1" },
    {
      index: 1,
      status: "failed",
      external_id: "B-2",
      error: { code: "validation_failed", errors: [{ field: "employees.1.email" }] },
    },
    { index: 2, status: "created", external_id: "B-3" },
    {
      index: 3,
      status: "failed",
      error: { errors: [{ field: "employees.3.external_id", message: "appears more than once in the batch" }] },
    },
  ]);
  t.same(first.body.metadata, { created_count: 2, updated_count: 0, unchanged_count: 0, failed_count: 2 });
  const again = await api("POST", `${org.path}/batch`, org.auth, { employees: [items[0], items[2]] });
  t.same(again.body.metadata, { created_count: 0, updated_count: 0, unchanged_count: 2, failed_count: 0 });
  t.equal(again.body.data[0].id, first.body.data[0].id, "the same record");
  const changed = await api("POST", `${org.path}/batch`, org.auth, {
    employees: [{ ...items[0], position_title: "Analyst" }],
  });
  t.same(changed.body.metadata, { created_count: 0, updated_count: 1, unchanged_count: 0, failed_count: 0 });
  const kinds = (await eventRows(laurel, org.id)).map((e) => e.event_type);
  t.same(kinds, ["employment.created", "employment.created", "employment.updated"]);
  const tooMany = await api("POST", `${org.path}/batch`, org.auth, {
    employees: Array.from({ length: 1001 }, () => ({})),
  });
  t.equal(tooMany.status, 422, "more than 1,000 items");
});

t.test("invitations: e-mail with the sign-in link, last_invitation_sent_at, budget per organization", async (t) => {
  const org = await employer("Inviting Co");
  await api("POST", `${org.path}/batch`, org.auth, {
    employees: [0, 1, 2].map((i) => ({
      email: `p${i}@example.com`,
      first_name: `P${i}`,
      last_name: "Q",
      external_id: `I-${i}`,
    })),
  });
  const list = await api("GET", `${org.path}?sort=first_name`, org.auth);
  const [p0] = list.body.data;
  const before = smtp.mails.length;
  const one = await api("POST", `${org.path}/send_invitations`, org.auth, { employee_ids: [p0.id] });
  t.equal(one.status, 200, JSON.stringify(one.body));
  t.same(one.body.data, { sent_count: 1, sent: [p0.id], failed: [] });
  // Written to the outbox with the answer; the mail sender delivers it shortly after.
  const mail = await eventually(async () => smtp.mails[before]);
  t.same(mail?.to, ["<p0@example.com>"]);
  const text = (mail?.data ?? "").replace(/=\r\n/g, "").replace(/=3D/g, "=");
  t.match(text, /Subject: Inviting Co invites you/);
  t.match(text, /https:\/\/badges\.example\/sign_in\?next=%2Fwallet/);
  const after = (await api("GET", `${org.path}/${p0.id}`, org.auth)).body.data;
  t.type(after.last_invitation_sent_at, "string");
  t.equal(after.employee_state, "created", "the state waits for the earner's sign-in");
  t.equal((await eventRows(laurel, org.id)).length, 3, "no event: only the three created");

  const all = await api("POST", `${org.path}/send_invitations`, org.auth, { all: true });
  t.equal(all.body.data.sent_count, 3, "every employee still created");
  const over = await api("POST", `${org.path}/send_invitations`, org.auth, { all: true });
  t.equal(over.status, 429, "the organization's budget (5 an hour here) is spent");
  t.equal(over.body.data.code, "rate_limited");
  const unknown = await api("POST", `${org.path}/send_invitations`, org.auth, {
    employee_ids: ["0190f000-0000-7000-8000-000000000001"],
  });
  t.equal(unknown.status, 404);
  t.equal((await api("POST", `${org.path}/send_invitations`, org.auth, {})).status, 422);
});
