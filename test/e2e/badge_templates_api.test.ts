import t from "tap";
import {
  apiClient,
  clientBearer,
  createTemplate,
  eventRows,
  issueBody,
  organization,
  rowXmin,
} from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/** Badge templates over REST, end to end on PostgreSQL. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

t.test("create, get, update, archive, unarchive, delete; events in the same transaction", async (t) => {
  const org = await organization(laurel, "Templates Org");
  const created = await api("POST", org.templates, org.auth, {
    name: "  Rust  ",
    description: "Writes safe systems code",
    skills: ["rust", "systems", "rust"],
    image_url: "https://cdn.example/rust.png",
    criteria_url: "https://example.org/criteria",
    alignments: [{ name: "ESCO", url: "https://esco.example/s/1", description: "Programming" }],
    vanity_slug: "rust-1",
  });
  t.equal(created.status, 201);
  const tpl = created.body.data;
  t.equal(created.headers.get("location"), `${laurel.baseUrl}${org.templates}/${tpl.id}`);
  t.same(created.body.metadata, {});
  t.match(tpl, {
    name: "Rust",
    state: "draft",
    public: true,
    skills: ["rust", "systems"],
    url: null,
    global_activity_url: null,
    allow_duplicate_badges: false,
    badges_count: 0,
    alignments: [{ name: "ESCO", url: "https://esco.example/s/1", description: "Programming" }],
    owner: { type: "Organization", id: org.id, name: "Templates Org", url: String },
  });
  t.equal(tpl.created_at, tpl.updated_at);

  const [createdEvent] = await eventRows(laurel, org.id, "badge_template.created");
  t.same(createdEvent?.detail, { badge_template: tpl }, "the event carries the template's standard shape");
  t.equal(createdEvent?.xmin, await rowXmin(laurel, "badge_templates", tpl.id), "written in the same transaction");

  const got = await api("GET", `${org.templates}/${tpl.id}`, org.auth);
  t.same(got.body.data, tpl);

  const activated = await api("PUT", `${org.templates}/${tpl.id}`, org.auth, {
    state: "active",
    url: "https://x.example",
  });
  t.equal(activated.status, 200);
  t.match(activated.body.data, {
    state: "active",
    url: "https://x.example",
    name: "Rust",
    description: tpl.description,
  });
  const [changed] = await eventRows(laurel, org.id, "badge_template.changed");
  t.same(changed?.detail.badge_template, activated.body.data);
  t.equal(changed?.xmin, await rowXmin(laurel, "badge_templates", tpl.id));

  const same = await api("PUT", `${org.templates}/${tpl.id}`, org.auth, { state: "active" });
  t.equal(same.status, 200);
  t.equal(same.body.data.updated_at, activated.body.data.updated_at, "a PUT changing nothing changes nothing");
  t.equal((await eventRows(laurel, org.id, "badge_template.changed")).length, 1, "and records no event");

  const back = await api("PUT", `${org.templates}/${tpl.id}`, org.auth, { state: "draft" });
  t.equal(back.status, 422, "an active template cannot return to draft");

  const archived = await api("PUT", `${org.templates}/${tpl.id}/archive`, org.auth);
  t.equal(archived.status, 200);
  t.equal(archived.body.data.state, "archived");
  t.equal((await api("PUT", `${org.templates}/${tpl.id}/archive`, org.auth)).status, 422, "already archived");
  const unarchived = await api("PUT", `${org.templates}/${tpl.id}/unarchive`, org.auth);
  t.equal(unarchived.body.data.state, "active");
  t.equal((await api("PUT", `${org.templates}/${tpl.id}/unarchive`, org.auth)).status, 422, "not archived");

  const removed = await api("DELETE", `${org.templates}/${tpl.id}`, org.auth);
  t.equal(removed.status, 204);
  t.equal(removed.body, null);
  t.equal((await api("GET", `${org.templates}/${tpl.id}`, org.auth)).status, 404);
  t.equal((await api("DELETE", `${org.templates}/${tpl.id}`, org.auth)).status, 404);
  const [deleted] = await eventRows(laurel, org.id, "badge_template.deleted");
  t.same(deleted?.detail.badge_template, unarchived.body.data, "the template as it was when deleted");
  t.same(
    (await eventRows(laurel, org.id)).map((e) => e.event_type),
    [
      "badge_template.created",
      "badge_template.changed",
      "badge_template.changed",
      "badge_template.changed",
      "badge_template.deleted",
    ],
  );
});

t.test("validation: 422 with field errors, never 500", async (t) => {
  const org = await organization(laurel, "Validation Org");
  const cases: [unknown, string][] = [
    [{ description: "d" }, "name"],
    [{ name: "   ", description: "d" }, "name"],
    [{ name: "n", description: "d", state: "archived" }, "state"],
    [{ name: "n", description: "d", image_url: "javascript:alert(1)" }, "image_url"],
    [{ name: "n", description: "d", colour: "red" }, "colour"],
    [{ name: "n", description: "d", alignments: [{ name: "a" }] }, "alignments.0.url"],
    [{ name: "n", description: "d", vanity_slug: "has space" }, "vanity_slug"],
  ];
  for (const [body, field] of cases) {
    const res = await api("POST", org.templates, org.auth, body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.equal(res.body.data.code, "validation_failed");
    t.ok(
      res.body.data.errors.some((e: { field: string }) => e.field === field),
      `${field} named in ${JSON.stringify(res.body.data.errors)}`,
    );
  }
  await createTemplate(laurel, org, { vanity_slug: "taken" });
  const clash = await api("POST", org.templates, org.auth, { name: "Other", description: "d", vanity_slug: "TAKEN" });
  t.equal(clash.status, 422, "vanity slugs are unique per organization, whatever the case");
  t.equal(clash.body.data.errors[0].field, "vanity_slug");
  t.equal((await api("GET", `${org.templates}/not-a-uuid`, org.auth)).status, 400);
  t.equal((await api("GET", `${org.templates}?sort=colour`, org.auth)).status, 400);
  t.equal((await api("GET", `${org.templates}?page=0`, org.auth)).status, 400);
});

t.test("list: filters, sorts and 50-a-page pagination with absolute URLs", async (t) => {
  const org = await organization(laurel, "List Org");
  await createTemplate(laurel, org, { name: "Kotlin", description: "JVM things", skills: ["kotlin", "jvm"] });
  await createTemplate(laurel, org, { name: "Java", description: "More JVM", skills: ["java", "jvm"], state: "draft" });
  const scala = await createTemplate(laurel, org, {
    name: "Scala",
    description: "Functional",
    skills: ["scala", "jvm"],
  });
  await api("PUT", `${org.templates}/${scala.id}/archive`, org.auth);
  const names = async (query: string) =>
    (await api("GET", `${org.templates}${query}`, org.auth)).body.data.map((x: { name: string }) => x.name);

  t.same(await names(""), ["Scala", "Java", "Kotlin"], "newest first");
  t.same(await names("?sort=created_at"), ["Kotlin", "Java", "Scala"]);
  t.same(await names("?sort=name"), ["Java", "Kotlin", "Scala"]);
  t.same(await names("?sort=-name"), ["Scala", "Kotlin", "Java"]);
  t.same(await names("?state=draft"), ["Java"]);
  t.same(await names("?state=archived"), ["Scala"]);
  t.same(await names("?state=active"), ["Kotlin"]);
  t.same(await names("?name=kotlin"), ["Kotlin"], "name matches whole, any case");
  t.same(await names("?name=Kot"), []);
  t.same(await names("?query=jvm"), ["Java", "Kotlin"], "query searches name and description");
  t.same(await names("?query=%25"), [], "LIKE wildcards are literal");
  t.same(await names("?skills=jvm"), ["Scala", "Java", "Kotlin"]);
  t.same(await names("?skills=jvm,%20java"), ["Java"], "every listed skill");
  t.same(await names("?skills=jvm&state=active&sort=name"), ["Kotlin"]);

  const many = await organization(laurel, "Many Templates");
  for (let i = 0; i < 51; i++) {
    await api("POST", many.templates, many.auth, { name: `T${String(i).padStart(2, "0")}`, description: "d" });
  }
  const first = await api("GET", many.templates, many.auth);
  t.equal(first.body.data.length, 50);
  t.equal(first.body.data[0].name, "T50");
  t.match(first.body.metadata, { count: 50, current_page: 1, total_count: 51, total_pages: 2, per: 50 });
  t.equal(first.body.metadata.previous_page_url, null);
  t.equal(first.body.metadata.next_page_url, `${laurel.baseUrl}${many.templates}?page=2`);
  const second = await api("GET", first.body.metadata.next_page_url, many.auth);
  t.same(
    second.body.data.map((x: { name: string }) => x.name),
    ["T00"],
  );
  t.equal(second.body.metadata.previous_page_url, `${laurel.baseUrl}${many.templates}?page=1`);
  const filtered = await api("GET", `${many.templates}?sort=name&page=2`, many.auth);
  t.equal(filtered.body.data[0].name, "T50");
  t.equal(filtered.body.metadata.previous_page_url, `${laurel.baseUrl}${many.templates}?sort=name&page=1`);
});

t.test("badges_count, and a template with badges cannot be deleted", async (t) => {
  const org = await organization(laurel, "Count Org");
  const tpl = await createTemplate(laurel, org, { allow_duplicate_badges: true });
  for (let i = 0; i < 3; i++) t.equal((await api("POST", org.badges, org.auth, issueBody(tpl.id))).status, 201);
  t.equal((await api("GET", `${org.templates}/${tpl.id}`, org.auth)).body.data.badges_count, 3);
  t.equal((await api("GET", org.templates, org.auth)).body.data[0].badges_count, 3);
  const refused = await api("DELETE", `${org.templates}/${tpl.id}`, org.auth);
  t.equal(refused.status, 422);
  t.match(refused.body.data.message, /archive it instead/);
});

t.test("permissions: scope badge_templates, flags, tenants", async (t) => {
  const a = await organization(laurel, "Perm A");
  const b = await organization(laurel, "Perm B");
  const tplB = await createTemplate(laurel, b);
  t.equal((await api("GET", a.templates, null)).status, 401);
  t.equal((await api("GET", b.templates, a.auth)).status, 403, "another organization's path");
  t.equal((await api("GET", `${a.templates}/${tplB.id}`, a.auth)).status, 404, "another organization's template");
  t.equal((await api("PUT", `${a.templates}/${tplB.id}`, a.auth, { name: "x" })).status, 404);
  t.equal((await api("DELETE", `${a.templates}/${tplB.id}`, a.auth)).status, 404);

  const reader = await api("POST", `/organizations/${a.id}/authorization_tokens`, a.auth, {
    write_enabled: false,
    delete_enabled: false,
  });
  const readerAuth = `Basic ${Buffer.from(`${reader.body.data.token}:`).toString("base64")}`;
  t.equal((await api("GET", a.templates, readerAuth)).status, 200);
  t.equal((await api("POST", a.templates, readerAuth, { name: "n", description: "d" })).status, 403);

  const app = (await api("POST", `/organizations/${a.id}/oauth_applications`, a.auth, { name: "t" })).body.data;
  const tokenFor = (scope: string) => clientBearer(laurel.authUrl, app, scope);
  t.equal(
    (await api("POST", a.templates, await tokenFor("badge_templates"), { name: "n", description: "d" })).status,
    201,
  );
  t.equal((await api("GET", a.templates, await tokenFor("issued_badges"))).status, 403, "needs badge_templates");
});
