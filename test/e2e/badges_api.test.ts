import t from "tap";
import {
  apiClient,
  clientBearer,
  createTemplate,
  eventRows,
  issueBody,
  type OrgFixture,
  organization,
  rowXmin,
} from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/** Issued badges over REST, end to end on PostgreSQL. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

const STANDARD_KEYS = [
  "id",
  "issued_to",
  "issued_to_first_name",
  "issued_to_middle_name",
  "issued_to_last_name",
  "issued_at",
  "issued_at_date",
  "expires_at",
  "expires_at_date",
  "state",
  "public",
  "badge_url",
  "badge_template",
  "issuer",
];

const issue = (org: OrgFixture, body: unknown) => api("POST", org.badges, org.auth, body);

t.test("issue: 201, Location, the full badge JSON, and badge.created in the same transaction", async (t) => {
  const org = await organization(laurel, "Issuing Org");
  const tpl = await createTemplate(laurel, org, { skills: ["rust"], image_url: "https://cdn.example/r.png" });
  const res = await issue(
    org,
    issueBody(tpl.id, {
      issued_at: "2024-03-01 10:00:00 -0500",
      issued_to_middle_name: "King",
      recipient_email: "Ada@Example.ORG",
      expires_at: "2030-01-01T00:00:00+00:00",
      evidence: [{ type: "UrlEvidence", name: "Repo", description: "The code", value: "https://git.example/ada" }],
      issuer_earner_id: "E-42",
      locale: "en-GB",
    }),
  );
  t.equal(res.status, 201);
  const badge = res.body.data;
  t.equal(res.headers.get("location"), `${laurel.baseUrl}${org.badges}/${badge.id}`);
  t.match(badge, {
    issued_to: "Ada King Lovelace",
    issued_to_first_name: "Ada",
    issued_to_middle_name: "King",
    issued_to_last_name: "Lovelace",
    issued_at: "2024-03-01T15:00:00.000Z",
    issued_at_date: "2024-03-01",
    expires_at: "2030-01-01T00:00:00.000Z",
    expires_at_date: "2030-01-01",
    state: "pending",
    public: true,
    badge_template: { id: tpl.id, image: null, image_url: "https://cdn.example/r.png", name: "Rust", skills: ["rust"] },
    issuer: { name: "Issuing Org", image_url: null, authorized_issuer: null },
    recipient_email: "Ada@Example.ORG",
    issuer_earner_id: "E-42",
    locale: "en-GB",
    evidence: [{ type: "UrlEvidence", name: "Repo", description: "The code", value: "https://git.example/ada" }],
    revocation_reason: null,
    replaces_badge_id: null,
    replacement_badge_id: null,
    user: null,
  });
  t.match(badge.badge_url, new RegExp(`/badges/${badge.id}$`));
  t.equal(badge.accept_badge_url, `${badge.badge_url}/accept`);
  t.equal(badge.state_updated_at, badge.created_at);

  const [event] = await eventRows(laurel, org.id, "badge.created");
  t.same(Object.keys(event?.detail.badge).sort(), [...STANDARD_KEYS].sort(), "the standard badge shape");
  const standard = Object.fromEntries(STANDARD_KEYS.map((k) => [k, badge[k]]));
  t.same(event?.detail.badge, standard);
  t.equal(event?.xmin, await rowXmin(laurel, "badges", badge.id), "badge and event committed together");
  t.same((await api("GET", `${org.badges}/${badge.id}`, org.auth)).body.data, badge);
});

t.test("issue validation: every bad input is a 422 naming the field, and writes nothing", async (t) => {
  const org = await organization(laurel, "Validating Org");
  const other = await organization(laurel, "Someone Else");
  const tpl = await createTemplate(laurel, org);
  const foreign = await createTemplate(laurel, other);
  const future = new Date(Date.now() + 86_400_000).toISOString();
  const cases: [Record<string, unknown>, string][] = [
    [{ issued_at: undefined }, "issued_at"],
    [{ issued_at: "yesterday" }, "issued_at"],
    [{ issued_at: "2024-02-30T10:00:00Z" }, "issued_at"],
    [{ issued_at: "2024-03-01T10:00:00" }, "issued_at"],
    [{ issued_at: future }, "issued_at"],
    [{ expires_at: "2020-01-01T00:00:00Z" }, "expires_at"],
    [{ recipient_email: "not-an-email" }, "recipient_email"],
    [{ issued_to_first_name: "  " }, "issued_to_first_name"],
    [{ issued_to_last_name: "" }, "issued_to_last_name"],
    [{ badge_template_id: "nope" }, "badge_template_id"],
    [{ badge_template_id: "00000000-0000-4000-8000-000000000000" }, "badge_template_id"],
    [{ badge_template_id: foreign.id }, "badge_template_id"],
    [{ evidence: [{ type: "FileEvidence", name: "x", value: "https://x.example" }] }, "evidence.0.type"],
    [{ locale: "not a locale" }, "locale"],
    [{ colour: "red" }, "colour"],
  ];
  for (const [fields, field] of cases) {
    const res = await issue(org, issueBody(tpl.id, fields));
    t.equal(res.status, 422, JSON.stringify(fields));
    t.ok(
      res.body.data.errors.some((e: { field: string }) => e.field === field),
      `${field} in ${JSON.stringify(res.body.data.errors)}`,
    );
  }
  const nul = await issue(org, issueBody(tpl.id, { issued_to_first_name: "A\u0000B" }));
  t.equal(nul.status, 422, "a NUL character is refused, not a database error");
  t.same(nul.body.data.errors, [{ field: "issued_to_first_name", message: "must not contain NUL characters" }]);
  t.equal((await api("GET", `${org.badges}?query=%00`, org.auth)).status, 400);
  const malformed = await fetch(`${laurel.baseUrl}${org.badges}`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "application/json" },
    body: "{",
  });
  t.equal(malformed.status, 400);
  t.equal((await api("GET", org.badges, org.auth)).body.metadata.total_count, 0);
  t.same(
    (await eventRows(laurel, org.id)).map((e) => e.event_type),
    ["badge_template.created"],
    "no event for a refused issue",
  );
});

t.test("a draft or archived template cannot issue (422)", async (t) => {
  const org = await organization(laurel, "States Org");
  const draft = await createTemplate(laurel, org, { state: "draft" });
  const refused = await issue(org, issueBody(draft.id));
  t.equal(refused.status, 422);
  t.match(refused.body.data.message, /draft/);
  const archived = await createTemplate(laurel, org);
  await api("PUT", `${org.templates}/${archived.id}/archive`, org.auth);
  t.equal((await issue(org, issueBody(archived.id))).status, 422);
  await api("PUT", `${org.templates}/${archived.id}/unarchive`, org.auth);
  t.equal((await issue(org, issueBody(archived.id))).status, 201, "unarchived, it issues again");
});

t.test("duplicates: 422 'User already has this badge' unless allowed; race-safe", async (t) => {
  const org = await organization(laurel, "Duplicates Org");
  const tpl = await createTemplate(laurel, org);
  const first = await issue(org, issueBody(tpl.id));
  t.equal(first.status, 201);
  const again = await issue(org, issueBody(tpl.id, { recipient_email: "ADA@example.org" }));
  t.equal(again.status, 422);
  t.equal(again.body.data.message, "User already has this badge");
  t.same(again.body.data.errors, [{ field: "recipient_email", message: "User already has this badge" }]);
  t.same(again.body.data.reason, { name: "badge_duplicate", badge_template_id: tpl.id }, "the reason, to branch on");
  t.equal((await issue(org, issueBody(tpl.id, { recipient_email: "grace@example.org" }))).status, 201);

  await api("PUT", `${org.badges}/${first.body.data.id}/revoke`, org.auth, { reason: "Issued in error" });
  t.equal((await issue(org, issueBody(tpl.id))).status, 201, "a revoked badge does not count");

  const dupes = await createTemplate(laurel, org, { name: "Attendance", allow_duplicate_badges: true });
  t.equal((await issue(org, issueBody(dupes.id))).status, 201);
  t.equal((await issue(org, issueBody(dupes.id))).status, 201, "the template allows duplicates");

  const raced = await createTemplate(laurel, org, { name: "Raced" });
  const results = await Promise.all(
    Array.from({ length: 12 }, () => issue(org, issueBody(raced.id, { recipient_email: "race@example.org" }))),
  );
  t.same(
    results.map((r) => r.status).sort(),
    [201, ...Array(11).fill(422)],
    "twelve concurrent issues of one badge: exactly one wins",
  );
  for (const r of results.filter((x) => x.status === 422)) t.equal(r.body.data.message, "User already has this badge");
  const created = (await eventRows(laurel, org.id, "badge.created")).filter(
    (e) => e.detail.badge.badge_template.id === raced.id,
  );
  t.equal(created.length, 1, "and exactly one badge.created");
});

t.test("batch: items issued or reported one by one", async (t) => {
  const org = await organization(laurel, "Batch Org");
  const tpl = await createTemplate(laurel, org);
  const draft = await createTemplate(laurel, org, { name: "Draft", state: "draft" });
  const res = await api("POST", `${org.badges}/batch`, org.auth, {
    badges: [
      issueBody(tpl.id, { recipient_email: "one@example.org" }),
      issueBody(tpl.id, { recipient_email: "bad" }),
      issueBody(tpl.id, { recipient_email: "two@example.org" }),
      issueBody(tpl.id, { recipient_email: "one@example.org" }),
      issueBody(draft.id),
      { nonsense: true },
    ],
  });
  t.equal(res.status, 201);
  t.same(res.body.metadata, { issued_count: 2, failed_count: 4 });
  t.same(
    res.body.data.map((r: { index: number; status: string }) => [r.index, r.status]),
    [
      [0, "issued"],
      [1, "failed"],
      [2, "issued"],
      [3, "failed"],
      [4, "failed"],
      [5, "failed"],
    ],
  );
  t.equal(res.body.data[0].badge.recipient_email, "one@example.org");
  t.match(res.body.data[1].error, { code: "validation_failed", errors: [{ field: "badges.1.recipient_email" }] });
  t.match(res.body.data[3].error, {
    message: "User already has this badge",
    errors: [{ field: "badges.3.recipient_email" }],
  });
  t.match(res.body.data[4].error.errors, [{ field: "badges.4.badge_template_id" }]);
  t.ok(res.body.data[5].error.errors.some((e: { field: string }) => e.field === "badges.5.nonsense"));
  t.equal((await eventRows(laurel, org.id, "badge.created")).length, 2);

  const none = await api("POST", `${org.badges}/batch`, org.auth, { badges: [issueBody(draft.id), { x: 1 }] });
  t.equal(none.status, 422, "nothing issued: a plain 422");
  t.ok(none.body.data.errors.some((e: { field: string }) => e.field === "badges.0.badge_template_id"));
  t.ok(none.body.data.errors.some((e: { field: string }) => e.field === "badges.1.x"));
  t.equal((await api("POST", `${org.badges}/batch`, org.auth, { badges: [] })).status, 422);
  const tooMany = Array.from({ length: 101 }, (_, i) => issueBody(tpl.id, { recipient_email: `m${i}@example.org` }));
  t.equal((await api("POST", `${org.badges}/batch`, org.auth, { badges: tooMany })).status, 422);
  t.equal((await api("POST", `${org.badges}/batch`, org.auth, [issueBody(tpl.id)])).status, 422);
});

t.test("list: filters, sorts, pagination", async (t) => {
  const org = await organization(laurel, "Listing Org");
  const rust = await createTemplate(laurel, org, { name: "Rust", allow_duplicate_badges: true });
  const go = await createTemplate(laurel, org, { name: "Go", allow_duplicate_badges: true });
  const ids: Record<string, string> = {};
  const plan: [string, string, string, string][] = [
    ["a", rust.id, "ann@example.org", "2024-01-03T00:00:00Z"],
    ["b", go.id, "bob@example.org", "2024-01-01T00:00:00Z"],
    ["c", rust.id, "Carol@Example.org", "2024-01-02T00:00:00Z"],
  ];
  for (const [name, template, email, at] of plan) {
    const res = await issue(
      org,
      issueBody(template, { recipient_email: email, issued_at: at, issued_to_first_name: name }),
    );
    ids[name] = res.body.data.id;
  }
  await api("PUT", `${org.badges}/${ids.b}/revoke`, org.auth, { reason: "Wrong person" });
  const names = async (query: string) =>
    (await api("GET", `${org.badges}${query}`, org.auth)).body.data.map(
      (b: { issued_to_first_name: string }) => b.issued_to_first_name,
    );
  t.same(await names(""), ["a", "c", "b"], "default: newest issued_at first");
  t.same(await names("?sort=issued_at"), ["b", "c", "a"]);
  t.same(await names("?sort=-created_at"), ["c", "b", "a"]);
  t.same(await names("?state=revoked"), ["b"]);
  t.same(await names("?state=pending"), ["a", "c"]);
  t.same(await names(`?badge_template_id=${go.id}`), ["b"]);
  t.same(await names("?recipient_email=CAROL@example.org"), ["c"], "e-mail matched in any case");
  t.same(await names("?query=bob"), ["b"], "query: recipient e-mail");
  t.same(await names("?query=go"), ["b"], "query: template name");
  t.same(await names("?query=lovelace&state=pending&sort=issued_at"), ["c", "a"], "query: recipient name");
  t.equal((await api("GET", `${org.badges}?state=lost`, org.auth)).status, 400);
  t.equal((await api("GET", `${org.badges}?badge_template_id=x`, org.auth)).status, 400);

  const many = await organization(laurel, "Many Badges");
  const tpl = await createTemplate(laurel, many);
  const items = Array.from({ length: 51 }, (_, i) =>
    issueBody(tpl.id, {
      recipient_email: `p${i}@example.org`,
      issued_at: `2024-01-01T00:${String(i).padStart(2, "0")}:00Z`,
    }),
  );
  t.equal((await api("POST", `${many.badges}/batch`, many.auth, { badges: items.slice(0, 50) })).status, 201);
  t.equal((await issue(many, items[50])).status, 201);
  const first = await api("GET", `${many.badges}?state=pending`, many.auth);
  t.match(first.body.metadata, { count: 50, total_count: 51, total_pages: 2, per: 50, previous_page_url: null });
  t.equal(first.body.data[0].recipient_email, "p50@example.org");
  t.equal(first.body.metadata.next_page_url, `${laurel.baseUrl}${many.badges}?state=pending&page=2`);
  const second = await api("GET", first.body.metadata.next_page_url, many.auth);
  t.same(
    second.body.data.map((b: { recipient_email: string }) => b.recipient_email),
    ["p0@example.org"],
  );
  t.equal(second.body.metadata.next_page_url, null);
});

t.test("revoke, replace, delete: transitions with their events", async (t) => {
  const org = await organization(laurel, "Lifecycle Org");
  const tpl = await createTemplate(laurel, org);
  const badge = (await issue(org, issueBody(tpl.id))).body.data;
  const path = `${org.badges}/${badge.id}`;

  t.equal((await api("PUT", `${path}/revoke`, org.auth, {})).status, 422, "reason required");
  t.equal((await api("PUT", `${path}/revoke`, org.auth, { reason: "   " })).status, 422, "reason not blank");
  t.equal((await api("PUT", `${path}/revoke`, org.auth)).status, 422, "no body");

  const replacement = await api("POST", `${path}/replace`, org.auth, {
    issued_at: "2024-06-01T00:00:00Z",
    issued_to_last_name: "Byron",
  });
  t.equal(replacement.status, 201);
  const next = replacement.body.data;
  t.equal(replacement.headers.get("location"), `${laurel.baseUrl}${org.badges}/${next.id}`);
  t.match(next, {
    state: "pending",
    replaces_badge_id: badge.id,
    recipient_email: badge.recipient_email,
    issued_to_first_name: "Ada",
    issued_to_last_name: "Byron",
    badge_template: { id: tpl.id },
  });
  const old = (await api("GET", path, org.auth)).body.data;
  t.match(old, { state: "replaced", replacement_badge_id: next.id });
  t.not(old.state_updated_at, badge.state_updated_at);
  // (pending_badge_notification.* rows are written after the response, in their own transactions)
  const replaceEvents = (await eventRows(laurel, org.id)).filter((e) => e.event_type.startsWith("badge.")).slice(-2);
  t.same(
    replaceEvents.map((e) => [e.event_type, e.detail.badge.id, e.detail.badge.state]),
    [
      ["badge.state.changed", badge.id, "replaced"],
      ["badge.created", next.id, "pending"],
    ],
  );
  t.equal(replaceEvents[0]?.xmin, replaceEvents[1]?.xmin, "one transaction for both");
  t.equal(replaceEvents[0]?.xmin, await rowXmin(laurel, "badges", badge.id));
  t.equal(replaceEvents[1]?.xmin, await rowXmin(laurel, "badges", next.id));

  t.equal(
    (await api("POST", `${path}/replace`, org.auth, { issued_at: "2024-06-01T00:00:00Z" })).status,
    422,
    "already replaced",
  );
  t.equal(
    (await api("PUT", `${path}/revoke`, org.auth, { reason: "x" })).status,
    422,
    "a replaced badge cannot be revoked",
  );

  const revoked = await api("PUT", `${org.badges}/${next.id}/revoke`, org.auth, { reason: " Issued in error " });
  t.equal(revoked.status, 200);
  t.match(revoked.body.data, { state: "revoked", revocation_reason: "Issued in error" });
  const [lastChange] = (await eventRows(laurel, org.id, "badge.state.changed")).slice(-1);
  t.same(lastChange?.detail.badge.state, "revoked");
  t.equal(lastChange?.xmin, await rowXmin(laurel, "badges", next.id));
  t.equal((await api("PUT", `${org.badges}/${next.id}/revoke`, org.auth, { reason: "x" })).status, 422, "twice");

  const removed = await api("DELETE", `${org.badges}/${next.id}`, org.auth);
  t.equal(removed.status, 204);
  t.equal((await api("GET", `${org.badges}/${next.id}`, org.auth)).status, 404);
  t.equal((await api("DELETE", `${org.badges}/${next.id}`, org.auth)).status, 404);
  const [deleted] = await eventRows(laurel, org.id, "badge.deleted");
  t.match(deleted?.detail.badge, { id: next.id, state: "revoked" });

  const other = await organization(laurel, "Lifecycle Other");
  for (const [method, suffix, body] of [
    ["GET", "", undefined],
    ["PUT", "/revoke", { reason: "x" }],
    ["POST", "/replace", { issued_at: "2024-06-01T00:00:00Z" }],
    ["DELETE", "", undefined],
  ] as const) {
    const res = await api(method, `${other.badges}/${badge.id}${suffix}`, other.auth, body);
    t.equal(res.status, 404, `${method} ${suffix || "badge"} of another organization`);
  }
  t.equal((await api("GET", `${other.badges}/${badge.id}`, org.auth)).status, 403);
});

t.test("permissions: scope issued_badges and the Basic flags", async (t) => {
  const org = await organization(laurel, "Badge Perms");
  const tpl = await createTemplate(laurel, org);
  const badge = (await issue(org, issueBody(tpl.id))).body.data;
  const app = (await api("POST", `/organizations/${org.id}/oauth_applications`, org.auth, { name: "b" })).body.data;
  const bearer = (scope: string) => clientBearer(laurel.authUrl, app, scope);
  const issuer = await bearer("issued_badges");
  t.equal((await api("GET", org.badges, issuer)).status, 200);
  t.equal((await api("POST", org.badges, issuer, issueBody(tpl.id, { recipient_email: "b@example.org" }))).status, 201);
  t.equal((await api("GET", org.badges, await bearer("badge_templates"))).status, 403);
  const noDelete = await api("POST", `/organizations/${org.id}/authorization_tokens`, org.auth, {
    delete_enabled: false,
  });
  const writer = `Basic ${Buffer.from(`${noDelete.body.data.token}:`).toString("base64")}`;
  t.equal((await api("PUT", `${org.badges}/${badge.id}/revoke`, writer, { reason: "x" })).status, 200);
  t.equal((await api("DELETE", `${org.badges}/${badge.id}`, writer)).status, 403, "delete needs delete_enabled");
});
