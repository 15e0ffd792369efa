import pg from "pg";
import t from "tap";
import { postgresOAuthApplicationStore } from "../../adapters/db/mod.ts";
import { freshReads } from "../../adapters/rest/fresh_reads.ts";
import { basic, startLaurel } from "../support/laurel.ts";
import { createTestDatabase } from "../support/services.ts";

/** A read whose completion the test controls. */
const controlled = () => {
  const started: Array<{ resolve(v: number): void; reject(e: unknown): void }> = [];
  const read = (): Promise<number> =>
    new Promise<number>((resolve, reject) => {
      started.push({ resolve, reject });
    });
  return { started, read };
};

const tick = () => new Promise((r) => setImmediate(r));

t.test("a request that arrives while a read runs waits for the next read, never joins the running one", async (t) => {
  const reads = freshReads<number>();
  const { started, read } = controlled();
  const first = reads.load("k", read);
  t.equal(started.length, 1, "a lone request starts a read at once");
  const second = reads.load("k", read);
  const third = reads.load("k", read);
  t.equal(started.length, 1, "no second read while one runs for the key");
  started[0]?.resolve(1);
  t.equal(await first, 1);
  await tick();
  t.equal(started.length, 2, "the waiting requests share one new read, started after they arrived");
  const fourth = reads.load("k", read);
  started[1]?.resolve(2);
  t.equal(await second, 2);
  t.equal(await third, 2);
  await tick();
  t.equal(started.length, 3);
  started[2]?.resolve(3);
  t.equal(await fourth, 3, "a request that arrived during the second read got the third");
  await tick();
  const fifth = reads.load("k", read);
  t.equal(started.length, 4, "once idle, a lone request starts a read at once again");
  started[3]?.resolve(4);
  t.equal(await fifth, 4);
});

t.test("keys are independent; a failed read fails its whole batch only", async (t) => {
  const reads = freshReads<number>();
  const a = controlled();
  const b = controlled();
  const a1 = reads.load("a", a.read);
  const b1 = reads.load("b", b.read);
  t.equal(a.started.length + b.started.length, 2, "each key reads at once");
  const a2 = reads.load("a", a.read);
  const a3 = reads.load("a", a.read);
  a.started[0]?.reject(new Error("boom"));
  await t.rejects(a1, /boom/);
  await tick();
  a.started[1]?.resolve(7);
  t.same(await Promise.all([a2, a3]), [7, 7], "the next batch reads again");
  b.started[0]?.resolve(9);
  t.equal(await b1, 9);
  const thrown = reads.load("c", () => {
    throw new Error("sync");
  });
  await t.rejects(thrown, /sync/, "a read that throws at once rejects like one that fails later");
});

t.test("on real PostgreSQL, a write committed before a request arrives is in that request's answer", async (t) => {
  const database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 10 });
  t.teardown(async () => {
    await pool.end();
    await database.drop();
  });
  await pool.query("create table items (id int primary key)");
  const reads = freshReads<Set<number>>();
  let dbReads = 0;
  const read = async (): Promise<Set<number>> => {
    dbReads++;
    // A slow statement, so that requests pile up behind it and batches form.
    const r = await pool.query<{ id: number }>("select id from items, pg_sleep(0.002)");
    return new Set(r.rows.map((row) => row.id));
  };
  let loads = 0;
  const load = () => {
    loads++;
    return reads.load("items", read);
  };
  let missing = 0;
  const writers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; i < 40; i++) {
      const id = w * 1000 + i;
      await pool.query("insert into items (id) values ($1)", [id]); // committed (autocommit) here
      const seen = await load();
      if (!seen.has(id)) missing++;
    }
  });
  let stop = false;
  const readers = Array.from({ length: 16 }, async () => {
    while (!stop) await load();
  });
  await Promise.all(writers);
  stop = true;
  await Promise.all(readers);
  t.equal(missing, 0, "every request saw the write its caller committed before asking");
  t.ok(dbReads < loads / 3, `requests shared reads (${loads} requests, ${dbReads} database reads)`);
});

t.test("the list routes answer from a read begun after the request: a created item is always listed", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const { organization, authorization_token } = await laurel.createOrganization("Fresh lists");
  const auth = basic(authorization_token.token);
  const apps = `${laurel.baseUrl}/organizations/${organization.id}/oauth_applications`;
  const tokens = `${laurel.baseUrl}/organizations/${organization.id}/authorization_tokens`;
  let wrongType = 0;
  const list = async (url: string) => {
    const res = await fetch(url, { headers: { authorization: auth } });
    if (res.status !== 200 || res.headers.get("content-type") !== "application/json; charset=utf-8") wrongType++;
    return (await res.json()) as { data: Array<{ uid?: string; id?: string }>; metadata: { total_count: number } };
  };
  let stop = false;
  const readers = Array.from({ length: 10 }, async () => {
    while (!stop) await Promise.all([list(apps), list(tokens)]);
  });
  let missing = 0;
  const writers = Array.from({ length: 4 }, async () => {
    for (let i = 0; i < 10; i++) {
      const created = await fetch(apps, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ name: `App ${i}` }),
      });
      const { data } = (await created.json()) as { data: { uid: string } };
      if (!(await list(apps)).data.some((a) => a.uid === data.uid)) missing++;
      const made = await fetch(tokens, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ description: `Token ${i}` }),
      });
      const token = (await made.json()) as { data: { id: string } };
      if (!(await list(tokens)).data.some((x) => x.id === token.data.id)) missing++;
    }
  });
  await Promise.all(writers);
  stop = true;
  await Promise.all(readers);
  t.equal(missing, 0, "no list answer missed an item created before it was asked for");
  t.equal(wrongType, 0, "every list answer was a 200 JSON body");
  const final = await list(apps);
  t.equal(final.metadata.total_count, 40);
});

for (const database of ["postgresql", "pglite"] as const)
  t.test(
    `an applications page is sent again only while its version stands; every write moves it (${database})`,
    async (t) => {
      const laurel = await startLaurel({ database });
      t.teardown(() => laurel.close());
      const { organization, authorization_token } = await laurel.createOrganization("Kept pages");
      const other = await laurel.createOrganization("Elsewhere");
      const store = postgresOAuthApplicationStore(laurel.db);
      const auth = basic(authorization_token.token);
      const apps = `${laurel.baseUrl}/organizations/${organization.id}/oauth_applications`;
      const list = async () => {
        const res = await fetch(apps, { headers: { authorization: auth } });
        t.equal(res.status, 200);
        return (await res.json()) as { data: Array<{ id: number; name: string }>; metadata: { total_count: number } };
      };
      const version = () => store.listVersion(organization.id);
      t.equal(await version(), 0, "no application yet: version 0");
      const made = await fetch(apps, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ name: "Kept" }),
      });
      t.equal(made.status, 201);
      const created = await version();
      t.ok(created > 0, "creating an application moved the version");
      const first = await list();
      t.same(
        first.data.map((a) => a.name),
        ["Kept"],
      );
      t.same(await list(), first, "an unchanged list answers the same body");
      t.equal(await version(), created, "reading moves nothing");

      // Writes that bypass the API, as the CLI or another process would make them.
      await laurel.db.run("update oauth_applications set name = 'Renamed by hand' where organization_id = ?", [
        organization.id,
      ]);
      t.ok((await version()) > created, "an update in SQL moved the version");
      t.same(
        (await list()).data.map((a) => a.name),
        ["Renamed by hand"],
        "the next answer has the change",
      );

      const before = await version();
      const otherApps = `${laurel.baseUrl}/organizations/${other.organization.id}/oauth_applications`;
      const elsewhere = await fetch(otherApps, {
        method: "POST",
        headers: { authorization: basic(other.authorization_token.token), "content-type": "application/json" },
        body: JSON.stringify({ name: "Not here" }),
      });
      t.equal(elsewhere.status, 201);
      t.equal(await version(), before, "another organization's change leaves this version alone");

      await laurel.db.run("delete from oauth_applications where organization_id = ?", [organization.id]);
      t.ok((await version()) > before, "a deletion moved the version");
      const emptied = await list();
      t.same(emptied.data, [], "the next answer lists nothing");
      t.equal(emptied.metadata.total_count, 0);
    },
  );
