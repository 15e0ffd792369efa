import { randomUUID } from "node:crypto";
import { accessTokenKeys, loadServerKeys } from "../../adapters/crypto/mod.ts";
import type { TestLaurel } from "./laurel.ts";
import type { BadgeScenario, ScenarioCall as Call } from "./openapi_badge_scenarios.ts";

/**
 * Real answers of the user API for the OpenAPI test: an earner, a grant and a token family written
 * straight to the database, and an access token signed with the server's own key (the browser
 * flow that makes them is tested in connect_flow.test.ts).
 */
export const connectScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { laurel, call } = ctx;
  const created = await call("POST", `${laurel.baseUrl}/organizations/${ctx.organizationId}/oauth_applications`, {
    auth: ctx.admin,
    body: JSON.stringify({ name: "user API", redirect_uris: ["https://client.example/cb"] }),
  });
  const app = JSON.parse(created.text).data as { id: number; uid: string; secret: string };
  const userId = randomUUID();
  const grantId = randomUUID();
  const sessionId = randomUUID();
  const sql = laurel.db;
  const now = new Date();
  await sql.all("insert into users (id, first_name, last_name, created_at, updated_at) values (?, ?, ?, ?, ?)", [
    userId,
    "Ada",
    "Lovelace",
    now,
    now,
  ]);
  await sql.all(
    `insert into connect_grants (id, user_id, application_id, organization_id, scopes, created_at, updated_at)
     values (?, ?, ?, ?, 'profile public_badges', ?, ?)`,
    [grantId, userId, app.id, ctx.organizationId, now, now],
  );
  await sql.all(
    "insert into connect_sessions (id, grant_id, scopes, created_at) values (?, ?, 'profile public_badges', ?)",
    [sessionId, grantId, now],
  );
  const keys = await accessTokenKeys(loadServerKeys({}, laurel.dataDir), laurel.authUrl);
  const iat = Math.floor(now.getTime() / 1000);
  const token = await keys.signer.sign({
    iss: laurel.authUrl,
    sub: userId,
    client_id: app.uid,
    scope: "profile public_badges",
    jti: randomUUID(),
    iat,
    exp: iat + 7200,
    sid: sessionId,
  });
  const auth = `Bearer ${token}`;
  return {
    "GET /v1/me": [
      { name: "the earner", status: 200, run: () => call("GET", `${laurel.baseUrl}/me`, { auth }) },
      { name: "no token", status: 401, run: () => call("GET", `${laurel.baseUrl}/me`, { auth: null }) },
    ],
    "POST /oauth/revoke": [
      {
        name: "a token of the client's family, or an unknown one, revoked (RFC 7009)",
        status: 200,
        run: () =>
          call("POST", `${laurel.authUrl}/oauth/revoke`, {
            auth: `Basic ${Buffer.from(`${app.uid}:${app.secret}`).toString("base64")}`,
            body: new URLSearchParams({ token: "unknown-refresh-token" }).toString(),
            type: "application/x-www-form-urlencoded",
          }),
      },
      {
        name: "a wrong client secret",
        status: 401,
        run: () =>
          call("POST", `${laurel.authUrl}/oauth/revoke`, {
            auth: `Basic ${Buffer.from(`${app.uid}:wrong`).toString("base64")}`,
            body: "token=x",
            type: "application/x-www-form-urlencoded",
          }),
      },
    ],
    "GET /v1/me/badges": [
      { name: "public badges", status: 200, run: () => call("GET", `${laurel.baseUrl}/me/badges`, { auth }) },
      { name: "no token", status: 401, run: () => call("GET", `${laurel.baseUrl}/me/badges`, { auth: null }) },
    ],
  };
};
