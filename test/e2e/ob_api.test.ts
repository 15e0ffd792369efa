import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt } from "jose";
import * as oauth from "oauth4webapi";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { seriousViolations } from "../support/browser.ts";
import { startEarnerWebhookStack } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { checkOpenBadgeCredentialJwt, ob3SchemaErrors } from "../support/ob3.ts";
import { obApiSchemaErrors, specOperations } from "../support/ob3_api.ts";
import { runTs } from "../support/processes.ts";
import { trpcQuery } from "../support/webhooks.ts";

/**
 * The Open Badges 3.0 API end to end, with oauth4webapi as the platform: given only Laurel's base
 * address it reads the service description document, registers itself (RFC 7591), sends the earner
 * to the consent page in Chromium (PKCE S256), exchanges the code, pages through 120 credentials,
 * delivers another issuer's signed credential, reads and changes the profile, refreshes and
 * revokes. Every body is checked against 1EdTech's own OpenAPI document and schemas; then the
 * refusals: another earner's data, organization endpoints, CSRF, escaping, registration bounds.
 */

// biome-ignore lint/suspicious/noExplicitAny: API bodies of many shapes
type Json = any;

const stack = await startEarnerWebhookStack();
t.teardown(stack.close);
const { laurel, smtp, browser, ca } = stack;
const otherIssuer = await startObIssuer(ca);
t.teardown(otherIssuer.close);

let callbackServer: Server;
let REDIRECT = "";
let CLIENT_ORIGIN = "";
t.before(async () => {
  callbackServer = createServer((_req, res) => res.end("platform callback"));
  await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
  CLIENT_ORIGIN = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`;
  REDIRECT = `${CLIENT_ORIGIN}/callback`;
});
t.teardown(() => void callbackServer?.close());

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const SCOPE = "https://purl.imsglobal.org/spec/ob/v3p0/scope/";
const ALL_SCOPES = ["credential.readonly", "credential.upsert", "profile.readonly", "profile.update"].map(
  (s) => `${SCOPE}${s}`,
);

const registration = (fields: Record<string, unknown> = {}) => ({
  client_name: "Backpack Platform",
  client_uri: `${CLIENT_ORIGIN}/`,
  logo_uri: `${CLIENT_ORIGIN}/logo.png`,
  tos_uri: `${CLIENT_ORIGIN}/terms`,
  policy_uri: `${CLIENT_ORIGIN}/privacy`,
  software_id: "c88b6ed8-269e-448e-99be-7e2ff47167d1",
  software_version: "v4.0.30319",
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: "client_secret_basic",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  scope: `${ALL_SCOPES.join(" ")} offline_access`,
  ...fields,
});

const register = async (url: string, body: unknown): Promise<{ status: number; body: Json }> => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

/** An authorization request of the platform, as its URL and the PKCE verifier and state it keeps. */
const authorizeUrl = async (as: oauth.AuthorizationServer, clientId: string, scope = ALL_SCOPES.join(" ")) => {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  for (const [k, v] of Object.entries({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  })) {
    url.searchParams.set(k, v);
  }
  return { url, verifier, state };
};

const bearer = (path: string, token: string, init: RequestInit = {}) =>
  fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });

/** The first credential getCredentials gives. */
const firstCredential = async (url: string, token: string): Promise<string> => {
  const body: Json = await (await bearer(`${url}?limit=1`, token)).json();
  return body.compactJwsString[0];
};

/** The Link header's relations, each the offset it points at. */
const linkOffsets = (header: string | null): Record<string, number> =>
  Object.fromEntries(
    (header ?? "").split(", ").map((part) => {
      const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
      if (!m) throw new Error(`malformed Link part: ${part}`);
      return [m[2], Number(new URL(m[1] as string).searchParams.get("offset"))];
    }),
  );

t.test("discovery, registration, consent in Chromium, credentials, upsert, profile, refresh, revoke", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, "Acme Academy");
  const template = await createTemplate(laurel, org, { name: "Open Rust", allow_duplicate_badges: true });
  const email = "grace@example.org";
  const issued: string[] = [];
  for (let i = 0; i < 120; i++) {
    const at = new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString();
    const res = await api(
      "POST",
      org.badges,
      org.auth,
      issueBody(template.id, { recipient_email: email, issued_to_first_name: "Grace", issued_at: at }),
    );
    t.equal(res.status, 201);
    issued.push(res.body.data.id);
  }
  // A pending badge and one the earner keeps private are not served unless she allows the latter.
  const pending = await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: email }));
  const hidden = await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: email }));

  // The platform knows only the base address.
  const sddRes = await fetch(`${laurel.baseUrl}/ims/ob/v3p0/discovery`, { headers: { accept: "application/json" } });
  t.equal(sddRes.status, 200);
  t.match(sddRes.headers.get("content-type"), /^application\/json/);
  const sdd: Json = await sddRes.json();
  t.same(obApiSchemaErrors("discovery", sdd), [], "the SDD passes 1EdTech's ServiceDescriptionDocument schema");
  const scheme = sdd.components.securitySchemes.OAuth2ACG;
  t.equal(scheme.type, "oauth2");
  t.same(Object.keys(scheme.flows.authorizationCode.scopes), ALL_SCOPES, "the four OB scopes");
  t.ok(sdd.info.title && sdd.info.termsOfService && sdd.info["x-imssf-privacyPolicyUrl"]);
  for (const [operationId, op] of Object.entries(specOperations())) {
    t.same(sdd.paths[op.path]?.[op.method]?.operationId, operationId, `${operationId} is described`);
    t.same(sdd.paths[op.path]?.[op.method]?.security?.[0]?.OAuth2ACG ?? [], op.scopes, `${operationId}'s scope`);
  }

  const registered = await register(scheme["x-imssf-registrationUrl"], registration());
  t.equal(registered.status, 201, JSON.stringify(registered.body));
  t.match(registered.body, {
    client_name: "Backpack Platform",
    token_endpoint_auth_method: "client_secret_basic",
    client_secret_expires_at: 0,
    scope: ALL_SCOPES.join(" "),
    redirect_uris: [REDIRECT],
  });
  const client: oauth.Client = { client_id: registered.body.client_id };
  const clientAuth = oauth.ClientSecretBasic(registered.body.client_secret);
  const metadata: Json = await (await fetch(`${laurel.authUrl}/.well-known/oauth-authorization-server`)).json();
  const as: oauth.AuthorizationServer = {
    issuer: metadata.issuer,
    authorization_endpoint: scheme.flows.authorizationCode.authorizationUrl,
    token_endpoint: scheme.flows.authorizationCode.tokenUrl,
    revocation_endpoint: metadata.revocation_endpoint,
  };

  // The earner signs in, accepts the badges (one kept private, one left pending), and is asked.
  const context = await browser.newContext();
  const page = await stack.signIn(context, email);
  await laurel.db.run("update badges set state = 'accepted', public = true where recipient_email = ? and id <> ?", [
    email,
    pending.body.data.id,
  ]);
  await laurel.db.run("update badges set public = false where id = ?", [hidden.body.data.id]);
  const first = await authorizeUrl(as, client.client_id);
  const consentResponse = page.waitForResponse((r) => r.url().includes("/oauth/authorize") && r.status() === 200);
  await page.goto(first.url.toString());
  const consent = await consentResponse;
  t.match(consent.headers()["content-security-policy"], /frame-ancestors 'none'/);
  t.match(await page.textContent("h1"), /Connect Backpack Platform/);
  const main = (await page.textContent("main")) ?? "";
  t.match(main, /Read the badges you accepted/, "credential.readonly in plain words");
  t.match(main, /Add badges from other issuers/, "credential.upsert in plain words");
  t.match(main, /Read your name/, "profile.readonly in plain words");
  t.match(main, /Change the name/, "profile.update in plain words");
  t.equal(await page.getAttribute("img.platform-logo", "src"), `${CLIENT_ORIGIN}/logo.png`, "the platform's logo");
  t.same(await seriousViolations(page), [], "no serious accessibility violation on the consent page");
  await Promise.all([page.waitForURL(`${REDIRECT}**`), page.click("button:has-text('Allow')")]);
  const callback = new URL(page.url());
  t.equal(callback.searchParams.get("scope"), ALL_SCOPES.join(" "), "the granted scope is in the redirect");

  const params = oauth.validateAuthResponse(as, client, callback, first.state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, first.verifier, insecure),
  );
  t.equal(tokens.scope, ALL_SCOPES.join(" "));
  t.ok(tokens.refresh_token);
  const access = tokens.access_token;

  // getCredentials over 120 accepted public badges: pages of 50, headers included.
  const credentialsUrl = `${laurel.baseUrl}/ims/ob/v3p0/credentials`;
  const seen: string[] = [];
  let offset = 0;
  for (;;) {
    const res = await bearer(`${credentialsUrl}?limit=50&offset=${offset}`, access);
    t.equal(res.status, 200);
    t.equal(res.headers.get("x-total-count"), "120", "the total: accepted public ones only");
    const body: Json = await res.json();
    t.same(obApiSchemaErrors("credentials", body), [], "GetOpenBadgeCredentialsResponse schema");
    const links = linkOffsets(res.headers.get("link"));
    t.equal(links.first, 0);
    t.equal(links.last, 100);
    if (offset > 0) t.equal(links.prev, offset - 50);
    else t.notOk("prev" in links);
    if (offset + 50 < 120) t.equal(links.next, offset + 50);
    else t.notOk("next" in links);
    for (const jws of body.compactJwsString) {
      const payload = decodeJwt(jws) as Json;
      seen.push(payload.id);
      if (seen.length === 1) t.same(checkOpenBadgeCredentialJwt(jws, payload), [], "a verifier's checks pass");
    }
    if (!links.next) break;
    offset = links.next;
  }
  t.equal(seen.length, 120);
  t.equal(new Set(seen).size, 120, "no credential twice across pages");
  t.notOk(
    seen.some((id) => id.includes(hidden.body.data.id) || id.includes(pending.body.data.id)),
    "neither the private nor the pending badge",
  );
  const sinceRes = await bearer(`${credentialsUrl}?since=2025-01-01T01:49:00Z`, access);
  t.equal(sinceRes.headers.get("x-total-count"), "10", "since: issued after it");
  const bad = await bearer(`${credentialsUrl}?limit=0`, access);
  t.equal(bad.status, 400);
  const badBody: Json = await bad.json();
  t.same(obApiSchemaErrors("error", badBody), [], "Imsx_StatusInfo");

  // An accepted endorsement of the template is embedded in the credentials the platform pulls.
  const endorser = await organization(laurel, "Rust Foundation");
  const given = await api("POST", `/organizations/${endorser.id}/endorsements`, endorser.auth, {
    target_kind: "badge_template",
    target_id: template.id,
    comment: "Teaches Rust as we would",
  });
  const accepted = await api("PUT", `/organizations/${org.id}/endorsements/${given.body.data.id}/accept`, org.auth);
  t.equal(accepted.status, 200);
  const endorsedPage: Json = await (await bearer(`${credentialsUrl}?limit=2`, access)).json();
  t.same(obApiSchemaErrors("credentials", endorsedPage), [], "still a GetOpenBadgeCredentialsResponse");
  for (const jws of endorsedPage.compactJwsString) {
    const payload = decodeJwt(jws) as Json;
    t.same(checkOpenBadgeCredentialJwt(jws, payload), [], "still passes a verifier's checks");
    const [embedded] = payload.credentialSubject.achievement.endorsementJwt ?? [];
    t.ok(embedded, "the endorsement is embedded");
    if (embedded)
      t.equal((decodeJwt(embedded) as Json).credentialSubject.endorsementComment, "Teaches Rust as we would");
  }
  t.equal(badBody.imsx_codeMinor.imsx_codeMinorField[0].imsx_codeMinorFieldValue, "invalid_query_parameter");

  // upsertCredential: another issuer's credential to Grace, verified and kept in her wallet.
  const delivered = await otherIssuer.credential(email);
  const upsert = () =>
    bearer(credentialsUrl, access, { method: "POST", headers: { "content-type": "text/plain" }, body: delivered });
  const created = await upsert();
  t.equal(created.status, 201, "a new credential");
  t.equal(await created.text(), delivered);
  const row = await laurel.db.one<{ verification_status: string }>(
    "select verification_status from external_badges where credential = ?",
    [delivered],
  );
  t.equal(row?.verification_status, "validated", "verified like a pasted one");
  const wallet = await page.goto(`${laurel.origin}/wallet`);
  t.equal(wallet?.status(), 200);
  t.match(await page.textContent("main"), /Confined Space Entry/, "it appears in the wallet");
  t.equal((await upsert()).status, 200, "the same credential again is an update");
  const asJson = await bearer(credentialsUrl, access, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(decodeJwt(delivered)),
  });
  t.equal(asJson.status, 400);
  t.same(obApiSchemaErrors("error", await asJson.json()), []);
  const garbage = await bearer(credentialsUrl, access, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: "not a credential",
  });
  t.equal(garbage.status, 400, "text that is no compact JWS");
  t.same(obApiSchemaErrors("error", await garbage.json()), []);

  // getProfile and putProfile.
  const profileUrl = `${laurel.baseUrl}/ims/ob/v3p0/profile`;
  const profile: Json = await (await bearer(profileUrl, access)).json();
  t.same(obApiSchemaErrors("profile", profile), [], "1EdTech's Profile schema");
  t.same(ob3SchemaErrors("profile", profile), []);
  t.equal(profile.id, decodeJwt(await firstCredential(credentialsUrl, access)).sub, "the subject of her credentials");
  const put = await bearer(profileUrl, access, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...profile, givenName: "Grace B.", familyName: "Hopper" }),
  });
  t.equal(put.status, 200);
  const changed: Json = await put.json();
  t.same(obApiSchemaErrors("profile", changed), []);
  t.equal(changed.name, "Grace B. Hopper");
  const noName = await bearer(profileUrl, access, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: ["Profile"], phone: "111" }),
  });
  t.equal(noName.status, 400, "a Profile without a name");
  t.same(obApiSchemaErrors("error", await noName.json()), []);
  // A standing grant covering what is asked skips the consent page; this token holds one scope.
  const narrow = await authorizeUrl(as, client.client_id, `${SCOPE}profile.readonly`);
  await page.goto(narrow.url.toString());
  await page.waitForURL(`${REDIRECT}**`);
  const narrowTokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      oauth.validateAuthResponse(as, client, new URL(page.url()), narrow.state),
      REDIRECT,
      narrow.verifier,
      insecure,
    ),
  );
  t.equal(narrowTokens.scope, `${SCOPE}profile.readonly`);
  const readOnly = await bearer(`${laurel.baseUrl}/ims/ob/v3p0/credentials`, narrowTokens.access_token);
  t.equal(readOnly.status, 403, "a token without credential.readonly");
  t.same(obApiSchemaErrors("error", await readOnly.json()), []);

  // Refresh rotates: the new refresh token works, the old one ends the grant.
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token as string, insecure),
  );
  t.not(refreshed.refresh_token, tokens.refresh_token, "a new refresh token");
  t.equal((await bearer(profileUrl, refreshed.access_token)).status, 200);

  // The connected platform on the account page.
  await page.goto(`${laurel.origin}/account/connections`);
  t.match(await page.textContent("main"), /Backpack Platform/);
  t.match(await page.textContent("main"), /Open Badges API/);

  // Revocation (RFC 7009) ends the family at once.
  const revoked = await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token as string, insecure);
  await oauth.processRevocationResponse(revoked);
  const after = await bearer(profileUrl, refreshed.access_token);
  t.equal(after.status, 401, "the access token of the revoked family stops at once");
  t.same(obApiSchemaErrors("error", await after.json()), []);
  t.equal((await bearer(profileUrl, access)).status, 401, "so does the older access token of that family");
  await context.close();
});

/** A token of the second test's platform, which the third test's operator removes. */
const kept = { token: "", clientId: "" };

t.test("refusals: another earner, organization endpoints, CSRF, escaping, registration bounds", async (t) => {
  const sdd: Json = await (await fetch(`${laurel.baseUrl}/ims/ob/v3p0/discovery`)).json();
  const registrationUrl = sdd.components.securitySchemes.OAuth2ACG["x-imssf-registrationUrl"];
  const name = `<script>alert("x")</script> & Co`;
  const registered = await register(registrationUrl, registration({ client_name: name }));
  t.equal(registered.status, 201);
  const clientId = registered.body.client_id as string;
  const secret = registered.body.client_secret as string;
  const as: oauth.AuthorizationServer = {
    issuer: laurel.authUrl,
    authorization_endpoint: `${laurel.authUrl}/oauth/authorize`,
    token_endpoint: `${laurel.authUrl}/oauth/token`,
  };

  const api = apiClient(laurel);
  const org = await organization(laurel, "Beta Guild");
  const template = await createTemplate(laurel, org, { name: "Knots" });
  for (const email of ["ann@example.org", "bob@example.org"]) {
    await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: email }));
  }
  await laurel.db.run("update badges set state = 'accepted', public = true where organization_id = ?", [org.id]);

  const connect = async (email: string) => {
    const earner = httpEarner(laurel.origin, smtp);
    await earner.signIn(email);
    const request = await authorizeUrl(as, clientId);
    const consent = await earner.get(`${request.url.pathname}${request.url.search}`);
    t.equal(consent.status, 200);
    t.notMatch(consent.text, /<script>alert/, "the name is escaped");
    t.match(consent.text, /&lt;script>alert\(&quot;x&quot;\)&lt;\/script> &amp; Co/, "as text");
    // A form without the CSRF token is refused and grants nothing.
    const forged = await fetch(`${laurel.origin}${request.url.pathname}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: laurel.origin,
        cookie: [...earner.cookies()].map(([k, v]) => `${k}=${v}`).join("; "),
      },
      body: new URLSearchParams({ ...Object.fromEntries(request.url.searchParams), decision: "allow" }).toString(),
    });
    t.equal(forged.status, 403, "no CSRF token: refused");
    const redirect = await earner.allow(request.url);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      { client_id: clientId },
      await oauth.authorizationCodeGrantRequest(
        as,
        { client_id: clientId },
        oauth.ClientSecretBasic(secret),
        oauth.validateAuthResponse(as, { client_id: clientId }, redirect, request.url.searchParams.get("state") ?? ""),
        REDIRECT,
        request.verifier,
        insecure,
      ),
    );
    return { token: tokens.access_token, earner };
  };
  const ann = (await connect("ann@example.org")).token;
  kept.token = ann;
  kept.clientId = clientId;
  const bobConnected = await connect("bob@example.org");
  const bob = bobConnected.token;
  const credentialsOf = async (token: string) => {
    const body: Json = await (await bearer(`${laurel.baseUrl}/ims/ob/v3p0/credentials`, token)).json();
    return (body.compactJwsString as string[]).map((j) => decodeJwt(j).sub);
  };
  const annSubjects = await credentialsOf(ann);
  const bobSubjects = await credentialsOf(bob);
  t.equal(annSubjects.length, 1);
  t.equal(bobSubjects.length, 1);
  t.not(annSubjects[0], bobSubjects[0], "each token reads its own earner's credentials only");

  // Bob ends the platform's access on his connections page: his token stops at once, Ann's stands.
  const page = await bobConnected.earner.get("/account/connections");
  const grantId = /action="\/account\/connections\/([0-9a-f-]{36})\/remove"/.exec(page.text)?.[1] ?? "";
  t.match(page.text, /A platform connected through the Open Badges API/);
  await bobConnected.earner.post(`/account/connections/${grantId}/remove`);
  t.equal((await bearer(`${laurel.baseUrl}/ims/ob/v3p0/credentials`, bob)).status, 401, "Bob's token ends");
  t.equal((await bearer(`${laurel.baseUrl}/ims/ob/v3p0/credentials`, ann)).status, 200, "Ann's stands");

  // A platform is no organization's application: its token opens no organization route and no
  // user API route, and its credentials get no client_credentials token.
  for (const path of [`/organizations/${org.id}/badges`, `/organizations/${org.id}`, "/me"]) {
    const res = await bearer(`${laurel.baseUrl}${path}`, ann);
    t.equal(res.status, 401, `${path}: refused`);
  }
  const cc = await fetch(`${laurel.authUrl}/oauth/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
    },
    body: "grant_type=client_credentials&scope=issued_badges",
  });
  t.equal(cc.status, 401, "no organization scope through client_credentials");
  // An organization application's token cannot read the Open Badges API.
  t.equal((await bearer(`${laurel.baseUrl}/ims/ob/v3p0/profile`, "not-a-token")).status, 401);

  // Registration is bounded: size, redirect URIs, addresses, scopes, then the rate per address.
  const refusals: [string, unknown, number, string][] = [
    ["too large", "x".repeat(40_000), 413, "invalid_client_metadata"],
    ["not JSON object", [], 400, "invalid_client_metadata"],
    ["no name", registration({ client_name: "" }), 400, "invalid_client_metadata"],
    ["name too long", registration({ client_name: "n".repeat(201) }), 400, "invalid_client_metadata"],
    [
      "eleven redirect URIs",
      registration({ redirect_uris: Array.from({ length: 11 }, (_, i) => `${CLIENT_ORIGIN}/cb${i}`) }),
      400,
      "invalid_redirect_uri",
    ],
    ["plain http", registration({ redirect_uris: ["http://platform.example/cb"] }), 400, "invalid_redirect_uri"],
    ["another host", registration({ logo_uri: "https://elsewhere.example/logo.png" }), 400, "invalid_client_metadata"],
    ["unknown scope", registration({ scope: "badges" }), 400, "invalid_client_metadata"],
    ["other auth method", registration({ token_endpoint_auth_method: "none" }), 400, "invalid_client_metadata"],
  ];
  for (const [what, body, status, error] of refusals) {
    const res = await register(registrationUrl, body);
    t.equal(res.status, status, what);
    t.equal(res.body.error, error, what);
  }
  // Ten an hour from one address: this file has made two.
  const statuses: number[] = [];
  for (let i = 0; i < 9; i++) statuses.push((await register(registrationUrl, registration())).status);
  t.same(statuses, [201, 201, 201, 201, 201, 201, 201, 201, 429], "the eleventh from one address is refused");
});

t.test("the operator lists and removes platforms (tRPC and CLI); removal ends their access at once", async (t) => {
  const listed = (await trpcQuery(laurel.adminOrigin, laurel.server.adminToken, "platforms.list", undefined)) as Json[];
  t.ok(listed.length >= 2, "the platforms registered so far");
  t.ok(
    listed.every((p) => !("secret_digest" in p) && !("client_secret" in p)),
    "no secret, not even its digest",
  );
  const target = listed.find((p) => p.client_name === "Backpack Platform") as Json;
  t.match(target, { redirect_uris: [REDIRECT], scope: ALL_SCOPES.join(" ") });

  const env = { LAUREL_URL: laurel.adminOrigin, LAUREL_ADMIN_TOKEN: laurel.server.adminToken };
  const cli = (...args: string[]) => runTs("apps/cli.ts", args, env);
  const list = await cli("platforms", "list", "--json");
  t.equal(list.code, 0, list.stderr);
  t.same((JSON.parse(list.stdout) as Json[]).map((p) => p.client_id).sort(), listed.map((p) => p.client_id).sort());

  // A connected earner's token, then the removal: the token stops, the grant leaves her page.
  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn("grace@example.org");
  const pages = await earner.get("/account/connections");
  t.match(pages.text, /Backpack Platform/);
  const removed = await cli("platforms", "remove", "--client", target.client_id);
  t.equal(removed.code, 0, removed.stderr);
  t.match(removed.stdout, /Removed/);
  t.notMatch((await earner.get("/account/connections")).text, /Backpack Platform/, "the grant is gone");
  const again = await trpc(laurel, "platforms.remove", { client_id: target.client_id }).catch((e: Error) => e);
  t.ok(again instanceof Error, "removing it twice is a not-found");
  const after = (await trpcQuery(laurel.adminOrigin, laurel.server.adminToken, "platforms.list", undefined)) as Json[];
  t.notOk(after.some((p) => p.client_id === target.client_id));

  const profileUrl = `${laurel.baseUrl}/ims/ob/v3p0/profile`;
  t.equal((await bearer(profileUrl, kept.token)).status, 200, "a connected platform's token");
  await trpc(laurel, "platforms.remove", { client_id: kept.clientId });
  t.equal((await bearer(profileUrl, kept.token)).status, 401, "stops with its platform's removal");
});
