import t from "tap";
import { renderMail } from "../../adapters/mail/mod.ts";
import { type AuditRecord, byMember } from "../../core/audit/mod.ts";
import type { BadgeStandardShape } from "../../core/badges/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import type { MailMessage } from "../../core/issuing/mod.ts";
import { parseListQuery } from "../../core/listing/mod.ts";
import type { OutboxMail } from "../../core/mail/mod.ts";
import {
  applyEmployeeUpdate,
  associatesWith,
  type ConnectionAction,
  type ConnectionFields,
  createEmployee,
  deleteEmployee,
  EMPLOYEE_LIST,
  type EmployeeRecord,
  type EmployeeStore,
  type EmployeeTx,
  type Employer,
  employmentShape,
  invitationLink,
  newEmployeeRecord,
  sendInvitations,
  takeInvitations,
  transitionConnection,
  updateEmployee,
  upsertEmployees,
  visibleBadges,
} from "../../core/workforce/mod.ts";
import { BADGE } from "../support/webhooks.ts";

/** What a rule returns, or the CoreError it throws: both are answers these tables check. */
const caught = <T>(run: () => T): T | CoreError => {
  const result = resultOf(run);
  return result.ok ? result.value : result.error;
};

const ORG = "11111111-1111-4111-8111-111111111111";
const NOW = new Date("2024-03-01T12:00:00.000Z");
const LATER = new Date("2024-03-02T12:00:00.000Z");
const EMPLOYER: Employer = { id: ORG, name: "Acme", bio: "", industry: "" };
let n = 0;
const newId = () => `00000000-0000-7000-8000-${String(++n).padStart(12, "0")}`;
const ctx = { now: NOW, newId, newEventId: newId, urls: { publicBase: "https://laurel.test" } };

const ada = (): EmployeeRecord =>
  newEmployeeRecord(
    { email: " Ada@Example.COM ", first_name: " Ada ", last_name: "Lovelace", external_id: "E-1", team: "  " },
    { id: newId(), organization_id: ORG, now: NOW, newId },
  );

t.test("a new record: trimmed, normalized key, empty or null fields not given", async (t) => {
  const r = ada();
  t.match(r, {
    email: "Ada@Example.COM",
    email_key: "ada@example.com",
    first_name: "Ada",
    team: null,
    position_title: "",
    employee_state: "created",
    user_id: null,
    last_invitation_sent_at: null,
  });
  const shape = employmentShape(r, EMPLOYER);
  t.equal(shape.full_name, "Ada Lovelace");
  t.equal(shape.created_at, "2024-03-01T12:00:00.000Z");
  t.same(shape.badges, []);
  t.equal(shape.photo_url, null);
});

t.test("updates: which change the record, and when the time moves", async (t) => {
  const base = newEmployeeRecord(
    {
      email: "a@b.example",
      first_name: "A",
      last_name: "B",
      external_id: "X",
      employment_histories: [{ current: true, employer_job_title: "Dev" }],
    },
    { id: newId(), organization_id: ORG, now: NOW, newId },
  );
  const cases: Array<[string, Parameters<typeof applyEmployeeUpdate>[1], boolean]> = [
    ["nothing", {}, false],
    ["the same value", { first_name: "A" }, false],
    ["the same value with spaces", { first_name: " A " }, false],
    ["the same histories again", { employment_histories: [{ current: true, employer_job_title: "Dev" }] }, false],
    ["another history", { employment_histories: [{ current: false, employer_job_title: "Dev" }] }, true],
    ["no history", { employment_histories: [] }, true],
    ["a name", { first_name: "Z" }, true],
    ["a nullable cleared", { level: null }, false],
    ["a nullable set", { level: "L2" }, true],
    ["an e-mail in capitals", { email: "A@B.example" }, true],
  ];
  for (const [name, body, changed] of cases) {
    const next = applyEmployeeUpdate(base, body, { now: LATER, newId });
    t.equal(next !== base, changed, name);
    t.equal(next.last_updated_by_organization_at, changed ? LATER : NOW, `${name}: time`);
  }
  t.equal(
    applyEmployeeUpdate(base, { employment_histories: [{ current: true, employer_job_title: "Dev" }] }, ctx)
      .employment_histories[0]?.id,
    base.employment_histories[0]?.id,
    "an unchanged history keeps its id",
  );
});

t.test("the employee list's grammar", async (t) => {
  t.same(parseListQuery(EMPLOYEE_LIST, []), {
    filters: {},
    sort: [{ key: "created_at", desc: true }],
    page: 1,
    per: 50,
    extra: {},
  });
  const parsed = parseListQuery(EMPLOYEE_LIST, [
    ["filter", "employee_state::created, pending|name_or_email:: ada "],
    ["filter[team]", "Blue"],
    ["sort", "last_name|-email"],
  ]);
  t.same(parsed.filters, {
    employee_state: { kind: "values", values: ["created", "pending"] },
    name_or_email: { kind: "search", text: "ada", exact: false },
    team: { kind: "values", values: ["Blue"] },
  });
  t.same(parsed.sort, [
    { key: "last_name", desc: false },
    { key: "email", desc: true },
  ]);
  for (const bad of ["", "fired", "created,fired"]) {
    const err = (() => {
      try {
        return parseListQuery(EMPLOYEE_LIST, [["employee_state", bad]]);
      } catch (e) {
        return e;
      }
    })();
    t.ok(isCoreError(err) && err.code === "bad_request", `employee_state=${bad}`);
  }
});

t.test("connection: state x action", async (t) => {
  const U = "44444444-4444-4444-8444-444444444444";
  const at = (employee_state: ConnectionFields["employee_state"], user_id: string | null): ConnectionFields => ({
    employee_state,
    user_id,
  });
  const cases: Array<[ConnectionFields, ConnectionAction, [string, string | null, string[]] | null]> = [
    // Told only when the person is asked: else creating a record would say whether an account exists.
    [at("created", null), "associate", ["created", U, []]],
    [at("created", U), "associate", null],
    [at("created", null), "prompt", null],
    [
      at("created", U),
      "prompt",
      ["pending", U, ["employment.user_account.associated", "employment.connection.pending"]],
    ],
    [at("pending", U), "prompt", null],
    [at("pending", U), "accept", ["accepted", U, ["employment.connection.accepted"]]],
    [at("pending", U), "reject", ["rejected", U, ["employment.connection.rejected"]]],
    [at("rejected", U), "accept", ["accepted", U, ["employment.connection.accepted"]]],
    [at("rejected", U), "reject", null],
    [at("created", U), "accept", null],
    [at("accepted", U), "disconnect", ["rejected", U, ["employment.connection.rejected"]]],
    [at("pending", U), "disconnect", null],
    [at("accepted", U), "disassociate", ["created", null, ["employment.user_account.disassociated"]]],
    [at("pending", U), "disassociate", ["created", null, ["employment.user_account.disassociated"]]],
    [at("rejected", U), "disassociate", ["created", null, ["employment.user_account.disassociated"]]],
    [at("created", U), "disassociate", ["created", null, []]],
    [at("created", null), "disassociate", null],
  ];
  for (const [from, action, expected] of cases) {
    const got = caught(() => transitionConnection(from, action, U));
    const name = `${from.employee_state}${from.user_id ? "+account" : ""} ${action}`;
    if (expected === null) t.ok(isCoreError(got) && got.code === "validation_failed", `${name}: refused`);
    else t.same(got, { employee_state: expected[0], user_id: expected[1], events: expected[2] }, name);
  }
  t.ok(
    isCoreError(caught(() => transitionConnection(at("created", null), "associate", null))),
    "associate needs an account",
  );
});

t.test("association and the badges an employer sees", async (t) => {
  const r = ada();
  t.ok(associatesWith(r, ["x@y.example", "ada@example.com"]));
  t.notOk(associatesWith(r, ["Ada@Example.COM"]), "keys are normalized addresses");
  t.notOk(associatesWith({ ...r, user_id: "u" }, ["ada@example.com"]), "already associated");
  const badges: BadgeStandardShape[] = [
    { ...BADGE, id: "1", state: "accepted", public: true },
    { ...BADGE, id: "2", state: "accepted", public: false },
    { ...BADGE, id: "3", state: "pending", public: true },
  ];
  const ids = (f: ConnectionFields) => visibleBadges(f, badges).map((b) => b.id);
  t.same(ids({ employee_state: "accepted", user_id: "u" }), ["1"]);
  t.same(ids({ employee_state: "pending", user_id: "u" }), []);
  t.same(ids({ employee_state: "rejected", user_id: "u" }), []);
});

t.test("invitation budget and link", async (t) => {
  const budget = { perWindow: 3, windowMs: 1000, used: new Map() };
  const at = (ms: number) => new Date(NOW.getTime() + ms);
  t.ok(takeInvitations(budget, ORG, 2, at(0)));
  t.notOk(takeInvitations(budget, ORG, 2, at(10)), "over the window's budget");
  t.ok(takeInvitations(budget, "other", 3, at(10)), "per organization");
  t.ok(takeInvitations(budget, ORG, 1, at(20)));
  t.ok(takeInvitations(budget, ORG, 3, at(1000)), "a new window");
  t.equal(invitationLink("https://x.example/"), "https://x.example/sign_in?next=%2Fwallet");
});

t.test("sendInvitations: queued in the outbox; one that could not be written is reported and not marked", async (t) => {
  const a = ada();
  const b = { ...ada(), email: "fail@example.com" };
  const sent: MailMessage[] = [];
  const marked: string[] = [];
  const deps = {
    outbox: {
      enqueue: async (m: OutboxMail) => {
        if (m.content.to.startsWith("fail")) throw new Error("refused");
        t.match(m, { kind: "employee_invitation", organization_id: ORG, sent_event: null, created_at: NOW });
        sent.push(renderMail(m.content));
      },
    },
    newId: () => "00000000-0000-7000-8000-000000000001",
    publicUrl: "https://x.example",
    budget: { perWindow: 10, windowMs: 1000, used: new Map() },
    pick: async () => ({ employer: EMPLOYER, records: [a, b] }),
    markInvited: async (_o: string, ids: string[]) => {
      marked.push(...ids);
    },
  };
  const result = await sendInvitations(deps, NOW, ORG, { all: true });
  t.same(result, { sent: [a.id], failed: [b.id] });
  t.same(marked, [a.id]);
  t.match(sent[0], { to: "Ada@Example.COM", subject: "Acme invites you to connect your badges" });
  t.match(sent[0]?.html, /href="https:\/\/x\.example\/sign_in\?next=%2Fwallet"/);
  const err = await sendInvitations({ ...deps, pick: async () => ({ employer: null, records: [] }) }, NOW, ORG, {
    all: true,
  }).catch((e: CoreError) => e);
  t.match(err, { code: "not_found" });
});

/** An in-memory store: enough to check the upsert's decisions and the events it records. */
const memoryStore = (): EmployeeStore & {
  rows: Map<string, EmployeeRecord>;
  events: EventRecord[];
  audits: AuditRecord[];
} => {
  const rows = new Map<string, EmployeeRecord>();
  const events: EventRecord[] = [];
  const audits: AuditRecord[] = [];
  const taken = (r: EmployeeRecord) =>
    [...rows.values()].some(
      (x) => x.id !== r.id && x.organization_id === r.organization_id && x.external_id === r.external_id,
    );
  const tx: EmployeeTx = {
    employer: async (id) => (id === ORG ? EMPLOYER : null),
    confirmedOwners: async () => new Map(),
    heldBadgesOf: async () => new Map(),
    lock: async (_o, id) => rows.get(id) ?? null,
    lockByExternalIds: async (_o, ids) => [...rows.values()].filter((r) => ids.includes(r.external_id)),
    insert: async (records) => {
      if (records.some(taken)) return "external_id_taken";
      for (const r of records) rows.set(r.id, r);
      return "inserted";
    },
    update: async (records) => {
      if (records.some(taken)) return "external_id_taken";
      for (const r of records) rows.set(r.id, r);
      return "updated";
    },
    delete: async (id) => {
      rows.delete(id);
    },
    appendEvents: async (e) => {
      events.push(...e);
    },
    appendAudit: async (a) => {
      audits.push(...a);
    },
    save: async (inserts, updates, e) => {
      if ([...inserts, ...updates].some(taken)) return "external_id_taken";
      for (const r of [...inserts, ...updates]) rows.set(r.id, r);
      events.push(...e);
      return "saved";
    },
  };
  return {
    rows,
    events,
    audits,
    transaction: (work) => work(tx),
    employer: tx.employer,
    workforceAuthorized: async () => true,
    heldBadgesOf: tx.heldBadgesOf,
    get: async (_o, id) => rows.get(id) ?? null,
    list: async () => ({ items: [...rows.values()], total: rows.size }),
  };
};

t.test("upsert: statuses and events by item", async (t) => {
  const store = memoryStore();
  const item = (external_id: string, extra: Record<string, unknown> = {}) => ({
    email: `${external_id}@example.com`,
    first_name: "F",
    last_name: "L",
    external_id,
    ...extra,
  });
  const first = await upsertEmployees(store, ctx, ORG, [item("a"), item("b"), { external_id: "c" }, item("a")]);
  t.same(
    first.map((r) => r.status),
    ["created", "created", "failed", "failed"],
  );
  t.same(
    store.events.map((e) => e.event_type),
    ["employment.created", "employment.created"],
  );
  const second = await upsertEmployees(store, ctx, ORG, [
    item("a"),
    item("b", { team: "T" }),
    item(" a2 ", { email: "a2@example.com" }),
  ]);
  t.same(
    second.map((r) => r.status),
    ["unchanged", "updated", "created"],
  );
  t.equal(second[2]?.external_id, "a2", "external ids are trimmed");
  t.equal(store.events.length, 4, "no event for the unchanged item");
  const missing = await upsertEmployees(store, ctx, "99999999-9999-4999-8999-999999999999", [item("z")]).catch(
    (e: CoreError) => e,
  );
  t.match(missing, { code: "not_found" });
});

t.test("employee changes made for the organization by someone are audited in their transaction", async (t) => {
  const store = memoryStore();
  const by = byMember("0190a0d8-0000-7000-8000-0000000000aa", "203.0.113.9");
  const quiet = await createEmployee(store, ctx, ORG, {
    email: "q@example.com",
    first_name: "Q",
    last_name: "Q",
    external_id: "Q-1",
  });
  t.same(store.audits, [], "no one named: no audit row");
  const made = await createEmployee(store, { ...ctx, by }, ORG, {
    email: "a@example.com",
    first_name: "A",
    last_name: "B",
    external_id: "A-1",
  });
  await updateEmployee(store, { ...ctx, now: LATER, by }, ORG, made.record.id, { team: "Blue" });
  await updateEmployee(store, { ...ctx, now: LATER, by }, ORG, made.record.id, { team: "Blue" });
  await deleteEmployee(store, { ...ctx, by }, ORG, quiet.record.id);
  await upsertEmployees(store, { ...ctx, by }, ORG, [
    { email: "c@example.com", first_name: "C", last_name: "C", external_id: "C-1" },
    { external_id: "bad" },
  ]);
  t.same(
    store.audits.map((a) => [a.action, a.target, a.actor.kind, a.client_address]),
    [
      ["employee.created", `employee:${made.record.id}`, "member", "203.0.113.9"],
      ["employee.updated", `employee:${made.record.id}`, "member", "203.0.113.9"],
      ["employee.deleted", `employee:${quiet.record.id}`, "member", "203.0.113.9"],
      ["employees.upserted", null, "member", "203.0.113.9"],
    ],
    "created, updated (once: the second changed nothing), deleted, and the batch",
  );
  t.same(store.audits[3]?.details, { created: 1, updated: 0, unchanged: 0, failed: 1 });
  t.same(store.audits[0]?.details, { external_id: "A-1", email: "a@example.com" });
});
