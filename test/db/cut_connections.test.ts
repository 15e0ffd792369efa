import pg from "pg";
import t from "tap";
import { isDatabaseUnavailable } from "../../adapters/db/mod.ts";
import { postgresSql } from "../../adapters/db/sql.ts";
import { adminDatabaseUrl } from "../support/services.ts";

/**
 * The server cuts a connection while a transaction holds it and awaits something else (a relay
 * publishing to the bus, say). Nothing is listening on that connection at that moment but our own
 * listener: without it the cut is an uncaught error event, which ends the process (tap reports it
 * as a failure of this test).
 */
t.test("a connection cut inside a transaction fails that transaction only", async (t) => {
  const warnings: string[] = [];
  const sql = postgresSql({ url: adminDatabaseUrl(), max: 2, log: { warn: (_o, msg) => warnings.push(msg) } });
  t.teardown(() => sql.end());
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  t.teardown(() => admin.end());

  const failure = await sql
    .transaction(async (tx) => {
      const row = await tx.one<{ pid: number }>("select pg_backend_pid() as pid");
      await admin.query("select pg_terminate_backend($1)", [row?.pid]);
      // The work awaits something that is not a statement while the server's notice arrives.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return tx.one("select 1 as one");
    })
    .then(
      () => null,
      (err: unknown) => err,
    );
  t.ok(failure, "the transaction failed");
  t.ok(isDatabaseUnavailable(failure), "with a connection error, which a client sees as 503");
  t.same(await sql.one("select 1 as one"), { one: 1 }, "the pool answers on a fresh connection afterwards");
  t.same(await sql.transaction((tx) => tx.one("select 2 as two")), { two: 2 }, "and a new transaction commits");
});

t.test("a listening connection the server cuts says it is no longer alive", async (t) => {
  const sql = postgresSql({ url: adminDatabaseUrl(), max: 2 });
  t.teardown(() => sql.end());
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  t.teardown(() => admin.end());
  const errors: unknown[] = [];
  const listening = await sql.listen(
    "laurel_cut_test",
    () => undefined,
    (err) => errors.push(err),
  );
  t.ok(listening?.alive(), "listening");
  await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen laurel_cut_test'");
  for (let i = 0; i < 50 && listening?.alive(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.notOk(listening?.alive(), "no longer alive");
  // pg may emit the server's notice and then the socket's end: one error or two.
  t.ok(errors.length >= 1, "the error reached the listener's owner");
  await listening?.close();
  t.same(await sql.one("select 3 as three"), { three: 3 }, "the pool answers afterwards");
});
