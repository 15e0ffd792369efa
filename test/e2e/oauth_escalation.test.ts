import t from "tap";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * An OAuth application never lets its creator do more than the creator itself could: a token
 * without delete (or read) that creates an application must not come back through the token
 * endpoint with `authorization_tokens` and mint a full token or read the full token's value.
 */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

const api = async (method: string, path: string, auth: string, body?: unknown) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

const accessToken = async (clientId: string, secret: string, scope: string) => {
  const res = await fetch(`${laurel.authUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secret, scope }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

const restricted = [
  { name: "read and write, no delete", flags: { read_enabled: true, write_enabled: true, delete_enabled: false } },
  { name: "write only", flags: { read_enabled: false, write_enabled: true, delete_enabled: false } },
  { name: "write and delete, no read", flags: { read_enabled: false, write_enabled: true, delete_enabled: true } },
];

for (const { name, flags } of restricted) {
  t.test(`a ${name} token cannot climb through an OAuth application`, async (t) => {
    const { organization, authorization_token: full } = await laurel.createOrganization(`Escalation ${name}`);
    const tokens = `/organizations/${organization.id}/authorization_tokens`;
    const made = await api("POST", tokens, basic(full.token), { description: name, ...flags });
    t.equal(made.status, 201);
    const weak = basic(made.body.data.token);

    const app = await api("POST", `/organizations/${organization.id}/oauth_applications`, weak, { name: "climber" });
    t.equal(app.status, 201, "the weaker token may still create an application");
    const { uid, secret } = app.body.data;

    const granted = await accessToken(uid, secret, "authorization_tokens");
    t.equal(granted.status, 400, "authorization_tokens is outside the application's ceiling");
    t.equal(granted.body.error, "invalid_scope");

    // Whatever the token endpoint said, nothing reached with this application may mint or reveal.
    const all = await accessToken(uid, secret, "authorization_tokens oauth_applications badge_templates");
    const bearer = all.status === 200 ? `Bearer ${all.body.access_token}` : null;
    if (bearer) {
      const minted = await api("POST", tokens, bearer, {
        read_enabled: true,
        write_enabled: true,
        delete_enabled: true,
      });
      t.equal(minted.status, 403, "no full token minted");
      const listed = await api("GET", tokens, bearer);
      const values = JSON.stringify(listed.body);
      t.notOk(values.includes(full.token), "the full token's value is never listed");
    } else {
      t.equal(all.body.error, "invalid_scope");
    }
  });
}

t.test("an access token does no more than its application's creator could", async (t) => {
  const { organization, authorization_token: full } = await laurel.createOrganization("Ceiling");
  const org = `/organizations/${organization.id}`;
  const made = await api("POST", `${org}/authorization_tokens`, basic(full.token), {
    read_enabled: false,
    write_enabled: true,
    delete_enabled: false,
  });
  const writeOnly = basic(made.body.data.token);
  const app = await api("POST", `${org}/oauth_applications`, writeOnly, { name: "writer" });
  const granted = await accessToken(app.body.data.uid, app.body.data.secret, "badge_templates oauth_applications");
  t.equal(granted.status, 200);
  const bearer = `Bearer ${granted.body.access_token}`;
  t.equal((await api("GET", `${org}/badge_templates`, bearer)).status, 403, "no read in the ceiling");
  t.equal((await api("GET", `${org}/oauth_applications`, bearer)).status, 403);
  const child = await api("POST", `${org}/oauth_applications`, bearer, { name: "child" });
  t.equal(child.status, 201, "write is in the ceiling");
  const childToken = await accessToken(child.body.data.uid, child.body.data.secret, "badge_templates");
  t.equal(childToken.status, 200, "a scope the creating access token held");
  const outside = await accessToken(child.body.data.uid, child.body.data.secret, "events");
  t.equal(outside.status, 400, "a scope the creating access token did not hold");
  t.equal(outside.body.error, "invalid_scope");
  const childBearer = `Bearer ${childToken.body.access_token}`;
  t.equal((await api("GET", `${org}/badge_templates`, childBearer)).status, 403, "the ceiling is inherited");
});

t.test("an application's explicit scopes bound what the token endpoint grants", async (t) => {
  const { organization, authorization_token: full } = await laurel.createOrganization("Explicit");
  const apps = `/organizations/${organization.id}/oauth_applications`;
  const auth = basic(full.token);
  const app = await api("POST", apps, auth, { name: "events only", scopes: ["events"] });
  t.equal(app.status, 201);
  t.equal(app.body.data.scopes, "events");
  const { uid, secret } = app.body.data;
  t.equal((await accessToken(uid, secret, "events")).status, 200);
  t.equal((await accessToken(uid, secret, "events workforce")).body.error, "invalid_scope");

  const widened = await api("PUT", `${apps}/${app.body.data.id}`, auth, { scopes: ["events", "workforce"] });
  t.equal(widened.status, 200);
  t.equal(widened.body.data.scopes, "events workforce");
  t.equal((await api("GET", `${apps}/${app.body.data.id}`, auth)).body.data.scopes, "events workforce");

  const made = await api("POST", `/organizations/${organization.id}/authorization_tokens`, auth, {
    delete_enabled: false,
  });
  const lesser = basic(made.body.data.token);
  const refused = await api("POST", apps, lesser, { name: "x", scopes: ["authorization_tokens"] });
  t.equal(refused.status, 403, "a list beyond the creator's ceiling");
  const defaults = await api("POST", apps, lesser, { name: "defaults" });
  t.notOk(defaults.body.data.scopes.split(" ").includes("authorization_tokens"));
  t.equal((await api("POST", apps, auth, { name: "x", scopes: ["nope"] })).status, 422);
});
