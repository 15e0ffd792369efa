import t from "tap";
import {
  apiClient,
  clientBearer,
  createTemplate,
  issueBody,
  type OrgFixture,
  organization,
} from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * What clients written for this interface by other people send, on the wire as they send it: the
 * organization resource, page sizes under their names, parameters Laurel does not know, the feed's
 * date bounds in the clients' formats, reporting tags, and the Basic credential's three spellings.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

/** A raw request (path as written, nothing re-encoded) with the organization's token. */
const raw = async (org: OrgFixture, path: string, auth = org.auth) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, { headers: { authorization: auth } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
};

t.test("the organization resource: read, listed, changed with its webhook, and guarded", async (t) => {
  const org = await organization(laurel, "Credly Clients Org");
  const other = await organization(laurel, "Other Org");

  const listed = await api("GET", "/organizations", org.auth);
  t.equal(listed.status, 200);
  t.same(
    listed.body.data.map((o: { id: string }) => o.id),
    [org.id],
    "a token lists its own organization only",
  );
  t.match(listed.body.metadata, { count: 1, total_count: 1, total_pages: 1, per: 50, current_page: 1 });

  for (const path of [`/organizations/${org.id}`, `/organizations/${org.id}/`]) {
    const got = await api("GET", path, org.auth);
    t.equal(got.status, 200, path);
    t.match(got.body.data, {
      id: org.id,
      type: "Organization",
      name: "Credly Clients Org",
      contact_email: String,
      photo_url: null,
      url: `${laurel.baseUrl}/organizations/${org.id}`,
      vanity_url: new RegExp(`/organizations/${org.id}$`),
      webhook_url: null,
      created_at: /Z$/,
      updated_at: /Z$/,
    });
  }
  const page = await fetch((await api("GET", `/organizations/${org.id}`, org.auth)).body.data.vanity_url as string);
  t.equal(page.status, 200, "vanity_url is the organization's public page");
  t.match(await page.text(), /Credly Clients Org/);

  t.equal((await api("GET", `/organizations/${other.id}`, org.auth)).status, 403, "another organization's");
  t.equal((await api("GET", `/organizations/${org.id}`, null)).status, 401);

  const changed = await api("PUT", `/organizations/${org.id}`, org.auth, {
    name: "Credly Clients Academy",
    description: "Teaches clients",
    website_url: "https://academy.example.org",
    contact_email: "badges@academy.example.org",
    photo_url: "https://academy.example.org/logo.png",
    webhook_url: "https://hooks.academy.example.org/laurel",
  });
  t.equal(changed.status, 200, JSON.stringify(changed.body));
  t.match(changed.body.data, {
    name: "Credly Clients Academy",
    description: "Teaches clients",
    website_url: "https://academy.example.org",
    contact_email: "badges@academy.example.org",
    photo_url: "https://academy.example.org/logo.png",
    webhook_url: "https://hooks.academy.example.org/laurel",
  });
  const [settings] = (await laurel.db.all(
    "select webhook_url, secret_sealed is not null as signed from webhook_settings where organization_id = ?",
    [org.id],
  )) as { webhook_url: string; signed: boolean }[];
  t.same(
    settings,
    { webhook_url: "https://hooks.academy.example.org/laurel", signed: true },
    "the webhook the workers read is the one set over REST, with its signing secret",
  );
  const audit = (await laurel.db.all(
    "select action, actor_kind from audit_log where organization_id = ? and action in ('organization.updated', 'webhook_settings.updated') order by action",
    [org.id],
  )) as { action: string; actor_kind: string }[];
  t.same(
    audit,
    [
      { action: "organization.updated", actor_kind: "authorization_token" },
      { action: "webhook_settings.updated", actor_kind: "authorization_token" },
    ],
    "both changes recorded as the console records them, naming the token",
  );
  const issuer = await fetch(`${laurel.baseUrl}/obi/v2/issuers/${org.id}`);
  t.match(await issuer.json(), { name: "Credly Clients Academy", email: "badges@academy.example.org" });

  const kept = await api("PUT", `/organizations/${org.id}`, org.auth, { description: null });
  t.match(kept.body.data, { name: "Credly Clients Academy", description: null, webhook_url: String }, "absent stays");

  for (const [body, field] of [
    [{ webhook_url: "http://hooks.academy.example.org/x" }, "webhook_url"],
    [{ webhook_url: "https://127.0.0.1/x" }, "webhook_url"],
    [{ webhook_url: "https://169.254.169.254/latest" }, "webhook_url"],
    [{ website_url: "javascript:alert(1)" }, "website_url"],
    [{ contact_email: "nobody" }, "contact_email"],
    [{ name: "" }, "name"],
    [{ colour: "red" }, "colour"],
  ] as const) {
    const refused = await api("PUT", `/organizations/${org.id}`, org.auth, body);
    t.equal(refused.status, 422, JSON.stringify(body));
    t.equal(refused.body.data.code, "validation_failed");
    t.ok(
      refused.body.data.errors.some((e: { field: string }) => e.field === field),
      `${JSON.stringify(body)} names ${field}`,
    );
  }
  const after = await api("GET", `/organizations/${org.id}`, org.auth);
  t.equal(after.body.data.webhook_url, "https://hooks.academy.example.org/laurel", "a refusal changed nothing");

  const cleared = await api("PUT", `/organizations/${org.id}`, org.auth, { webhook_url: null });
  t.equal(cleared.body.data.webhook_url, null, "null stops deliveries");
});

t.test("who may read and change the organization", async (t) => {
  const org = await organization(laurel, "Guarded Org");
  const readOnly = await api("POST", `/organizations/${org.id}/authorization_tokens`, org.auth, {
    write_enabled: false,
    delete_enabled: false,
  });
  const readAuth = basic(readOnly.body.data.token);
  const app = await api("POST", `/organizations/${org.id}/oauth_applications`, org.auth, { name: "sync" });
  const events = await clientBearer(laurel.authUrl, app.body.data, "events");
  const developers = await clientBearer(laurel.authUrl, app.body.data, "oauth_applications");
  const change = { description: "Changed" };
  const cases: [string, string, number, number][] = [
    ["read and write token", org.auth, 200, 200],
    ["read-only token", readAuth, 200, 403],
    ["access token, events scope", events, 200, 403],
    ["access token, oauth_applications scope", developers, 200, 200],
  ];
  for (const [who, auth, read, write] of cases) {
    t.equal((await api("GET", `/organizations/${org.id}`, auth)).status, read, `${who} reads`);
    t.equal((await api("GET", "/organizations", auth)).status, read, `${who} lists`);
    t.equal((await api("PUT", `/organizations/${org.id}`, auth, change)).status, write, `${who} changes`);
  }
});

t.test("page sizes, ignored parameters, repeated ones and doubled slashes", async (t) => {
  const org = await organization(laurel, "Paging Clients Org");
  const tpl = await createTemplate(laurel, org, { allow_duplicate_badges: true });
  const items = Array.from({ length: 7 }, (_, i) =>
    issueBody(tpl.id, { recipient_email: `p${i}@example.org`, issued_at: `2024-01-0${i + 1}T00:00:00Z` }),
  );
  t.equal((await api("POST", `${org.badges}/batch`, org.auth, { badges: items })).status, 201);

  const per = await raw(org, `/organizations/${org.id}/badges?per=3`);
  t.match(per.body.metadata, { count: 3, per: 3, total_count: 7, total_pages: 3 });
  t.equal(new URL(per.body.metadata.next_page_url).searchParams.get("per"), "3", "the next page keeps per");
  const last = await raw(org, `/organizations/${org.id}/badges?per=3&page=3`);
  t.equal(last.body.data.length, 1);

  const big = await raw(org, `/organizations/${org.id}/badge_templates?page_size=100`);
  t.equal(big.status, 200);
  t.equal(big.body.metadata.per, 100, "page_size is per");
  t.equal(big.headers.get("laurel-ignored-parameters"), null, "nothing ignored");
  t.equal((await raw(org, `/organizations/${org.id}/badges?per=50`)).body.metadata.per, 50);
  t.equal((await raw(org, `/organizations/${org.id}/events?per=2`)).body.data.length, 2, "every list");
  t.equal((await raw(org, `/organizations/${org.id}/authorization_tokens?per=1`)).body.metadata.per, 1);
  for (const bad of ["per=0", "per=101", "per=ten", "page_size=1000"]) {
    const res = await raw(org, `/organizations/${org.id}/badges?${bad}`);
    t.equal(res.status, 400, bad);
    t.match(res.body.data.errors[0], { field: bad.split("=")[0], message: /from 1 to 100/ });
  }

  const ignored = await raw(org, `/organizations/${org.id}/badges?badge_format=minimal&colour=red&state=pending`);
  t.equal(ignored.status, 200);
  t.equal(ignored.headers.get("laurel-ignored-parameters"), "badge_format, colour");
  t.equal(ignored.body.data.length, 7, "the known filter applied, the others left out");
  const one = await raw(org, `/organizations/${org.id}/badges/${per.body.data[0].id}?expand=all`);
  t.equal(one.status, 200, "a read of one resource ignores parameters too");
  t.equal(one.headers.get("laurel-ignored-parameters"), "expand");
  const still = await raw(org, `/organizations/${org.id}/badges?filter=state::pending|colour::red`);
  t.equal(still.status, 400, "an unknown key inside filter= changes the result: refused");
  t.equal((await raw(org, `/organizations/${org.id}/badges?filter[colour]=red`)).status, 400);

  const twice = await raw(
    org,
    `/organizations/${org.id}/badge_templates?sort=name&filter=state::active&sort=name&filter=state::active`,
  );
  t.equal(twice.status, 200, "the same parameter and value twice counts once");
  const tokens = await raw(org, `/organizations/${org.id}/authorization_tokens?page=1&page=1&x=1&PAGE=1&page[]=1`);
  t.equal(tokens.status, 200, "a page of the older kind too");
  t.equal(tokens.headers.get("laurel-ignored-parameters"), "x, PAGE, page%5B%5D", "names percent-encoded");
  t.equal((await raw(org, `/organizations/${org.id}/authorization_tokens?page=1&page=2`)).status, 400);
  const differ = await raw(org, `/organizations/${org.id}/badge_templates?sort=name&sort=-name`);
  t.equal(differ.status, 400, "two different values are still a conflict");

  t.equal((await raw(org, `//organizations/${org.id}//badges`)).status, 200, "doubled slashes");

  const doc = await (await fetch(`${laurel.origin}/openapi.json`)).json();
  t.match(doc.info.description, /Laurel-Ignored-Parameters/, "the OpenAPI document says so");
  const list = doc.paths["/v1/organizations/{organization_id}/badges"].get;
  const names = list.parameters.map((p: { name: string }) => p.name);
  for (const name of ["per", "page_size", "start_date", "end_date", "badge_templates[reporting_tags]"])
    t.ok(names.includes(name), `the badge list documents ${name}`);
});

t.test("the high-volume search: start_date and end_date in the clients' formats", async (t) => {
  const org = await organization(laurel, "Dates Clients Org");
  const tpl = await createTemplate(laurel, org, { allow_duplicate_badges: true });
  const at = ["2024-01-01T00:00:00Z", "2024-01-01T23:59:59Z", "2024-01-02T00:00:00Z", "2024-01-03T12:00:00Z"];
  const ids: string[] = [];
  for (const [i, issued_at] of at.entries()) {
    const res = await api(
      "POST",
      org.badges,
      org.auth,
      issueBody(tpl.id, { recipient_email: `d${i}@example.org`, issued_at }),
    );
    ids.push(res.body.data.id);
  }
  const feed = `/organizations/${org.id}/high_volume_issued_badge_search`;
  const found = async (query: string) => {
    const res = await raw(org, `${feed}?${query}`);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.map((b: { id: string }) => ids.indexOf(b.id));
  };
  t.same(await found("start_date=2000-01-01+00:00:00"), [0, 1, 2, 3], "the ingestion job's full history");
  t.same(await found("start_date=2024-01-01+00:00:00&end_date=2024-01-02+00:00:00"), [0, 1], "end excluded");
  t.same(await found("start_date=2024-01-02&end_date=2024-01-03"), [2], "bare dates: a day");
  t.same(await found("start_date=2024-01-01T19:00:00-05:00"), [2, 3], "an offset");
  t.same(await found(`start_date=${encodeURIComponent("2024-01-02T00:00:00+00:00")}`), [2, 3]);
  t.same(await found("start_date=2024-01-02T00:00:00+00:00"), [2, 3], "an unencoded + read back");
  t.same(await found("end_date=2024-01-01T23:59:59Z"), [0], "end excluded to the second");
  const both = await raw(org, `${feed}?start_date=2024-01-01&issued_at_min=2024-01-02`);
  t.equal(both.status, 400, "one lower bound: two names with two values conflict");
  t.match(both.body.data.errors[0], { field: "issued_at_min", message: /more than once/ });
  t.equal((await raw(org, `${feed}?start_date=yesterday`)).status, 400);
  const paged = await raw(org, `${feed}?per=3`);
  t.match(paged.body.metadata, { count: 3, per: 3 });
  const rest = await raw(
    org,
    new URL(paged.body.metadata.next_page_url).pathname.replace(/^\/v1/, "") +
      new URL(paged.body.metadata.next_page_url).search,
  );
  t.equal(rest.body.data.length, 1, "the cursor's page keeps per");
  const listed = await raw(org, `/organizations/${org.id}/badges?start_date=2024-01-03`);
  t.same(
    listed.body.data.map((b: { id: string }) => b.id),
    [ids[3]],
    "the badge list takes the same bounds",
  );
});

t.test("reporting tags select a collection of badges", async (t) => {
  const org = await organization(laurel, "Tags Clients Org");
  const cloud = await createTemplate(laurel, org, { name: "Cloud", reporting_tags: ["Q3-report", "cloud", "CLOUD "] });
  t.same(cloud.reporting_tags, ["Q3-report", "cloud"], "trimmed, once whatever the case");
  const data = await createTemplate(laurel, org, { name: "Data", reporting_tags: ["data"] });
  const plain = await createTemplate(laurel, org, { name: "Plain" });
  t.same(plain.reporting_tags, []);
  const issued: Record<string, string> = {};
  for (const [name, tpl] of [
    ["cloud", cloud],
    ["data", data],
    ["plain", plain],
  ] as const) {
    const res = await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: "a@b.example" }));
    issued[name] = res.body.data.id;
  }
  const ids = async (query: string) => {
    const res = await raw(org, `/organizations/${org.id}/badges?${query}`);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.map((b: { id: string }) => b.id).sort();
  };
  t.same(
    await ids("filter=recipient_email_all::a@b.example|badge_templates[reporting_tags]::q3-REPORT"),
    [issued.cloud],
    "the Go client's request, any case",
  );
  t.same(await ids("filter=badge_templates[reporting_tags]::cloud,data"), [issued.cloud, issued.data].sort(), "any of");
  t.same(await ids("filter[badge_templates[reporting_tags]]=data"), [issued.data]);
  t.same(await ids("filter=badge_templates[reporting_tags]::none"), []);
  const search = await raw(
    org,
    `/organizations/${org.id}/high_volume_issued_badge_search?filter=badge_templates[reporting_tags]::data`,
  );
  t.same(
    search.body.data.map((b: { id: string }) => b.id),
    [issued.data],
    "the high-volume search too",
  );
  const counted = await raw(org, `/organizations/${org.id}/badges?filter=badge_templates[reporting_tags]::cloud`);
  t.equal(counted.body.metadata.total_count, 1);

  const retagged = await api("PUT", `${org.templates}/${plain.id}`, org.auth, { reporting_tags: ["data"] });
  t.same(retagged.body.data.reporting_tags, ["data"]);
  t.same(await ids("filter=badge_templates[reporting_tags]::data"), [issued.data, issued.plain].sort());
  const templates = await raw(org, `/organizations/${org.id}/badge_templates?filter=reporting_tags::DATA&sort=name`);
  t.same(
    templates.body.data.map((x: { name: string }) => x.name),
    ["Data", "Plain"],
  );
  for (const bad of [[""], ["x".repeat(65)], Array.from({ length: 21 }, (_, i) => `t${i}`), "cloud"]) {
    const res = await api("POST", org.templates, org.auth, { name: "Bad", description: "d", reporting_tags: bad });
    t.equal(res.status, 422, JSON.stringify(bad).slice(0, 40));
  }
});

t.test("an authorization token sent the three ways clients send it", async (t) => {
  const org = await organization(laurel, "Basic Clients Org");
  const token = Buffer.from(org.auth.slice(6), "base64").toString("utf8").replace(/:$/, "");
  const as = (decoded: string) => `Basic ${Buffer.from(decoded).toString("base64")}`;
  for (const [decoded, status] of [
    [token, 200],
    [`${token}:`, 200],
    [`${token}|`, 200],
    [`${token}:password`, 401],
    [`${token}||`, 401],
    [`${token}|:`, 401],
    [`:${token}`, 401],
    ["|", 401],
    [`${token.slice(0, -1)}|`, 401],
  ] as const) {
    t.equal(
      (await raw(org, `/organizations/${org.id}/badges`, as(decoded))).status,
      status,
      decoded.replace(token, "<token>"),
    );
  }
});
