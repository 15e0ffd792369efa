import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
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

export const createTestDatabase = async (): Promise<TestDatabase> => {
  const admin = adminDatabaseUrl();
  const name = `laurel_test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        // Clients closed just before (a pool's end() resolves before its backends are gone) are let
        // go on their own first: `with (force)` would terminate them, and the closing client then
        // raises "terminating connection due to administrator command" in its test.
        for (let i = 0; i < 100; i++) {
          const { rows } = await c.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
            [name],
          );
          if ((rows[0]?.n ?? 0) === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        // `with (force)` refuses (42501) while an autovacuum worker, which belongs to no role, works
        // in the database; it is gone a moment later.
        for (let attempt = 1; ; attempt++) {
          try {
            await c.query(`drop database if exists ${name} with (force)`);
            return;
          } catch (err) {
            if ((err as { code?: string }).code !== "42501" || attempt >= 50) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      } finally {
        await c.end();
      }
    },
  };
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
