import t from "tap";
import { isRefusedTextError } from "../../adapters/rest/nul_guard.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * Text PostgreSQL refuses (U+0000, lone surrogates) is refused at the edge on every route with a
 * documented 4xx, and a refusal that still reaches the database answers 4xx, never 5xx.
 */
let laurel: TestLaurel;
let auth: string;
let org: string;
t.before(async () => {
  laurel = await startLaurel();
  const created = await laurel.createOrganization("Text");
  auth = basic(created.authorization_token.token);
  org = `/organizations/${created.organization.id}`;
});
t.teardown(() => laurel.close());

const send = async (method: string, path: string, rawBody?: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, {
    method,
    headers: {
      authorization: auth,
      ...(rawBody === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(rawBody === undefined ? {} : { body: rawBody }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

const tokenEndpoint = async (body: string, contentType: string, authorization?: string) => {
  const res = await fetch(`${laurel.authUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": contentType, ...(authorization ? { authorization } : {}) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

// JSON escapes, so the body carries the code units themselves.
const BAD = [
  ["NUL", "\\u0000"],
  ["a lone high surrogate", "\\ud800"],
  ["a lone low surrogate", "\\udc00"],
];

for (const [label, esc] of BAD) {
  t.test(`${label} in an application name, a token description, a template is a 422 naming the field`, async (t) => {
    const cases: Array<[string, string, string, string]> = [
      ["POST", `${org}/oauth_applications`, `{"name":"App${esc}"}`, "name"],
      ["POST", `${org}/oauth_applications`, `{"name":"App","description":"d${esc}"}`, "description"],
      ["POST", `${org}/authorization_tokens`, `{"description":"t${esc}"}`, "description"],
      ["POST", `${org}/badge_templates`, `{"name":"x${esc}","state":"active"}`, "name"],
      [
        "POST",
        `${org}/oauth_applications`,
        `{"name":"App","k${esc}":1}`,
        `k${esc === "\\u0000" ? "\u0000" : JSON.parse(`"${esc}"`)}`,
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await send(method, path, body);
      t.equal(res.status, 422, `${method} ${path} ${body}`);
      t.equal(res.body.data.code, "validation_failed");
      t.equal(res.body.data.errors[0].field, field);
      t.equal(
        res.body.data.errors[0].message,
        esc === "\\u0000" ? "must not contain NUL characters" : "must not contain unpaired surrogates",
      );
    }
    const made = await send("POST", `${org}/oauth_applications`, '{"name":"fine"}');
    const put = await send("PUT", `${org}/oauth_applications/${made.body.data.id}`, `{"name":"n${esc}"}`);
    t.equal(put.status, 422, "an update too");
    t.equal((await send("GET", `${org}/oauth_applications/${made.body.data.id}`)).body.data.name, "fine");
  });
}

t.test("NUL in a query string or a path is a 400", async (t) => {
  const query = await send("GET", `${org}/oauth_applications?page=1%00`);
  t.equal(query.status, 400);
  const events = await send("GET", `${org}/events?event_type=x%00`);
  t.equal(events.status, 400);
  t.equal(events.body.data.code, "bad_request");
  const path = await send("GET", `${org}/badges/abc%00def`);
  t.ok(path.status === 400 || path.status === 404, `path ${path.status}`);
});

t.test("the token endpoint answers invalid_request, never a 5xx", async (t) => {
  const form = "application/x-www-form-urlencoded";
  const cases: Array<[string, string, string | undefined]> = [
    ["grant_type=client_credentials&scope=events&client_id=a%00b&client_secret=s", form, undefined],
    ["grant_type=client_credentials&scope=events&client_id=ab&client_secret=s%00", form, undefined],
    [
      '{"grant_type":"client_credentials","scope":"events","client_id":"a\\u0000","client_secret":"s"}',
      "application/json",
      undefined,
    ],
    [
      '{"grant_type":"client_credentials","scope":"events","client_id":"\\ud800","client_secret":"s"}',
      "application/json",
      undefined,
    ],
    ["grant_type=client_credentials&scope=events", form, `Basic ${Buffer.from("a%00b:secret").toString("base64")}`],
  ];
  for (const [body, type, authorization] of cases) {
    const res = await tokenEndpoint(body, type, authorization);
    t.equal(res.status, 400, body);
    t.equal(res.body.error, "invalid_request", body);
  }
});

t.test("PostgreSQL's refusals of text are recognised in what the driver throws", async (t) => {
  const connection = laurel.db;
  const refused = async (sql: string, params: unknown[] = []): Promise<unknown> => {
    try {
      await connection.all(sql, params);
    } catch (err) {
      return err;
    }
    return null;
  };
  const table: Array<[string, string, unknown[]]> = [
    ["NUL inside a query's text (08P01)", "select ?::text as x", ["a\u0000b"]],
    ["NUL escaped in JSON (22P05)", "select ?::jsonb as x", ['"\\u0000"']],
    ["invalid UTF-8 (22021)", "select convert_from('\\xff'::bytea, 'UTF8') as x", []],
  ];
  for (const [label, sql, params] of table) {
    const err = await refused(sql, params);
    t.ok(isRefusedTextError(err), label);
    t.ok(isRefusedTextError(new Error("wrapped", { cause: err })), `${label}, wrapped`);
  }
  const tooLong = await refused(`do $$ begin raise exception 'too long' using errcode = '22001'; end $$`);
  t.ok(isRefusedTextError(tooLong), "value too long (22001)");
  t.notOk(isRefusedTextError(await refused("select 1/0")), "division by zero is not about text");
  t.notOk(isRefusedTextError(null));
  t.notOk(isRefusedTextError(table));
});

t.test("a text refusal that reaches PostgreSQL is still a 4xx", async (t) => {
  // Make the database refuse what the edge lets through, as a column limit or an encoding would.
  const db = laurel.db;
  await db.run(`create function laurel_test_refuse() returns trigger language plpgsql as $$
    begin
      if new.name = 'too long for the database' then raise exception 'value too long' using errcode = '22001'; end if;
      if new.name = 'bad bytes for the database' then raise exception 'invalid byte sequence' using errcode = '22021'; end if;
      return new;
    end $$`);
  await db.run(`create trigger laurel_test_refuse before insert on oauth_applications
    for each row execute function laurel_test_refuse()`);
  t.teardown(async () => {
    await db.run("drop trigger laurel_test_refuse on oauth_applications");
  });

  for (const name of ["too long for the database", "bad bytes for the database"]) {
    const res = await send("POST", `${org}/oauth_applications`, JSON.stringify({ name }));
    t.equal(res.status, 422, name);
    t.equal(res.body.data.code, "validation_failed");
  }
});

t.test("the internal API refuses the same text at its edge: a 400, never a 500", async (t) => {
  const { trpcFailure } = await import("../support/badges.ts");
  for (const [label, name] of [
    ["NUL", "Bad\u0000Org"],
    ["a lone surrogate", "Bad\ud800Org"],
  ]) {
    const refused = await trpcFailure(laurel, "organizations.create", { name, email: "a@b.example" });
    t.equal(refused.status, 400, label);
    t.equal(refused.code, "BAD_REQUEST");
    t.match(refused.message, /must not contain/);
  }
  const key = await trpcFailure(laurel, "organizations.create", { name: "Fine", email: "a@b.example", "k\u0000": 1 });
  t.equal(key.status, 400, "a key too");
});
