import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import type { BrowserContext, Page } from "playwright-core";
import t from "tap";
import { buildApiServer } from "../../apps/api_server.ts";
import { readConfig } from "../../apps/config.ts";
import { apiClient, createTemplate, eventRows, issueBody, organization } from "../support/badges.ts";
import { startBrowserLaurel } from "../support/console.ts";

/**
 * Connect end to end: an organization's application, as an oauth4webapi client, discovers the
 * server, sends the earner to the authorization endpoint with PKCE, the earner signs in by mailed
 * link and allows access in Chromium, and the client exchanges the code, refreshes, and reads /me
 * and /me/badges. Then every refusal, and removing access from the connections page.
 */
const { laurel, smtp, browser, flows } = await startBrowserLaurel(t, {
  env: { MAIL_FROM: "Laurel <badges@laurel.test>" },
});
let callbackServer: Server;
t.before(async () => {
  callbackServer = createServer((_req, res) => res.end("client callback"));
  await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
  REDIRECT = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
});
t.teardown(async () => {
  callbackServer?.close();
});

const { mailedLink } = flows;

/** The client's redirect URI: a loopback server that only says it was reached. */
let REDIRECT = "";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

t.test("discovery, PKCE, consent in Chromium, code, token, refresh, /me, /me/badges, refusals, removal", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, "Acme Connect");
  const template = await createTemplate(laurel, org, { name: "Connected Rust" });
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "grace@example.org", issued_to_first_name: "Grace" }),
  );
  t.equal(issued.status, 201);
  const badgeId = issued.body.data.id as string;
  const created = await api("POST", `/organizations/${org.id}/oauth_applications`, org.auth, {
    name: "Acme Portal",
    redirect_uris: [REDIRECT],
  });
  t.equal(created.status, 201);
  const client: oauth.Client = { client_id: created.body.data.uid };
  const clientAuth = oauth.ClientSecretBasic(created.body.data.secret);

  const issuer = new URL(laurel.authUrl);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );

  const authorizeUrl = async (extra: Record<string, string> = {}) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint as string);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "profile public_badges",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      ...extra,
    })) {
      url.searchParams.set(k, v);
    }
    return { url, verifier, state };
  };

  // The browser: signed out, to sign-in, back to consent, Allow, to the client's redirect URI.
  const context: BrowserContext = await browser.newContext();
  const page: Page = await context.newPage();
  const first = await authorizeUrl();
  await page.goto(first.url.toString());
  t.match(page.url(), /\/sign_in\?next=/, "signed out: sent to sign in");
  await page.fill("#email", "grace@example.org");
  const before = smtp.mails.length;
  await page.click("button[type=submit]:has-text('Send me a sign-in link')");
  await page.waitForSelector("h1:has-text('Check your inbox')");
  const link = await mailedLink("grace@example.org", /https?:\/\/\S+\/sign_in\/link\?token=[A-Za-z0-9_-]+/, before);
  await page.goto(link);
  const consentResponse = page.waitForResponse((r) => r.url().includes("/oauth/authorize") && r.status() === 200);
  await page.click("button:has-text('Continue')");
  const consent = await consentResponse;
  t.match(consent.headers()["content-security-policy"], /frame-ancestors 'none'/, "the consent page is not framable");
  t.match(await page.textContent("h1"), /Connect Acme Portal/);
  t.match(await page.textContent("main"), /Acme Connect/, "the organization is named");
  t.match(await page.textContent("main"), /badges you accepted and made public/);
  await Promise.all([page.waitForURL(`${REDIRECT}**`), page.click("button:has-text('Allow')")]);
  const callback = new URL(page.url());

  const params = oauth.validateAuthResponse(as, client, callback, first.state);
  const codeResponse = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    params,
    REDIRECT,
    first.verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse);
  t.equal(tokens.expires_in, 7200);
  t.equal(tokens.scope, "profile public_badges");
  t.ok(tokens.refresh_token, "a refresh token");

  // Refusals answer 401 with a challenge, which oauth4webapi throws on: plain fetch for those.
  const get = (path: string, token: string) =>
    fetch(`${laurel.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const viaLibrary = await oauth.protectedResourceRequest(
    tokens.access_token,
    "GET",
    new URL(`${laurel.baseUrl}/me`),
    undefined,
    undefined,
    insecure,
  );
  t.equal(viaLibrary.status, 200, "oauth4webapi reads /me");
  const me = await get("/me", tokens.access_token);
  t.equal(me.status, 200);
  const meBody = (await me.json()) as { data: { id: string; first_name: string; public_profile_url: string | null } };
  t.equal(meBody.data.first_name, "Grace");
  t.equal(meBody.data.public_profile_url, null, "no public profile yet");
  const userId = meBody.data.id;
  const empty = (await (await get("/me/badges", tokens.access_token)).json()) as { data: unknown[] };
  t.same(empty.data, [], "a pending badge is not public");

  // The earner accepts the badge: /me/badges now lists it in the standard shape.
  await page.goto(`${laurel.origin}/badges/${badgeId}`);
  await page.click("button:has-text('Accept')");
  await page.waitForSelector("text=Badge accepted");
  const badges = (await (await get("/me/badges", tokens.access_token)).json()) as {
    data: Array<{ id: string; state: string }>;
    metadata: { total_count: number; current_page: number };
  };
  t.equal(badges.data[0]?.id, badgeId);
  t.equal(badges.data[0]?.state, "accepted");
  t.equal(badges.metadata.total_count, 1);
  t.equal(badges.metadata.current_page, 1);
  const added = await eventRows(laurel, org.id, "user.public_badges.added");
  t.equal(added.length, 1, "accepting a public badge tells the connected organization");
  t.equal(added[0]?.detail.user_id, userId);
  t.equal(added[0]?.detail.badge.id, badgeId);

  // Private, then public again: removed, then added.
  await page.click("button:has-text('Make private')");
  await page.waitForSelector("text=This badge is now private");
  const hidden = await eventRows(laurel, org.id, "user.public_badges.removed");
  t.equal(hidden.length, 1, "making it private: removed");
  t.equal(hidden[0]?.detail.badge.id, badgeId);
  t.same(((await (await get("/me/badges", tokens.access_token)).json()) as { data: unknown[] }).data, []);
  await page.click("button:has-text('Make public')");
  await page.waitForSelector("text=public");
  t.equal((await eventRows(laurel, org.id, "user.public_badges.added")).length, 2, "public again: added");

  // Refresh: rotated; the old refresh token used again revokes the grant.
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token as string, insecure),
  );
  t.not(refreshed.refresh_token, tokens.refresh_token, "the refresh token is rotated");
  t.equal((await get("/me", refreshed.access_token)).status, 200, "the refreshed token works");

  // The organization's token does not reach /me; the earner's token does not reach organization routes.
  const orgToken = await oauth.processClientCredentialsResponse(
    as,
    client,
    await oauth.clientCredentialsGrantRequest(
      as,
      client,
      clientAuth,
      new URLSearchParams({ scope: "events" }),
      insecure,
    ),
  );
  t.equal((await get("/me", orgToken.access_token)).status, 401, "organization token refused on /me");
  t.equal(
    (await get(`/organizations/${org.id}/events`, refreshed.access_token)).status,
    401,
    "earner token refused on an organization route",
  );
  t.equal((await get(`/organizations/${org.id}/events`, orgToken.access_token)).status, 200);

  // A second authorization for the same scopes skips the consent page.
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const codeFor = async (extra: Record<string, string> = {}) => {
    const a = await authorizeUrl(extra);
    const res = await fetch(a.url, { headers: { cookie }, redirect: "manual" });
    return { ...a, res, location: res.headers.get("location") ?? "" };
  };
  const exchange = async (code: string, verifier: string, redirectUri = REDIRECT) => {
    const res = await fetch(as.token_endpoint as string, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${client.client_id}:${created.body.data.secret}`).toString("base64")}`,
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const skipped = await codeFor();
  t.equal(skipped.res.status, 303, "no consent page the second time");
  const skippedCode = new URL(skipped.location).searchParams.get("code") as string;
  t.equal(new URL(skipped.location).searchParams.get("state"), skipped.state);

  // Refusals at the authorization endpoint.
  for (const [name, extra, error] of [
    ["missing PKCE", { code_challenge: "", code_challenge_method: "" }, "invalid_request"],
    ["plain PKCE", { code_challenge_method: "plain" }, "invalid_request"],
    ["unknown scope", { scope: "events" }, "invalid_scope"],
    ["response type", { response_type: "token" }, "unsupported_response_type"],
  ] as const) {
    const r = await codeFor(extra);
    t.equal(r.res.status, 303, `${name}: redirected`);
    const back = new URL(r.location);
    t.equal(`${back.origin}${back.pathname}`, REDIRECT);
    t.equal(back.searchParams.get("error"), error, `${name}: ${error}`);
    t.equal(back.searchParams.get("state"), r.state, `${name}: state returned`);
  }
  for (const [name, extra] of [
    ["unregistered redirect URI", { redirect_uri: "https://evil.example/callback" }],
    ["altered redirect URI", { redirect_uri: `${REDIRECT}/more` }],
    ["unknown client", { client_id: "nope" }],
  ] as const) {
    const r = await codeFor(extra);
    t.equal(r.res.status, 400, `${name}: an error page`);
    t.equal(r.location, "", `${name}: never a redirect`);
  }

  // Refusals at the token endpoint.
  const wrongVerifier = await exchange(skippedCode, oauth.generateRandomCodeVerifier());
  t.same([wrongVerifier.status, wrongVerifier.body.error], [400, "invalid_grant"], "wrong verifier");
  const other = await codeFor();
  const otherCode = new URL(other.location).searchParams.get("code") as string;
  const altered = await exchange(otherCode, other.verifier, `${REDIRECT}/x`);
  t.same([altered.status, altered.body.error], [400, "invalid_grant"], "redirect_uri differs at the token endpoint");

  const twice = await codeFor();
  const twiceCode = new URL(twice.location).searchParams.get("code") as string;
  const firstUse = await exchange(twiceCode, twice.verifier);
  t.equal(firstUse.status, 200);
  t.equal((await get("/me", firstUse.body.access_token as string)).status, 200);
  const secondUse = await exchange(twiceCode, twice.verifier);
  t.same([secondUse.status, secondUse.body.error], [400, "invalid_grant"], "a code works once");
  t.equal((await get("/me", firstUse.body.access_token as string)).status, 401, "its first tokens then fail");
  t.equal((await get("/me", refreshed.access_token)).status, 200, "other token families stand");

  const late = await codeFor();
  await laurel.db.all("update connect_codes set expires_at = now() - interval '1 second' where used_at is null");
  const expired = await exchange(new URL(late.location).searchParams.get("code") as string, late.verifier);
  t.same([expired.status, expired.body.error], [400, "invalid_grant"], "an expired code");

  const reused = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token as string, insecure);
  t.equal(reused.status, 400, "a refresh token used twice is refused");
  t.equal((await get("/me", refreshed.access_token)).status, 401, "and the grant is revoked");
  const afterReuse = await oauth.refreshTokenGrantRequest(
    as,
    client,
    clientAuth,
    refreshed.refresh_token as string,
    insecure,
  );
  t.equal(afterReuse.status, 400, "the latest refresh token too");

  // Allow again (the grant was revoked: the consent page comes back), then remove access.
  const again = await authorizeUrl();
  await page.goto(again.url.toString());
  await Promise.all([page.waitForURL(`${REDIRECT}**`), page.click("button:has-text('Allow')")]);
  const againParams = oauth.validateAuthResponse(as, client, new URL(page.url()), again.state);
  const againTokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, againParams, REDIRECT, again.verifier, insecure),
  );
  t.equal((await get("/me", againTokens.access_token)).status, 200);

  // The issuer revokes the badge: the connected organization hears it is gone.
  const revoked = await api("PUT", `${org.badges}/${badgeId}/revoke`, org.auth, { reason: "Issued in error" });
  t.equal(revoked.status, 200);
  const gone = await eventRows(laurel, org.id, "user.public_badges.removed");
  t.equal(gone.length, 2, "revoking a visible badge: removed");
  t.equal(gone[1]?.detail.badge.state, "revoked");
  t.same(((await (await get("/me/badges", againTokens.access_token)).json()) as { data: unknown[] }).data, []);

  // A second API server on the same database and NATS, with its own caches, as behind a load balancer.
  const second = await buildApiServer(
    readConfig({
      BASE_URL: laurel.baseUrl,
      AUTH_URL: laurel.authUrl,
      DATA_DIR: laurel.dataDir,
      ...(laurel.database ? { DATABASE_URL: laurel.database.url } : {}),
      NATS_URL: laurel.nats.url,
    }),
    laurel.db,
    laurel.nc,
    false,
  );
  t.teardown(() => second.close());
  const onSecond = async (token: string) =>
    (await second.app.inject({ method: "GET", url: "/v1/me", headers: { authorization: `Bearer ${token}` } }))
      .statusCode;
  t.equal(await onSecond(againTokens.access_token), 200, "the second server accepts the token");

  await page.goto(`${laurel.origin}/account`);
  await page.click("a:has-text('applications you gave access')");
  t.match(await page.textContent("main"), /Acme Portal/);
  t.match(await page.textContent("main"), /Acme Connect/);
  await page.click("button:has-text('Remove access')");
  await page.waitForSelector("text=Access removed.");
  t.equal((await get("/me", againTokens.access_token)).status, 401, "removed: the token fails at once");
  t.equal(await onSecond(againTokens.access_token), 401, "on the second server too");
  const removed = await eventRows(laurel, org.id, "user.connect_access.removed");
  t.equal(removed.length, 1, "user.connect_access.removed recorded once");
  t.equal(removed[0]?.detail.user_id, userId);
  await context.close();
});
