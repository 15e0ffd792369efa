import t from "tap";
import { basic, type OrganizationWithToken, spawnServer, trpcMutation } from "../support/laurel.ts";
import { startTestNats, tempDir } from "../support/services.ts";
import { startThrowawayPostgres } from "../support/throwaway_postgres.ts";

/**
 * A PostgreSQL restart and a short stop while clients keep calling the API process: no 500 at all,
 * every 503 carries Retry-After and the documented error body, the pool comes back by itself, and
 * every line the process writes is JSON. The database is a cluster of this test's own.
 */
t.test("a database restart under load answers 503 with Retry-After, never 500", async (t) => {
  const postgres = await startThrowawayPostgres();
  t.teardown(() => postgres.remove());
  const nats = await startTestNats();
  t.teardown(() => nats.stop());
  const dir = tempDir();
  t.teardown(() => dir.remove());
  const server = await spawnServer({ DATABASE_URL: postgres.url, NATS_URL: nats.url, DATA_DIR: dir.path });
  t.teardown(() => server.stop());
  const { readFileSync } = await import("node:fs");
  const adminToken = readFileSync(`${dir.path}/admin-token`, "utf8").trim();
  const { organization, authorization_token } = (await trpcMutation(
    server.adminOrigin,
    adminToken,
    "organizations.create",
    {
      name: "Restart Org",
      email: "issuer@example.org",
    },
  )) as OrganizationWithToken;
  const auth = basic(authorization_token.token);
  const apps = `${server.origin}/v1/organizations/${organization.id}/oauth_applications`;
  const created = await fetch(apps, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify({ name: "load" }),
  });
  const client = ((await created.json()) as { data: { uid: string; secret: string } }).data;

  const calls: Array<() => Promise<Response>> = [
    () => fetch(apps, { headers: { authorization: auth } }),
    () =>
      fetch(`${server.origin}/v1/organizations/${organization.id}/authorization_tokens`, {
        headers: { authorization: auth },
      }),
    () =>
      fetch(apps, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ name: "during restart" }),
      }),
    () =>
      fetch(`${server.origin}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=client_credentials&scope=oauth_applications&client_id=${client.uid}&client_secret=${client.secret}`,
      }),
  ];
  const statuses = new Map<number, number>();
  const bad: string[] = [];
  let running = true;
  const loop = async (i: number): Promise<void> => {
    for (let n = i; running; n++) {
      const res = await (calls[n % calls.length] as () => Promise<Response>)();
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) {
        const body = JSON.parse(text) as { data?: { code?: string }; error?: string };
        const documented = body.data?.code === "unavailable" || body.error === "temporarily_unavailable";
        if (res.status !== 503 || !res.headers.get("retry-after") || !documented)
          bad.push(`${res.status} retry-after=${res.headers.get("retry-after")} ${text}`);
      }
    }
  };
  const loops = Array.from({ length: 8 }, (_, i) => loop(i));
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await pause(1000);
  await postgres.restart();
  await pause(1000);
  // A stop long enough that requests certainly meet the database down.
  await postgres.stop();
  await pause(500);
  const down = await fetch(`${server.origin}/healthz`);
  const downBody = (await down.json()) as { checks: Record<string, boolean> };
  t.equal(down.status, 503, "healthz says the process cannot work without its database");
  t.equal(downBody.checks.database, false);
  t.equal((await fetch(`${server.origin}/readyz`)).status, 503, "nor should it get traffic");
  await pause(1000);
  await postgres.start();
  await pause(3000);
  running = false;
  await Promise.all(loops);

  t.same(bad, [], "every answer of 500 or more was a 503 with Retry-After and the documented body");
  t.notOk(statuses.has(500), `no 500 (statuses: ${JSON.stringify([...statuses])})`);
  t.ok((statuses.get(503) ?? 0) > 0, "the outage was seen as 503");
  t.ok((statuses.get(200) ?? 0) > 0, "and requests succeeded around it");
  for (let i = 0; i < 8; i++) {
    const res = await (calls[i % calls.length] as () => Promise<Response>)();
    t.ok(res.status === 200 || res.status === 201, `after the restart, call ${i} succeeds (${res.status})`);
  }
  const health = await fetch(`${server.origin}/healthz`);
  t.equal(health.status, 200, "healthz is back");
  const lines = server
    .output()
    .split("\n")
    .filter((l) => l.trim() !== "");
  const plain = lines.filter((l) => {
    try {
      return typeof JSON.parse(l) !== "object";
    } catch {
      return true;
    }
  });
  t.same(plain, [], "every line the process wrote is JSON");
});
