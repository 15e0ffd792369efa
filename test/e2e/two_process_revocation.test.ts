import t from "tap";
import { basic, type OrganizationWithToken, spawnTwoServers, trpcMutation } from "../support/laurel.ts";

/**
 * Two API processes on one PostgreSQL and one NATS: a credential revoked through one stops working
 * on the other as soon as the broadcast arrives, even though the other had it cached.
 *
 * The revoking process flushes the broadcast to NATS before it answers, but the peer reads it from
 * its own socket: on a loaded machine the caller's next request can reach the peer first. The peer's
 * answer is therefore awaited for up to two seconds (the cache alone would keep it for 30).
 */
const PEER_DELAY_MS = 2_000;

/** The status `request` answers once it stops being `was`, or `was` if it still is after the delay. */
const statusAfterBroadcast = async (request: () => Promise<Response>, was: number): Promise<number> => {
  const deadline = Date.now() + PEER_DELAY_MS;
  for (;;) {
    const res = await request();
    await res.arrayBuffer();
    if (res.status !== was || Date.now() > deadline) return res.status;
    await new Promise((r) => setTimeout(r, 20));
  }
};
t.test("rotation and application deletion reach every API process", async (t) => {
  // Both behind one public address, as behind a load balancer: same issuer, same keys (DATA_DIR).
  const { a, b, adminToken, close } = await spawnTwoServers("https://laurel.example");
  t.teardown(close);
  const { organization, authorization_token } = (await trpcMutation(a.adminOrigin, adminToken, "organizations.create", {
    name: "Two Process Org",
    email: "issuer@example.org",
  })) as OrganizationWithToken;
  const tokens = `/v1/organizations/${organization.id}/authorization_tokens`;
  const get = (origin: string, path: string, auth: string) =>
    fetch(`${origin}${path}`, { headers: { authorization: auth } });

  // B caches the token by using it.
  const old = basic(authorization_token.token);
  t.equal((await get(b.origin, tokens, old)).status, 200, "B accepts the token");
  t.equal((await get(b.origin, tokens, old)).status, 200, "and has it cached");

  const rotated = await fetch(`${a.origin}${tokens}/rotate`, { method: "POST", headers: { authorization: old } });
  t.equal(rotated.status, 201, "rotated through A");
  const fresh = basic(((await rotated.json()) as { data: { token: string } }).data.token);
  t.equal(await statusAfterBroadcast(() => get(b.origin, tokens, old), 200), 401, "B refuses the old token");
  t.equal((await get(a.origin, tokens, old)).status, 401, "so does A");
  t.equal((await get(b.origin, tokens, fresh)).status, 200, "B accepts the new token");

  // An OAuth application's access token, cached on B, stops when A deletes the application.
  const appRes = await fetch(`${a.origin}/v1/organizations/${organization.id}/oauth_applications`, {
    method: "POST",
    headers: { authorization: fresh, "content-type": "application/json" },
    body: JSON.stringify({ name: "revoked soon" }),
  });
  const app = ((await appRes.json()) as { data: { id: number; uid: string; secret: string } }).data;
  const tokenRes = await fetch(`${b.origin}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${app.uid}:${app.secret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials&scope=authorization_tokens",
  });
  t.equal(tokenRes.status, 200, "token issued by B");
  const bearer = `Bearer ${((await tokenRes.json()) as { access_token: string }).access_token}`;
  t.equal((await get(a.origin, tokens, bearer)).status, 200, "A accepts B's access token (shared keys)");
  t.equal((await get(b.origin, tokens, bearer)).status, 200, "B accepts and caches it");
  const deleted = await fetch(`${a.origin}/v1/organizations/${organization.id}/oauth_applications/${app.id}`, {
    method: "DELETE",
    headers: { authorization: fresh },
  });
  t.equal(deleted.status, 204, "application deleted through A");
  t.equal(await statusAfterBroadcast(() => get(b.origin, tokens, bearer), 200), 401, "B refuses the access token");
  t.equal((await get(a.origin, tokens, bearer)).status, 401, "so does A");
});

t.test("a revoked badge stops revalidating on every API process", async (t) => {
  // Both behind one public address, as behind a load balancer: same issuer, same keys (DATA_DIR).
  const { a, b, adminToken, close } = await spawnTwoServers("https://laurel.example");
  t.teardown(close);
  const { organization, authorization_token } = (await trpcMutation(a.adminOrigin, adminToken, "organizations.create", {
    name: "Hosted Org",
    email: "issuer@example.org",
  })) as OrganizationWithToken;
  const auth = basic(authorization_token.token);
  const post = async (path: string, body: unknown, method = "POST") => {
    const res = await fetch(`${a.origin}/v1/organizations/${organization.id}${path}`, {
      method,
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: { id: string } } };
  };
  const tpl = await post("/badge_templates", { name: "Hosted", description: "Served", state: "active" });
  const badge = await post("/badges", {
    badge_template_id: tpl.body.data.id,
    issued_at: "2024-03-01T10:00:00Z",
    issued_to_first_name: "Ada",
    issued_to_last_name: "Lovelace",
    recipient_email: "ada@example.org",
  });
  t.equal(badge.status, 201);
  await trpcMutation(a.adminOrigin, adminToken, "badges.accept", { badge_id: badge.body.data.id });
  const url = `${b.origin}/v1/obi/v2/badge_assertions/${badge.body.data.id}`;
  const first = await fetch(url);
  t.equal(first.status, 200, "B serves the accepted badge");
  const etag = first.headers.get("etag") as string;
  t.equal((await fetch(url, { headers: { "if-none-match": etag } })).status, 304, "B has it cached");

  const revoked = await post(`/badges/${badge.body.data.id}/revoke`, { reason: "Withdrawn" }, "PUT");
  t.equal(revoked.status, 200, "revoked through A");
  const after = await statusAfterBroadcast(() => fetch(url, { headers: { "if-none-match": etag } }), 304);
  t.equal(after, 410, "B answers the revocation, not a 304");
});
