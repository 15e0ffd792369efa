import { readFileSync } from "node:fs";
import pg from "pg";
import t from "tap";
import { isDatabaseUnavailable } from "../../adapters/db/connection_errors.ts";
import { parseHostList, postgresSql } from "../../adapters/db/sql.ts";
import { basic, type OrganizationWithToken, spawnServer, trpcMutation } from "../support/laurel.ts";
import { startTestNats, tempDir } from "../support/services.ts";
import { startThrowawayPostgres, type ThrowawayPostgres } from "../support/throwaway_postgres.ts";

/** Turns a server read-only (as a standby answers writes) or writable again, for every session. */
const setReadOnly = async (server: ThrowawayPostgres, on: boolean): Promise<void> => {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    await c.query(`alter system set default_transaction_read_only = ${on ? "on" : "off"}`);
    await c.query("select pg_reload_conf()");
  } finally {
    await c.end();
  }
};

const portOf = (url: string): number => Number(new URL(url).port);

/** Both servers in one libpq host list, the first one first. */
const hostList = (first: ThrowawayPostgres, second: ThrowawayPostgres): string =>
  `postgres://laurel@127.0.0.1:${portOf(first.url)},127.0.0.1:${portOf(second.url)}/postgres?target_session_attrs=read-write`;

t.test("libpq's host list is read into one connection string per server", async (t) => {
  const list = parseHostList(
    "postgres://u:p%40w@h1:5432,h2:5433,[::1]/db?sslmode=disable&target_session_attrs=read-write",
  );
  t.same(
    list.servers.map((s) => s.url),
    [
      "postgres://u:p%40w@h1:5432/db?sslmode=disable",
      "postgres://u:p%40w@h2:5433/db?sslmode=disable",
      "postgres://u:p%40w@[::1]:5432/db?sslmode=disable",
    ],
  );
  t.equal(list.readWrite, true);
  t.equal(parseHostList("postgres://h/db").readWrite, false, "any server will do without target_session_attrs");
});

t.test("the adapter keeps to the writable server of a host list and moves when it changes", async (t) => {
  const a = await startThrowawayPostgres();
  t.teardown(() => a.remove());
  const b = await startThrowawayPostgres();
  t.teardown(() => b.remove());
  await setReadOnly(a, true);
  const sql = postgresSql({ url: hostList(a, b), max: 4 });
  t.teardown(() => sql.end());

  const port = async (): Promise<number> =>
    Number((await sql.one<{ port: number }>("select inet_server_port() as port"))?.port);
  t.equal(await port(), portOf(b.url), "the read-only first server is passed over");
  await sql.run("create table marks (n int)");
  await sql.transaction((tx) => tx.run("insert into marks values (1)"));

  // The writable one turns read-only and the other writable, as in a failover.
  await setReadOnly(b, true);
  await setReadOnly(a, false);
  const refused = await sql.run("insert into marks values (2)").catch((err: unknown) => err);
  t.ok(isDatabaseUnavailable(refused), "the write that reached the demoted server is 'unavailable' (503), not a fault");
  t.equal(await port(), portOf(a.url), "the next statement goes to the server that is writable now");
  await sql.run("create table marks (n int)");
  await sql.transaction((tx) => tx.run("insert into marks values (3)"));

  // The writable one stops: connection errors, then the other, writable again, is chosen.
  await setReadOnly(b, false);
  await a.stop();
  const cut = await sql.all("select 1").catch((err: unknown) => err);
  t.ok(isDatabaseUnavailable(cut), "a statement on the stopped server is 'unavailable'");
  t.equal(await port(), portOf(b.url), "the pool followed to the server left");
  t.same(await sql.all("select n from marks order by n"), [{ n: 1 }], "and it is the same server as before");

  // Neither will do: an 'unavailable' error naming both, not a hang or a fault.
  await setReadOnly(b, true);
  await sql.run("insert into marks values (4)").catch(() => undefined);
  const none = await sql.run("insert into marks values (5)").catch((err: unknown) => err);
  t.ok(isDatabaseUnavailable(none), "no writable server is 'unavailable'");
  t.match(String((none as Error).message), /no read-write PostgreSQL server among/);
});

t.test("the API server migrates and serves through a host list whose first server is read-only", async (t) => {
  const a = await startThrowawayPostgres();
  t.teardown(() => a.remove());
  const b = await startThrowawayPostgres();
  t.teardown(() => b.remove());
  await setReadOnly(a, true);
  const nats = await startTestNats();
  t.teardown(() => nats.stop());
  const dir = tempDir();
  t.teardown(() => dir.remove());
  const server = await spawnServer({ DATABASE_URL: hostList(a, b), NATS_URL: nats.url, DATA_DIR: dir.path });
  t.teardown(() => server.stop());
  const adminToken = readFileSync(`${dir.path}/admin-token`, "utf8").trim();
  const { organization, authorization_token } = (await trpcMutation(
    server.adminOrigin,
    adminToken,
    "organizations.create",
    { name: "Host List Org", email: "issuer@example.org" },
  )) as OrganizationWithToken;
  const res = await fetch(`${server.origin}/v1/organizations/${organization.id}/badge_templates`, {
    method: "POST",
    headers: { authorization: basic(authorization_token.token), "content-type": "application/json" },
    body: JSON.stringify({ name: "Written", description: "On the writable server", state: "active" }),
  });
  t.equal(res.status, 201, "a write through the API succeeds");
  const c = new pg.Client({ connectionString: b.url });
  await c.connect();
  t.teardown(() => c.end());
  const { rows } = await c.query("select count(*)::int as n from badge_templates where name = 'Written'");
  t.same(rows, [{ n: 1 }], "on the writable server");
});
