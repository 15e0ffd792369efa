import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import t from "tap";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/** A real OAuth 2.0 client library (oauth4webapi) obtains a token and uses it. */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

t.test("oauth4webapi client_credentials against the token endpoint", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("OAuth Client Org");
  const created = await fetch(`${laurel.baseUrl}/organizations/${organization.id}/oauth_applications`, {
    method: "POST",
    headers: { authorization: basic(authorization_token.token), "content-type": "application/json" },
    body: JSON.stringify({ name: "oauth4webapi" }),
  });
  const app = ((await created.json()) as { data: { uid: string; secret: string } }).data;

  const as: oauth.AuthorizationServer = { issuer: laurel.authUrl, token_endpoint: `${laurel.authUrl}/oauth/token` };
  const client: oauth.Client = { client_id: app.uid };
  const options = { [oauth.allowInsecureRequests]: true };

  for (const [name, auth] of [
    ["client_secret_basic", oauth.ClientSecretBasic(app.secret)],
    ["client_secret_post", oauth.ClientSecretPost(app.secret)],
  ] as const) {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      auth,
      new URLSearchParams({ scope: "oauth_applications events" }),
      options,
    );
    const result = await oauth.processClientCredentialsResponse(as, client, response);
    t.equal(result.token_type, "bearer", `${name}: token type (normalized by the library)`);
    t.equal(result.expires_in, 7200);
    t.equal(result.scope, "events oauth_applications");
    const claims = decodeJwt(result.access_token);
    t.equal(claims.sub, organization.id);
    t.equal(claims.client_id, app.uid);
    t.equal(decodeProtectedHeader(result.access_token).alg, "EdDSA");

    // The signature verifies against the published JWKS.
    const jwks = createRemoteJWKSet(new URL(`${laurel.authUrl}/.well-known/jwks.json`));
    const verified = await jwtVerify(result.access_token, jwks, { issuer: laurel.authUrl });
    t.equal((verified.payload.exp ?? 0) - (verified.payload.iat ?? 0), 7200);

    const res = await oauth.protectedResourceRequest(
      result.access_token,
      "GET",
      new URL(`${laurel.baseUrl}/organizations/${organization.id}/oauth_applications`),
      undefined,
      undefined,
      options,
    );
    t.equal(res.status, 200, `${name}: the token works on the API`);
  }

  const bad = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic("wrong"),
    new URLSearchParams({ scope: "events" }),
    options,
  );
  t.equal(bad.status, 401);
  t.same(await bad.clone().json(), { error: "invalid_client", error_description: "Client authentication failed" });
  await t.rejects(oauth.processClientCredentialsResponse(as, client, bad), oauth.WWWAuthenticateChallengeError);
});
