import t from "tap";
import { BADGE_LIST, TEMPLATE_LIST } from "../../core/badges/mod.ts";
import { isCoreError } from "../../core/errors/mod.ts";
import { EVENT_LIST } from "../../core/events/mod.ts";
import { filterKeyNames, listQuerySchema, parseListQuery } from "../../core/listing/mod.ts";
import { EMPLOYEE_LIST } from "../../core/workforce/mod.ts";

const ID = "0190c0de-0000-7000-8000-00000000000a";
const ID2 = "0190C0DE-0000-7000-8000-00000000000B";
const qs = (text: string): [string, string][] => [...new URLSearchParams(text)];
const d = (iso: string) => new Date(iso);

// Each query string of the badge list and what the grammar reads from it.
const ACCEPTED: Array<[string, string, unknown]> = [
  ["nothing: default sort, page 1", "", { filters: {}, sort: [{ key: "issued_at", desc: true }], page: 1 }],
  ["older form", "filter=state::revoked", { filters: { state: { kind: "values", values: ["revoked"] } } }],
  [
    "older form, two keys",
    "filter=state::pending,accepted|public::true",
    {
      filters: {
        state: { kind: "values", values: ["pending", "accepted"] },
        public: { kind: "boolean", value: true },
      },
    },
  ],
  ["newer form", "filter[state]=revoked", { filters: { state: { kind: "values", values: ["revoked"] } } }],
  ["plain form", "state=revoked&page=3", { filters: { state: { kind: "values", values: ["revoked"] } }, page: 3 }],
  [
    "forms mixed",
    `filter=state::pending&filter[badge_template_id]=${ID},${ID2}&recipient_email=%20Ada@Example.org`,
    {
      filters: {
        state: { kind: "values", values: ["pending"] },
        badge_template_id: { kind: "values", values: [ID, ID2.toLowerCase()] },
        recipient_email: { kind: "values", values: ["ada@example.org"] },
      },
    },
  ],
  [
    "duplicate enum values once",
    "state=pending,pending",
    { filters: { state: { kind: "values", values: ["pending"] } } },
  ],
  [
    "e-mail comma list",
    "recipient_email_all=A@x.org,%20b@x.org,",
    { filters: { recipient_email_all: { kind: "values", values: ["a@x.org", "b@x.org"] } } },
  ],
  ["search", "query=ada", { filters: { query: { kind: "search", text: "ada", exact: false } } }],
  [
    "quoted search is exact",
    'query="Ada Lovelace"',
    { filters: { query: { kind: "search", text: "Ada Lovelace", exact: true } } },
  ],
  [
    "quoted search may hold | in the older form",
    'filter=query::"a|b"|state::revoked',
    {
      filters: {
        query: { kind: "search", text: "a|b", exact: true },
        state: { kind: "values", values: ["revoked"] },
      },
    },
  ],
  ["text", "issuer_earner_id=E-1", { filters: { issuer_earner_id: { kind: "values", values: ["E-1"] } } }],
  [
    "date bounds merge into one range",
    "filter=issued_at_min::2024-01-01|issued_at_max::2024-01-31",
    { filters: { issued_at: { kind: "range", min: d("2024-01-01T00:00:00Z"), max: d("2024-01-31T23:59:59.999Z") } } },
  ],
  [
    "date-time without offset is UTC; with offset kept",
    "updated_at_min=2024-01-01T10:00&updated_at_max=2024-01-02T10:00:00%2B02:00",
    { filters: { updated_at: { kind: "range", min: d("2024-01-01T10:00:00Z"), max: d("2024-01-02T08:00:00Z") } } },
  ],
  [
    "an offset's unencoded + arrives as a space",
    "issued_at_min=2024-01-01T10:00:00+02:00",
    { filters: { issued_at: { kind: "range", min: d("2024-01-01T08:00:00Z"), max: null } } },
  ],
  [
    "sort several keys",
    "sort=issued_to_last_name|-created_at",
    {
      sort: [
        { key: "issued_to_last_name", desc: false },
        { key: "created_at", desc: true },
      ],
    },
  ],
  ["sort one key descending", "sort=-updated_at", { sort: [{ key: "updated_at", desc: true }] }],
  ["no per: 50 a page", "", { per: 50 }],
  ["per", "per=3", { per: 3 }],
  ["page_size is per", "page_size=100", { per: 100 }],
  ["per wins over page_size", "page_size=10&per=20", { per: 20 }],
  [
    "the same parameter and value twice counts once",
    "sort=-issued_at&filter=state::pending&sort=-issued_at&filter=state::pending&page=2&page=2",
    { filters: { state: { kind: "values", values: ["pending"] } }, sort: [{ key: "issued_at", desc: true }], page: 2 },
  ],
  [
    "start_date included, with a space for the T",
    "start_date=2000-01-01 00:00:00",
    { filters: { issued_at: { kind: "range", min: d("2000-01-01T00:00:00Z"), max: null } } },
  ],
  [
    "end_date excluded: the millisecond before",
    "end_date=2024-05-01T12:00:00+02:00",
    { filters: { issued_at: { kind: "range", min: null, max: d("2024-05-01T09:59:59.999Z") } } },
  ],
  [
    "end_date as a bare date: before that day",
    "start_date=2024-05-01&end_date=2024-05-02",
    {
      filters: {
        issued_at: { kind: "range", min: d("2024-05-01T00:00:00Z"), max: d("2024-05-01T23:59:59.999Z") },
      },
    },
  ],
  [
    "reporting tags, as clients spell the key",
    "filter=recipient_email_all::a@b.example|badge_templates[reporting_tags]::x,y",
    {
      filters: {
        recipient_email_all: { kind: "values", values: ["a@b.example"] },
        "badge_templates[reporting_tags]": { kind: "values", values: ["x", "y"] },
      },
    },
  ],
];

t.test("the badge list's grammar reads every form", async (t) => {
  for (const [label, text, expected] of ACCEPTED) {
    const got = parseListQuery(BADGE_LIST, qs(text));
    t.match(got, expected, label);
    if ((expected as { filters?: object }).filters)
      t.same(
        Object.keys(got.filters),
        Object.keys((expected as { filters: object }).filters),
        `${label}: no other key`,
      );
  }
});

// Refused query strings: the field named and a piece of the message.
const REFUSED: Array<[string, string, string, RegExp]> = [
  [
    "unknown key in the older form",
    "filter=colour::red",
    "filter",
    /colour is not a known filter key; known keys: state, /,
  ],
  [
    "unknown key in the newer form",
    "filter[colour]=red",
    "filter[colour]",
    /known keys: .*issued_at_min, issued_at_max/,
  ],
  ["unknown plain key", "colour=red", "colour", /known keys/],
  ["bare date key", "issued_at=2024-01-01", "issued_at", /not a known filter key/],
  ["part without ::", "filter=state", "filter", /state is not key::value/],
  ["key twice across forms", "state=pending&filter[state]=revoked", "filter[state]", /given more than once/],
  [
    "unknown enum value",
    "state=pending,lost",
    "state",
    /must be one of pending, accepted, rejected, revoked, replaced/,
  ],
  ["empty value", "filter=state::", "filter", /must not be empty/],
  ["empty comma list", "state=,", "state", /must be one of/],
  ["bad id", "badge_template_id=12", "badge_template_id", /must be a UUID/],
  ["bad boolean", "public=yes", "public", /true or false/],
  ["bad date", "issued_at_min=yesterday", "issued_at_min", /ISO 8601/],
  ["impossible date", "issued_at_min=2024-02-30", "issued_at_min", /ISO 8601/],
  ["bad date-time", "issued_at_max=2024-02-01T99:00", "issued_at_max", /ISO 8601/],
  ["empty quoted search", 'query=""', "query", /must not be empty/],
  ["too long", `query=${"a".repeat(1001)}`, "query", /longer than 1000 characters/],
  ["unknown sort key", "sort=name", "sort", /name is not a known sort key; known keys: issued_at, created_at/],
  ["sort key twice", "sort=issued_at|-issued_at", "sort", /given more than once/],
  ["empty sort", "sort=", "sort", /\(empty\) is not a known sort key/],
  ["sort twice", "sort=issued_at&sort=created_at", "sort", /given more than once/],
  ["page 0", "page=0", "page", /integer from 1/],
  ["page not an integer", "page=1.5", "page", /integer from 1/],
  ["page too large", "page=1000001", "page", /integer from 1/],
  ["empty bracket key", "filter[]=x", "filter[]", /\(empty\) is not a known filter key/],
  ["per 0", "per=0", "per", /integer from 1 to 100/],
  ["per over 100", "per=101", "per", /integer from 1 to 100/],
  ["page_size not an integer", "page_size=ten", "page_size", /integer from 1 to 100/],
  ["per twice, two values", "per=10&per=20", "per", /more than once, with different values/],
  ["page twice, two values", "page=1&page=2", "page", /more than once, with different values/],
  [
    "one bound under two names, two values",
    "start_date=2024-01-01&issued_at_min=2024-01-02",
    "issued_at_min",
    /more than once/,
  ],
  ["bad start_date", "start_date=soon", "start_date", /ISO 8601/],
];

t.test("the badge list's grammar refuses with one field error per problem", async (t) => {
  for (const [label, text, field, message] of REFUSED) {
    try {
      parseListQuery(BADGE_LIST, qs(text));
      t.fail(`${label}: accepted`);
    } catch (err) {
      t.ok(isCoreError(err) && err.code === "bad_request", `${label}: bad_request`);
      const errors = isCoreError(err) ? err.errors : [];
      t.equal(errors[0]?.field, field, `${label}: field`);
      t.match(errors[0]?.message, message, `${label}: message`);
    }
  }
  try {
    parseListQuery(BADGE_LIST, qs("colour=red&state=lost&sort=x"));
  } catch (err) {
    t.same(
      isCoreError(err) && err.errors.map((e) => e.field),
      ["colour", "state", "sort"],
      "every problem is reported",
    );
  }
});

t.test("the template and event lists declare their own keys", async (t) => {
  t.match(parseListQuery(TEMPLATE_LIST, qs("filter=skills::go,rust&sort=-badges_count")), {
    filters: { skills: { kind: "values", values: ["go", "rust"] } },
    sort: [{ key: "badges_count", desc: true }],
  });
  t.match(parseListQuery(TEMPLATE_LIST, qs("name=Go&created_at_max=2024-01-01")), {
    filters: { name: { kind: "values", values: ["Go"] }, created_at: { kind: "range", min: null } },
    sort: [{ key: "created_at", desc: true }],
  });
  t.match(parseListQuery(EVENT_LIST, qs("filter=event_type::badge.created,badge.state.changed")), {
    filters: { event_type: { kind: "values", values: ["badge.created", "badge.state.changed"] } },
    sort: [],
  });
  t.throws(() => parseListQuery(EVENT_LIST, qs("sort=occurred_at")), /invalid/, "no sort keys: any sort refused");
  t.throws(() => parseListQuery(EVENT_LIST, qs("event_type=badge.lost")));
  t.same(filterKeyNames(EVENT_LIST), ["event_type", "occurred_at_min", "occurred_at_max"]);
});

t.test("options: a feed's cursor, no sort, no page", async (t) => {
  const got = parseListQuery(BADGE_LIST, qs("cursor=abc&state=revoked"), {
    extra: ["cursor"],
    sortable: false,
    paged: false,
  });
  t.same(got.extra, { cursor: "abc" });
  t.throws(() => parseListQuery(BADGE_LIST, qs("sort=issued_at"), { sortable: false }), /invalid/);
  t.throws(() => parseListQuery(BADGE_LIST, qs("page=2"), { paged: false }), /invalid/);
  t.throws(() => parseListQuery(BADGE_LIST, qs("cursor=a&cursor=b"), { extra: ["cursor"] }), /invalid/);
});

t.test("the OpenAPI schema names both forms of every key", async (t) => {
  const schema = listQuerySchema(BADGE_LIST);
  for (const key of ["filter", "sort", "page", "state", "filter[state]", "issued_at_min", "filter[issued_at_max]"])
    t.ok(key in schema.properties, key);
  t.match(schema.properties.filter, { description: /state::pending,accepted/ });
  t.notOk("sort" in listQuerySchema(EVENT_LIST).properties, "no sort keys: no sort parameter");
  t.notOk("page" in listQuerySchema(BADGE_LIST, { paged: false }).properties);
  t.notOk("sort" in listQuerySchema(BADGE_LIST, { sortable: false }).properties);
  t.match(schema.properties.query, { description: /double quotes/ });
});

t.test("aliases: the employee list's keys as a published client spells them", async (t) => {
  const got = parseListQuery(EMPLOYEE_LIST, qs("filter=state::accepted|names_or_email::ada"));
  t.same(got.filters, {
    employee_state: { kind: "values", values: ["accepted"] },
    name_or_email: { kind: "search", text: "ada", exact: false },
  });
  try {
    parseListQuery(EMPLOYEE_LIST, qs("state=accepted&employee_state=created"));
    t.fail("an alias and its key with two values");
  } catch (err) {
    t.ok(isCoreError(err) && err.code === "bad_request" && err.errors[0]?.field === "employee_state");
  }
  t.ok(filterKeyNames(EMPLOYEE_LIST).includes("names_or_email"), "the alias is a known key");
});
