import t from "tap";
import { eventually } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/** The REST surface of OAuth applications and authorization tokens end to end, on real PostgreSQL and NATS. */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

const api = async (method: string, path: string, auth: string | null, body?: unknown) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, {
    method,
    headers: {
      ...(auth ? { authorization: auth } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
};

const token = async (clientId: string, secret: string, scope: string) => {
  const res = await fetch(`${laurel.authUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secret, scope }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};

t.test("OAuth applications: create, list, get, update, delete", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Apps Org");
  const auth = basic(authorization_token.token);
  const base = `/organizations/${organization.id}/oauth_applications`;

  const created = await api("POST", base, auth, { name: "Importer", description: "nightly sync" });
  t.equal(created.status, 201);
  t.match(created.body.data, {
    name: "Importer",
    description: "nightly sync",
    secret: String,
    uid: String,
    last_used_at: null,
  });
  t.ok(created.body.data.secret.length >= 43, "secret carries at least 256 bits");
  t.same(created.body.metadata, {});
  const id = created.body.data.id;
  t.type(id, "number");

  const listed = await api("GET", base, auth);
  t.equal(listed.status, 200);
  t.equal(listed.body.data.length, 1);
  t.equal(listed.body.data[0].secret, null, "secret is never shown again");
  t.match(listed.body.metadata, {
    count: 1,
    current_page: 1,
    total_count: 1,
    total_pages: 1,
    per: 50,
    previous_page_url: null,
    next_page_url: null,
  });

  const got = await api("GET", `${base}/${id}`, auth);
  t.equal(got.body.data.secret, null);
  t.equal(got.body.data.uid, created.body.data.uid);

  const updated = await api("PUT", `${base}/${id}`, auth, { name: "Importer v2" });
  t.equal(updated.status, 200);
  t.equal(updated.body.data.name, "Importer v2");
  t.equal(updated.body.data.description, "nightly sync", "fields not sent are kept");
  t.equal(updated.body.data.secret, null);

  const removed = await api("DELETE", `${base}/${id}`, auth);
  t.equal(removed.status, 204);
  t.equal(removed.body, null);
  t.equal((await api("GET", `${base}/${id}`, auth)).status, 404);
  t.equal((await api("DELETE", `${base}/${id}`, auth)).status, 404);
});

t.test("lists paginate 50 a page with absolute page URLs", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Many Apps");
  const auth = basic(authorization_token.token);
  const base = `/organizations/${organization.id}/oauth_applications`;
  for (let i = 0; i < 51; i++) t.equal((await api("POST", base, auth, { name: `app ${i}` })).status, 201);
  const first = await api("GET", base, auth);
  t.equal(first.body.data.length, 50);
  t.equal(first.body.data[0].name, "app 50", "newest first");
  t.match(first.body.metadata, { count: 50, total_count: 51, total_pages: 2, previous_page_url: null });
  t.equal(first.body.metadata.next_page_url, `${laurel.baseUrl}${base}?page=2`);
  const second = await api("GET", first.body.metadata.next_page_url.slice(laurel.baseUrl.length), auth);
  t.equal(second.body.data.length, 1);
  t.equal(second.body.data[0].name, "app 0");
  t.equal(second.body.metadata.previous_page_url, `${laurel.baseUrl}${base}?page=1`);
  t.equal(second.body.metadata.next_page_url, null);
  const beyond = await api("GET", `${base}?page=999999`, auth);
  t.equal(beyond.status, 200);
  t.same(beyond.body.data, []);
});

t.test("authorization tokens: ceiling, inheritance, truncated list, rotation", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Tokens Org");
  const admin = basic(authorization_token.token);
  const base = `/organizations/${organization.id}/authorization_tokens`;

  const inherited = await api("POST", base, admin, { description: "inherits" });
  t.equal(inherited.status, 201);
  t.match(inherited.body.data, {
    read_enabled: true,
    write_enabled: true,
    delete_enabled: true,
    description: "inherits",
    owner: { type: "Organization", id: organization.id },
  });
  const created = Date.parse(inherited.body.data.created_at);
  t.equal(Date.parse(inherited.body.data.expires_at) - created, 180 * 86_400_000, "expires after 180 days");

  const writer = await api("POST", base, admin, { description: "writer", delete_enabled: false });
  t.match(writer.body.data, { read_enabled: true, write_enabled: true, delete_enabled: false });
  const writerAuth = basic(writer.body.data.token);

  const tooStrong = await api("POST", base, writerAuth, { delete_enabled: true });
  t.equal(tooStrong.status, 403, "may not exceed the creator's permissions");
  t.equal(tooStrong.body.data.code, "forbidden");

  const reader = await api("POST", base, writerAuth, { description: "reader", write_enabled: false });
  t.match(reader.body.data, { read_enabled: true, write_enabled: false, delete_enabled: false });
  const readerAuth = basic(reader.body.data.token);

  const full = await api("GET", base, admin);
  t.equal(full.body.metadata.total_count, 4);
  const truncated = await api("GET", base, writerAuth);
  t.same(
    truncated.body.data.map((x: { description: string }) => x.description),
    ["reader"],
    "a caller without delete sees read-only tokens only",
  );
  t.equal(truncated.body.data[0].token, reader.body.data.token, "the list shows the value");

  t.equal((await api("POST", base, readerAuth, {})).status, 403, "creating needs write permission");
  t.equal((await api("GET", base, readerAuth)).status, 200);

  const rotated = await api("POST", `${base}/rotate`, writerAuth, {});
  t.equal(rotated.status, 201);
  t.equal(rotated.body.data.description, "writer", "description kept");
  t.match(rotated.body.data, { read_enabled: true, write_enabled: true, delete_enabled: false });
  t.not(rotated.body.data.token, writer.body.data.token);
  const old = await api("GET", base, writerAuth);
  t.equal(old.status, 401, "the rotated token stops working at once");
  t.ok(old.headers.get("www-authenticate"));
  t.equal((await api("GET", base, basic(rotated.body.data.token))).status, 200);

  const renamed = await api("POST", `${base}/rotate`, basic(rotated.body.data.token), { description: "renamed" });
  t.equal(renamed.body.data.description, "renamed");
});

t.test("OAuth access tokens: scopes enforced per family; deleting the application stops them", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Bearer Org");
  const admin = basic(authorization_token.token);
  const app = (await api("POST", `/organizations/${organization.id}/oauth_applications`, admin, { name: "bearer" }))
    .body.data;

  const issued = await token(app.uid, app.secret, "authorization_tokens");
  t.equal(issued.status, 200);
  t.equal(issued.headers.get("cache-control"), "no-store");
  t.match(issued.body, { token_type: "Bearer", expires_in: 7200, scope: "authorization_tokens", created_at: Number });
  const bearer = `Bearer ${issued.body.access_token}`;

  t.equal((await api("GET", `/organizations/${organization.id}/authorization_tokens`, bearer)).status, 200);
  t.equal(
    (await api("GET", `/organizations/${organization.id}/oauth_applications`, bearer)).status,
    403,
    "no oauth_applications scope",
  );
  const minted = await api("POST", `/organizations/${organization.id}/authorization_tokens`, bearer, {
    delete_enabled: true,
  });
  t.equal(minted.status, 201, "an OAuth token with the scope may create any token");
  t.equal(
    (await api("POST", `/organizations/${organization.id}/authorization_tokens/rotate`, bearer, {})).status,
    403,
    "rotation needs Basic",
  );

  // A use is written after its request is answered, off the request's path: read once it landed
  // (or, past the wait, as it is, for the assertions to report).
  const read = () => api("GET", `/organizations/${organization.id}/oauth_applications/${app.id}`, admin);
  const listed = await eventually(async () => {
    const res = await read();
    return res.body.data.last_successfully_used_at ? res : undefined;
  }).catch(read);
  t.type(listed.body.data.last_used_at, "string", "use of the application is recorded");
  t.type(listed.body.data.last_successfully_used_at, "string");

  t.equal((await api("DELETE", `/organizations/${organization.id}/oauth_applications/${app.id}`, admin)).status, 204);
  t.equal(
    (await api("GET", `/organizations/${organization.id}/authorization_tokens`, bearer)).status,
    401,
    "its token stops at once",
  );
  t.equal((await token(app.uid, app.secret, "events")).status, 401, "and it cannot get new ones");
});

t.test("tenant isolation: another organization's credential gets 403, its resources 404", async (t) => {
  const a = await laurel.createOrganization("Tenant A");
  const b = await laurel.createOrganization("Tenant B");
  const authA = basic(a.authorization_token.token);
  const authB = basic(b.authorization_token.token);
  const appB = (await api("POST", `/organizations/${b.organization.id}/oauth_applications`, authB, { name: "b's" }))
    .body.data;
  for (const [method, path] of [
    ["GET", `/organizations/${b.organization.id}/oauth_applications`],
    ["GET", `/organizations/${b.organization.id}/oauth_applications/${appB.id}`],
    ["PUT", `/organizations/${b.organization.id}/oauth_applications/${appB.id}`],
    ["DELETE", `/organizations/${b.organization.id}/oauth_applications/${appB.id}`],
    ["GET", `/organizations/${b.organization.id}/authorization_tokens`],
    ["POST", `/organizations/${b.organization.id}/authorization_tokens`],
    ["POST", `/organizations/${b.organization.id}/authorization_tokens/rotate`],
  ] as const) {
    const res = await api(method, path, authA, method === "GET" || method === "DELETE" ? undefined : {});
    t.equal(res.status, 403, `${method} ${path}`);
  }
  const viaOwnPath = await api("GET", `/organizations/${a.organization.id}/oauth_applications/${appB.id}`, authA);
  t.equal(viaOwnPath.status, 404, "another organization's application id is unknown in one's own");
  const bApps = await api("GET", `/organizations/${b.organization.id}/oauth_applications/${appB.id}`, authB);
  t.equal(bApps.body.data.name, "b's", "B's application is untouched");

  const appA = (await api("POST", `/organizations/${a.organization.id}/oauth_applications`, authA, { name: "a's" }))
    .body.data;
  const bearerA = `Bearer ${(await token(appA.uid, appA.secret, "oauth_applications")).body.access_token}`;
  t.equal((await api("GET", `/organizations/${b.organization.id}/oauth_applications`, bearerA)).status, 403);
});

t.test("flags by method: read, write and delete", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Flags Org");
  const admin = basic(authorization_token.token);
  const base = `/organizations/${organization.id}/oauth_applications`;
  const app = (await api("POST", base, admin, { name: "x" })).body.data;
  const cases = [
    {
      flags: { read_enabled: false, write_enabled: false, delete_enabled: false },
      get: 403,
      post: 403,
      put: 403,
      del: 403,
    },
    {
      flags: { read_enabled: true, write_enabled: false, delete_enabled: false },
      get: 200,
      post: 403,
      put: 403,
      del: 403,
    },
    {
      flags: { read_enabled: false, write_enabled: true, delete_enabled: false },
      get: 403,
      post: 201,
      put: 200,
      del: 403,
    },
    {
      flags: { read_enabled: false, write_enabled: false, delete_enabled: true },
      get: 403,
      post: 403,
      put: 403,
      del: 404,
    },
  ];
  for (const c of cases) {
    const tok = basic(
      (await api("POST", `/organizations/${organization.id}/authorization_tokens`, admin, c.flags)).body.data.token,
    );
    const label = JSON.stringify(c.flags);
    t.equal((await api("GET", `${base}/${app.id}`, tok)).status, c.get, `GET ${label}`);
    t.equal((await api("POST", base, tok, { name: "y" })).status, c.post, `POST ${label}`);
    t.equal((await api("PUT", `${base}/${app.id}`, tok, { name: "z" })).status, c.put, `PUT ${label}`);
    t.equal((await api("DELETE", `${base}/999999`, tok)).status, c.del, `DELETE ${label}`);
  }
});
