import t from "tap";
import { apiClient, createTemplate, issueBody, type OrgFixture, organization } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/** The list grammar on real PostgreSQL: every form, each new key, sorts, links, and the 400 body. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

const PEOPLE: [string, string, string, string | null][] = [
  ["Ann", "Zeta", "2024-01-03T00:00:00Z", "E-1"],
  ["Bob", "Young", "2024-01-01T00:00:00Z", null],
  ["Cyd", "Xu", "2024-01-02T12:00:00Z", "E-3"],
  ["Dee", "Young Smith", "2024-02-01T00:00:00Z", null],
];

const setUp = async (name: string) => {
  const org = await organization(laurel, name);
  const rust = await createTemplate(laurel, org, { name: "Rust", allow_duplicate_badges: true, skills: ["systems"] });
  const go = await createTemplate(laurel, org, { name: "Go", allow_duplicate_badges: true, public: false });
  const ids: Record<string, string> = {};
  for (const [i, [first, last, at, earner]] of PEOPLE.entries()) {
    const res = await api(
      "POST",
      org.badges,
      org.auth,
      issueBody(i === 1 ? go.id : rust.id, {
        issued_to_first_name: first,
        issued_to_last_name: last,
        recipient_email: `${first.toLowerCase()}@example.org`,
        issued_at: at,
        issuer_earner_id: earner,
      }),
    );
    t.equal(res.status, 201);
    ids[first] = res.body.data.id;
  }
  return { org, rust, go, ids };
};

const firstNames = async (org: OrgFixture, query: string): Promise<string[]> => {
  const res = await api("GET", `${org.badges}${query}`, org.auth);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.map((b: { issued_to_first_name: string }) => b.issued_to_first_name);
};

t.test("badges: the three forms and every key", async (t) => {
  const { org, go, ids } = await setUp("Filters Org");
  await api("PUT", `${org.badges}/${ids.Bob}/revoke`, org.auth, { reason: "Wrong person" });
  const names = (q: string) => firstNames(org, q);

  t.same(await names("?filter=state::revoked"), ["Bob"], "older form");
  t.same(await names("?filter[state]=revoked"), ["Bob"], "newer form");
  t.same(await names("?filter%5Bstate%5D=revoked"), ["Bob"], "newer form, brackets encoded");
  t.same(await names("?state=revoked"), ["Bob"], "plain form");
  t.same(
    await names("?filter=state::pending,revoked|issued_at_max::2024-01-02"),
    ["Cyd", "Bob"],
    "comma list, whole day",
  );
  t.same(await names(`?filter[badge_template_id]=${go.id}`), ["Bob"]);
  t.same(await names("?recipient_email_all=ANN@example.org,%20cyd@example.org"), ["Ann", "Cyd"]);
  t.same(await names("?filter=recipient_email::Dee@Example.org"), ["Dee"]);
  t.same(await names("?issuer_earner_id=E-3"), ["Cyd"]);
  t.same(
    await names("?issued_at_min=2024-01-02&issued_at_max=2024-01-03T00:00:00Z"),
    ["Ann", "Cyd"],
    "bounds included",
  );
  const updatedSince = await names("?updated_at_min=2000-01-01");
  t.same(updatedSince.sort(), ["Ann", "Bob", "Cyd", "Dee"]);
  t.same(await names("?updated_at_max=2000-01-01"), []);
  t.same(await names("?query=young"), ["Dee", "Bob"], "search: part of a name");
  t.same(await names('?query="Bob Young"'), ["Bob"], "quoted: the whole name");
  t.same(await names('?filter=query::"young"'), [], "quoted: no field is exactly 'young'");
  t.same(await names('?query="GO"'), ["Bob"], "quoted: the template name, any case");

  const all = (await api("GET", org.badges, org.auth)).body.data as { issued_to_first_name: string; public: boolean }[];
  for (const value of [true, false]) {
    const expected = all.filter((b) => b.public === value).map((b) => b.issued_to_first_name);
    t.same(await names(`?public=${value}`), expected, `public=${value}`);
  }

  t.same(await names("?sort=issued_to_last_name"), ["Cyd", "Bob", "Dee", "Ann"]);
  t.same(await names("?sort=-issued_to_last_name|issued_at"), ["Ann", "Dee", "Bob", "Cyd"]);
  t.same(await names("?filter=state::pending&sort=issued_at"), ["Cyd", "Ann", "Dee"]);
  const byUpdate = await names("?sort=-updated_at");
  t.equal(byUpdate[0], "Bob", "the revoked badge changed last");
});

t.test("badges: unknown keys and bad values answer 400 naming the known ones", async (t) => {
  const org = await organization(laurel, "Bad Filters Org");
  for (const query of ["filter=state::revoked|colour::red", "filter[colour]=red"]) {
    const res = await api("GET", `${org.badges}?${query}`, org.auth);
    t.equal(res.status, 400, query);
    t.match(res.body, {
      data: {
        code: "bad_request",
        message: /filter, sort or page/,
        errors: [
          {
            field: /^filter/,
            message: /colour is not a known filter key; known keys: state, badge_template_id, /,
          },
        ],
      },
      metadata: {},
    });
  }
  // A top-level parameter the list does not know changes nothing: ignored, and named.
  const plain = await api("GET", `${org.badges}?colour=red`, org.auth);
  t.equal(plain.status, 200, "colour=red");
  t.equal(plain.headers.get("laurel-ignored-parameters"), "colour");
  const sort = await api("GET", `${org.badges}?sort=name`, org.auth);
  t.match(sort.body.data.errors, [
    { field: "sort", message: /known keys: issued_at, created_at, updated_at, issued_to_last_name/ },
  ]);
  t.equal((await api("GET", `${org.badges}?state=lost`, org.auth)).status, 400);
  t.equal((await api("GET", `${org.badges}?issued_at_min=soon`, org.auth)).status, 400);
  t.equal((await api("GET", `${org.badges}?page=0`, org.auth)).status, 400);
});

t.test("badges: page links carry the filter and sort as sent", async (t) => {
  const org = await organization(laurel, "Paged Filters Org");
  const tpl = await createTemplate(laurel, org);
  const items = Array.from({ length: 51 }, (_, i) =>
    issueBody(tpl.id, {
      recipient_email: `p${i}@example.org`,
      issued_at: `2024-01-01T00:${String(i).padStart(2, "0")}:00Z`,
    }),
  );
  await api("POST", `${org.badges}/batch`, org.auth, { badges: items.slice(0, 50) });
  await api("POST", org.badges, org.auth, items[50]);
  const query = "filter=state::pending|issued_at_min::2024-01-01&filter[public]=true&sort=issued_at";
  const first = await api("GET", `${org.badges}?${query}`, org.auth);
  t.match(first.body.metadata, { count: 50, total_count: 51, total_pages: 2 });
  t.equal(first.body.data[0].recipient_email, "p0@example.org", "ascending");
  const next = new URL(first.body.metadata.next_page_url);
  t.equal(next.searchParams.get("filter"), "state::pending|issued_at_min::2024-01-01");
  t.equal(next.searchParams.get("filter[public]"), "true");
  t.equal(next.searchParams.get("sort"), "issued_at");
  t.equal(next.searchParams.get("page"), "2");
  const second = await api("GET", first.body.metadata.next_page_url, org.auth);
  t.same(
    second.body.data.map((b: { recipient_email: string }) => b.recipient_email),
    ["p50@example.org"],
  );
  const back = new URL(second.body.metadata.previous_page_url);
  t.equal(back.searchParams.get("filter"), "state::pending|issued_at_min::2024-01-01");
  t.equal(back.searchParams.get("page"), "1");
});

t.test("badge templates: the new keys and sorts", async (t) => {
  const { org, rust, go } = await setUp("Template Filters Org");
  const names = async (q: string) =>
    (await api("GET", `${org.templates}${q}`, org.auth)).body.data.map((x: { name: string }) => x.name);
  t.same(await names("?filter=public::false"), ["Go"]);
  t.same(await names("?filter[public]=true"), ["Rust"]);
  t.same(await names("?filter=skills::systems|state::active"), ["Rust"]);
  t.same(await names('?query="rust"'), ["Rust"], "quoted: the whole name");
  t.same(await names('?query="rus"'), []);
  t.same(await names("?sort=-badges_count"), ["Rust", "Go"], "three badges against one");
  t.same(await names("?sort=badges_count"), ["Go", "Rust"]);
  t.same(await names("?sort=name"), ["Go", "Rust"]);
  await api("PUT", `${org.templates}/${rust.id}`, org.auth, { description: "Changed" });
  t.same(await names("?sort=-updated_at"), ["Rust", "Go"]);
  t.same(await names(`?created_at_min=${go.created_at}`), ["Go"]);
  t.same(await names(`?updated_at_max=${go.updated_at}`), ["Go"]);
  const res = await api("GET", `${org.templates}?filter=issued_at_min::2024-01-01`, org.auth);
  t.equal(res.status, 400);
  t.match(
    res.body.data.errors[0].message,
    /known keys: query, name, state, public, skills, reporting_tags, created_at_min/,
  );
});

t.test("events: event_type lists and occurred_at bounds", async (t) => {
  const { org } = await setUp("Event Filters Org");
  const events = `/organizations/${org.id}/events`;
  const all = (await api("GET", events, org.auth)).body;
  const kinds = (body: { data: { event_type: string }[] }) => body.data.map((e) => e.event_type);
  const created = (await api("GET", `${events}?filter=event_type::badge.created`, org.auth)).body;
  t.same(kinds(created), ["badge.created", "badge.created", "badge.created", "badge.created"]);
  t.equal(created.metadata.total_count, 4);
  const two = (await api("GET", `${events}?filter[event_type]=badge.created,badge_template.created`, org.auth)).body;
  t.same(
    two.data.map((e: { id: string }) => e.id),
    all.data
      .filter((e: { event_type: string }) => ["badge.created", "badge_template.created"].includes(e.event_type))
      .map((e: { id: string }) => e.id),
    "newest first, as unfiltered",
  );
  const last = all.data[0];
  const since = (await api("GET", `${events}?occurred_at_min=${encodeURIComponent(last.occurred_at)}`, org.auth)).body;
  t.ok(
    since.data.some((e: { id: string }) => e.id === last.id),
    "bound included",
  );
  t.ok(since.data.every((e: { occurred_at: string }) => e.occurred_at >= last.occurred_at));
  t.same((await api("GET", `${events}?occurred_at_max=2000-01-01`, org.auth)).body.data, []);
  const sorted = await api("GET", `${events}?sort=occurred_at`, org.auth);
  t.equal(sorted.status, 200, "events have one order: a sort is ignored");
  t.equal(sorted.headers.get("laurel-ignored-parameters"), "sort");
  t.equal((await api("GET", `${events}?event_type=badge.lost`, org.auth)).status, 400);
});

t.test("the OpenAPI document describes both forms", async (t) => {
  const doc = (await api("GET", `${new URL(laurel.baseUrl).origin}/openapi.json`, null)).body;
  const badgeList = doc.paths[`${new URL(laurel.baseUrl).pathname}/organizations/{organization_id}/badges`].get;
  const params = badgeList.parameters.map((p: { name: string }) => p.name);
  for (const name of ["filter", "sort", "page", "state", "filter[state]", "issued_at_min", "filter[issued_at_min]"])
    t.ok(params.includes(name), name);
  t.match(badgeList.description, /filter=key::value\|key::value/);
  t.match(badgeList.description, /filter\[key\]=value/);
});
