import * as oauth from "oauth4webapi";
import t from "tap";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/** Discovery by RFC 8414 metadata, and redirect URIs registered on OAuth applications. */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

t.test("oauth4webapi discovers the authorization server", async (t) => {
  const issuer = new URL(laurel.authUrl);
  const response = await oauth.discoveryRequest(issuer, {
    algorithm: "oauth2",
    [oauth.allowInsecureRequests]: true,
  });
  const as = await oauth.processDiscoveryResponse(issuer, response);
  t.equal(as.issuer, laurel.authUrl);
  t.equal(as.token_endpoint, `${laurel.authUrl}/oauth/token`);
  t.equal(as.authorization_endpoint, `${laurel.authUrl}/oauth/authorize`);
  t.equal(as.jwks_uri, `${laurel.authUrl}/.well-known/jwks.json`);
  t.same(as.code_challenge_methods_supported, ["S256"]);
  t.same(as.grant_types_supported, ["client_credentials", "authorization_code", "refresh_token"]);
  t.same(as.token_endpoint_auth_methods_supported, ["client_secret_basic", "client_secret_post"]);
  t.ok(as.scopes_supported?.includes("public_badges") && as.scopes_supported.includes("profile"));
  t.ok(as.scopes_supported?.includes("events"));
});

t.test("redirect URIs on create and update", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Redirect Org");
  const url = `${laurel.baseUrl}/organizations/${organization.id}/oauth_applications`;
  const send = (method: string, target: string, body: unknown) =>
    fetch(target, {
      method,
      headers: { authorization: basic(authorization_token.token), "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  const plain = await send("POST", url, { name: "No redirects" });
  t.same(((await plain.json()) as { data: { redirect_uris: string[] } }).data.redirect_uris, []);

  const uris = ["https://app.example/cb", "http://127.0.0.1:8080/cb", "http://localhost/cb", "http://[::1]:9/x?y=1"];
  const created = await send("POST", url, { name: "Connect", redirect_uris: uris });
  t.equal(created.status, 201);
  const app = ((await created.json()) as { data: { id: number; redirect_uris: string[] } }).data;
  t.same(app.redirect_uris, uris);
  const read = await fetch(`${url}/${app.id}`, { headers: { authorization: basic(authorization_token.token) } });
  t.same(((await read.json()) as { data: { redirect_uris: string[] } }).data.redirect_uris, uris);

  const updated = await send("PUT", `${url}/${app.id}`, { redirect_uris: ["https://other.example/back"] });
  t.equal(updated.status, 200);
  t.same(((await updated.json()) as { data: { redirect_uris: string[] } }).data.redirect_uris, [
    "https://other.example/back",
  ]);
  const renamed = await send("PUT", `${url}/${app.id}`, { name: "Renamed" });
  t.same(((await renamed.json()) as { data: { redirect_uris: string[] } }).data.redirect_uris, [
    "https://other.example/back",
  ]);

  for (const bad of [
    "http://app.example/cb",
    "/relative",
    "https://app.example/cb#frag",
    "https://user:pw@app.example/cb",
    "javascript:alert(1)",
    "https://app.example/a b",
  ]) {
    const res = await send("POST", url, { name: "Bad", redirect_uris: ["https://fine.example/", bad] });
    t.equal(res.status, 422, `${bad} refused`);
    const body = (await res.json()) as { data: { code: string; errors: { field: string }[] } };
    t.equal(body.data.errors[0]?.field, "redirect_uris.1", `${bad}: the field named`);
    const put = await send("PUT", `${url}/${app.id}`, { redirect_uris: [bad] });
    t.equal(put.status, 422, `${bad} refused on update`);
  }
});
