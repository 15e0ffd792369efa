import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";

/**
 * Real services for tests: a fresh PostgreSQL database per test file (on the server `npm test`
 * prepared, TEST_DATABASE_URL) and a nats-server with JetStream of its own.
 */
export const adminDatabaseUrl = (): string => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set: run the tests with `npm test`, which prepares PostgreSQL");
  return url;
};

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

const databaseUrl = (admin: string, name: string): string => {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * Clients closed just before (a pool's end() resolves before its backends are gone) are let go on
 * their own first: `with (force)` would terminate them, and the closing client then raises
 * "terminating connection due to administrator command" in its test.
 */
const awaitNoClients = async (c: pg.Client, name: string): Promise<void> => {
  for (let i = 0; i < 100; i++) {
    const { rows } = await c.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
      [name],
    );
    if ((rows[0]?.n ?? 0) === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
};

const dropDatabase = async (c: pg.Client, name: string): Promise<void> => {
  await awaitNoClients(c, name);
  // `with (force)` refuses (42501) while an autovacuum worker, which belongs to no role, works in
  // the database; it is gone a moment later.
  for (let attempt = 1; ; attempt++) {
    try {
      await c.query(`drop database if exists ${name} with (force)`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "42501" || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
};

const withAdmin = async <T>(admin: string, work: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
};

/**
 * The migrated template every test database is copied from: named after the migrations' text and
 * today's date (migrations make weekly partitions around the day they run), built once per run by
 * whichever test file comes first, under an advisory lock the others wait on. Copying a database
 * takes a tenth of the time of migrating one.
 */
const templateName = (): string => {
  const dir = join(import.meta.dirname, "../../adapters/db/migrations");
  const hash = createHash("sha256");
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(join(dir, file)));
  return `laurel_tmpl_${hash.digest("hex").slice(0, 12)}_${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`;
};

let template: Promise<string> | null = null;

const migratedTemplate = (admin: string): Promise<string> => {
  template ??= withAdmin(admin, async (c) => {
    const name = templateName();
    await c.query("select pg_advisory_lock(hashtext('laurel_test_template'))");
    try {
      const { rows } = await c.query("select 1 from pg_database where datname = $1", [name]);
      if (rows.length > 0) return name;
      // Only earlier days' templates go: another checkout on this server (its migrations
      // differ) may be copying today's own at this moment.
      const today = name.slice(name.lastIndexOf("_"));
      const stale = await c.query<{ datname: string }>(
        "select datname from pg_database where datname like 'laurel\\_tmpl\\_%' and datname not like $1",
        [`%\\${today}%`],
      );
      for (const { datname } of stale.rows) {
        await c.query(`alter database ${datname} is_template false`);
        await dropDatabase(c, datname);
      }
      // Built under another name and renamed when complete: a run stopped half-way leaves no
      // half-migrated template behind.
      const building = `${name}_wip`;
      await dropDatabase(c, building);
      await c.query(`create database ${building}`);
      // Imported here, by the one file that builds the template: the migrations and MikroORM's
      // migrator cost every other test process about a fifth of its start.
      const { migratePostgres } = await import("../../adapters/db/migrate.ts");
      await migratePostgres(databaseUrl(admin, building));
      await awaitNoClients(c, building);
      await c.query(`alter database ${building} rename to ${name}`);
      await c.query(`alter database ${name} is_template true`);
      return name;
    } finally {
      await c.query("select pg_advisory_unlock(hashtext('laurel_test_template'))");
    }
  });
  return template;
};

/**
 * A database of its own for the caller: migrated (a copy of the template) or, with `empty`, bare,
 * for tests that run migrations themselves.
 */
export const createTestDatabase = async (opts: { empty?: boolean } = {}): Promise<TestDatabase> => {
  const admin = adminDatabaseUrl();
  const name = `laurel_test_${randomBytes(6).toString("hex")}`;
  const from = opts.empty ? null : await migratedTemplate(admin);
  await withAdmin(admin, (c) => c.query(`create database ${name}${from ? ` template ${from}` : ""}`));
  return {
    url: databaseUrl(admin, name),
    drop: () => withAdmin(admin, (c) => dropDatabase(c, name)),
  };
};

/**
 * A migrated PGlite directory for `dataDir` (its `pglite` folder), copied from one built once per
 * machine, day and migrations (the template's name says which, as for PostgreSQL): PGlite's initdb
 * and the migrations cost about 3 s of CPU per test server, a copy a tenth of it. The template is
 * built in a directory of its own and renamed into place, so a reader never finds it half-made (two
 * files that start together may both build it; one rename wins).
 */
export const copyMigratedPglite = async (dataDir: string): Promise<void> => {
  const template = join(tmpdir(), templateName().replace("laurel_tmpl_", "laurel-pglite-tmpl-"));
  if (!existsSync(template)) {
    // Only earlier days' templates go: another checkout's may be being copied at this moment.
    const today = template.slice(template.lastIndexOf("_"));
    for (const old of readdirSync(tmpdir()))
      if (old.startsWith("laurel-pglite-tmpl-") && !old.includes(today))
        rmSync(join(tmpdir(), old), { recursive: true, force: true });
    const building = mkdtempSync(`${template}-wip-`);
    const { openDatabase } = await import("../../adapters/db/database.ts");
    const db = await openDatabase({ dataDir: building });
    await db.close();
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  cpSync(join(template, "pglite"), join(dataDir, "pglite"), { recursive: true });
};

export const tempDir = (prefix = "laurel-test-"): { path: string; remove(): void } => {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
};

export interface TestNats extends LocalNats {
  dir: string;
}

export const startTestNats = async (): Promise<TestNats> => {
  const dir = tempDir("laurel-nats-");
  const nats = await startLocalNats({ storeDir: dir.path });
  return {
    ...nats,
    dir: dir.path,
    stop: async () => {
      await nats.stop();
      dir.remove();
    },
  };
};

/**
 * Waits until no other test file holds the lock `name`, then holds it until `t` ends: the files
 * of test/clusters (each a whole cluster under a fault, asserting what its timers decide) run one
 * after another, each beside the other test files but never beside one another.
 */
export const oneAtATime = async (t: { teardown(fn: () => Promise<void>): void }, name: string): Promise<void> => {
  const c = new pg.Client({ connectionString: adminDatabaseUrl() });
  await c.connect();
  await c.query("select pg_advisory_lock(hashtext($1))", [name]);
  t.teardown(() => c.end());
};
