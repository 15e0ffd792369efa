import t from "tap";
import { apiClient, createTemplate, organization } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * Authorized issuers over REST: the grantor authorizes an issuer for some or all of its templates
 * (`.../issuers`), the issuer sees and accepts it (`.../grantors`), either side ends it; each side
 * sees only its own side, a stranger nothing, bad input is a 4xx in the error body, and every
 * change is in the acting organization's audit log.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

t.test("grant, list on both sides, accept, end; one live per pair; isolation; audit", async (t) => {
  const grantor = await organization(laurel, "Grantor University");
  const issuer = await organization(laurel, "Training Partner");
  const stranger = await organization(laurel, "Stranger");
  const rust = await createTemplate(laurel, grantor, { name: "Rust" });
  const go = await createTemplate(laurel, grantor, { name: "Go" });
  await createTemplate(laurel, grantor, { name: "Draft one", state: "draft" });
  const theirs = await createTemplate(laurel, stranger, { name: "Theirs" });
  const issuers = `/organizations/${grantor.id}/issuers`;
  const grantors = `/organizations/${issuer.id}/grantors`;

  const self = await api("POST", issuers, grantor.auth, { issuer_organization_id: grantor.id });
  t.equal(self.status, 422, "no authorization of oneself");
  t.match(self.body.data.errors, [{ field: "issuer_organization_id" }]);
  const nobody = await api("POST", issuers, grantor.auth, {
    issuer_organization_id: "0190a0d8-0000-7000-8000-000000000000",
  });
  t.equal(nobody.status, 422, "an unknown issuer");
  const foreign = await api("POST", issuers, grantor.auth, {
    issuer_organization_id: issuer.id,
    badge_template_ids: [rust.id, theirs.id],
  });
  t.equal(foreign.status, 422, "another organization's template cannot be authorized");
  t.same(foreign.body.data.errors, [
    { field: "badge_template_ids.1", message: "no badge template of this organization has this id" },
  ]);
  for (const [body, why] of [
    [{}, "no issuer"],
    [{ issuer_organization_id: "not-a-uuid" }, "an issuer that is no id"],
    [{ issuer_organization_id: issuer.id, badge_template_ids: [] }, "an empty list (absent or null means all)"],
    [{ issuer_organization_id: issuer.id, badge_template_ids: [rust.id, rust.id] }, "a template twice"],
    [{ issuer_organization_id: issuer.id, extra: 1 }, "an unknown field"],
  ] as const) {
    const res = await api("POST", issuers, grantor.auth, body);
    t.equal(res.status, 422, why);
    t.type(res.body.data.message, "string", `${why}: the error body`);
  }

  const granted = await api("POST", issuers, grantor.auth, {
    issuer_organization_id: issuer.id,
    badge_template_ids: [rust.id],
  });
  t.equal(granted.status, 201);
  const a = granted.body.data;
  t.match(a, {
    grantor: { id: grantor.id, name: "Grantor University" },
    issuer: { id: issuer.id, name: "Training Partner" },
    state: "pending",
    all_badge_templates: false,
    badge_templates: [{ id: rust.id, name: "Rust", state: "active" }],
    accepted_at: null,
    ended_at: null,
    ended_by: null,
  });
  t.equal(a.badge_templates.length, 1);
  const twice = await api("POST", issuers, grantor.auth, { issuer_organization_id: issuer.id });
  t.equal(twice.status, 422, "one live authorization per grantor and issuer");

  t.same(
    (await api("GET", issuers, grantor.auth)).body.data.map((x: { id: string }) => x.id),
    [a.id],
    "the grantor lists its issuer",
  );
  const listed = await api("GET", grantors, issuer.auth);
  t.same(
    listed.body.data.map((x: { id: string }) => x.id),
    [a.id],
    "the issuer lists its grantor",
  );
  t.match(listed.body.metadata, { count: 1, total_count: 1, current_page: 1 });
  t.same((await api("GET", `/organizations/${stranger.id}/grantors`, stranger.auth)).body.data, []);
  t.same((await api("GET", `/organizations/${issuer.id}/issuers`, issuer.auth)).body.data, [], "sides stay apart");

  // Each side reaches it only through its own path; a stranger not at all.
  t.equal((await api("GET", `${issuers}/${a.id}`, grantor.auth)).status, 200);
  t.equal((await api("GET", `${grantors}/${a.id}`, issuer.auth)).status, 200);
  t.equal((await api("GET", `/organizations/${issuer.id}/issuers/${a.id}`, issuer.auth)).status, 404);
  t.equal((await api("GET", `/organizations/${stranger.id}/grantors/${a.id}`, stranger.auth)).status, 404);
  t.equal((await api("GET", `${grantors}/${a.id}`, stranger.auth)).status, 403, "another organization's path");
  t.equal(
    (await api("PUT", `/organizations/${stranger.id}/grantors/${a.id}/accept`, stranger.auth)).status,
    404,
    "a stranger cannot accept it",
  );
  t.equal(
    (await api("PUT", `/organizations/${grantor.id}/grantors/${a.id}/accept`, grantor.auth)).status,
    404,
    "the grantor is not its issuer",
  );
  t.equal((await api("GET", `${grantors}/not-a-uuid`, issuer.auth)).status, 400, "a path id that is no UUID");

  const accepted = await api("PUT", `${grantors}/${a.id}/accept`, issuer.auth);
  t.equal(accepted.status, 200);
  t.match(accepted.body.data, { state: "accepted", ended_by: null });
  t.type(accepted.body.data.accepted_at, "string");
  const again = await api("PUT", `${grantors}/${a.id}/accept`, issuer.auth);
  t.equal(again.status, 422, "accepted once");
  t.match(again.body.data.errors, [{ field: "state", message: "is accepted" }]);

  t.equal((await api("DELETE", `${issuers}/${a.id}`, grantor.auth)).status, 204, "the grantor ends it");
  const ended = await api("GET", `${grantors}/${a.id}`, issuer.auth);
  t.match(ended.body.data, { state: "ended", ended_by: "grantor" });
  t.same((await api("GET", grantors, issuer.auth)).body.data, [], "an ended one leaves the lists");
  t.equal((await api("DELETE", `${grantors}/${a.id}`, issuer.auth)).status, 422, "ended once");

  // Every template (drafts aside, those made later included); the issuer may end it too.
  const all = await api("POST", issuers, grantor.auth, { issuer_organization_id: issuer.id, badge_template_ids: null });
  t.equal(all.status, 201, "a new one once the first ended");
  t.match(all.body.data, { all_badge_templates: true });
  t.same(
    all.body.data.badge_templates.map((x: { name: string }) => x.name),
    ["Go", "Rust"],
    "every template but drafts, by name",
  );
  t.ok(go.id);
  const later = await createTemplate(laurel, grantor, { name: "Zig" });
  t.same(
    (await api("GET", `${grantors}/${all.body.data.id}`, issuer.auth)).body.data.badge_templates.map(
      (x: { id: string }) => x.id,
    ),
    [go.id, rust.id, later.id],
    "a template made later is covered",
  );
  t.equal((await api("DELETE", `${grantors}/${all.body.data.id}`, issuer.auth)).status, 204, "the issuer ends it");
  t.match((await api("GET", `${issuers}/${all.body.data.id}`, grantor.auth)).body.data, {
    state: "ended",
    ended_by: "issuer",
  });

  const audit = await laurel.db.all<{ organization_id: string; action: string; target: string }>(
    "select organization_id, action, target from audit_log where action like 'issuer_authorization.%' order by occurred_at, id",
  );
  t.same(
    audit.map((r) => [r.organization_id, r.action, r.target]),
    [
      [grantor.id, "issuer_authorization.granted", `issuer_authorization:${a.id}`],
      [issuer.id, "issuer_authorization.accepted", `issuer_authorization:${a.id}`],
      [grantor.id, "issuer_authorization.ended", `issuer_authorization:${a.id}`],
      [grantor.id, "issuer_authorization.granted", `issuer_authorization:${all.body.data.id}`],
      [issuer.id, "issuer_authorization.ended", `issuer_authorization:${all.body.data.id}`],
    ],
    "each change in the acting organization's audit log",
  );
});
