import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { MikroORM, type Options } from "@mikro-orm/core";
import { Migrator } from "@mikro-orm/migrations";
import type { AbstractSqlConnection, AbstractSqlDriver, EntityManager } from "@mikro-orm/postgresql";

/** One driver type for PostgreSQL and PGlite alike. */
type SqlDriver = AbstractSqlDriver<AbstractSqlConnection>;

import { PostgreSqlDriver } from "@mikro-orm/postgresql";
import { PGliteDriver } from "mikro-orm-pglite";
import { FOUNDATION_ENTITIES } from "./entities.ts";
import { BADGE_ENTITIES } from "./entities_badges.ts";
import { MIGRATIONS } from "./migrations/mod.ts";

export type Orm = MikroORM<SqlDriver>;
export type Em = EntityManager;

export interface Database {
  orm: Orm;
  /** A fresh EntityManager for one unit of work. */
  em(): Em;
  kind: "postgresql" | "pglite";
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The part of a pino logger the database needs. */
export interface DatabaseLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** knex's `log` option: it would otherwise print its warnings as plain text on stderr. */
const knexLog = (log: DatabaseLog) => ({
  warn: (message: unknown) => log.warn({ driver: String(message) }, "database driver warning"),
  error: (message: unknown) => log.error({ driver: String(message) }, "database driver error"),
  deprecate: (method: unknown, alternative: unknown) =>
    log.warn({ driver: `${String(method)} is deprecated, use ${String(alternative)}` }, "database driver warning"),
  debug: () => undefined,
});

/** Every entity schema; each feature's entity file adds its list here. */
const ENTITIES = [...FOUNDATION_ENTITIES, ...BADGE_ENTITIES];

const baseOptions = (): Options<SqlDriver> => ({
  entities: ENTITIES,
  extensions: [Migrator],
  migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
  discovery: { warnWhenNoEntities: false },
  allowGlobalContext: false,
  debug: false,
  ensureDatabase: false,
  // Dates stay Date objects; every timestamp column is timestamptz.
  forceUtcTimezone: true,
});

/**
 * Opens PostgreSQL at `databaseUrl`, or an embedded PGlite in `dataDir` when there is none, and
 * brings the schema up to date. PGlite has a single connection and loses writes when two processes
 * open one directory, so the directory is locked and a second opener is refused.
 */
export const openDatabase = async (opts: {
  databaseUrl?: string | undefined;
  dataDir: string;
  pool?: { min: number; max: number };
  migrate?: boolean;
  /** The process's logger: the driver's warnings (a connection lost, a pool error) go through it as JSON. */
  log?: DatabaseLog;
}): Promise<Database> => {
  let orm: Orm;
  let release = async (): Promise<void> => {};
  let kind: Database["kind"];
  if (opts.databaseUrl) {
    kind = "postgresql";
    orm = (await MikroORM.init<SqlDriver>({
      ...baseOptions(),
      driver: PostgreSqlDriver,
      clientUrl: opts.databaseUrl,
      pool: opts.pool ?? { min: 1, max: 10 },
      // No JIT compilation: Laurel's statements are short, and PostgreSQL compiles a statement
      // whose estimated cost passes jit_above_cost, which a misestimate reaches easily (a relay
      // batch planned for 500 organizations that has one: 10 ms of compiling a 0.5 ms statement).
      driverOptions: { connection: { options: "-c jit=off" }, ...(opts.log ? { log: knexLog(opts.log) } : {}) },
      ...(opts.log ? { logger: (message: string) => opts.log?.info({ orm: message }, "database") } : {}),
    })) as Orm;
  } else {
    kind = "pglite";
    const dir = join(opts.dataDir, "pglite");
    mkdirSync(dir, { recursive: true });
    const unlock = lockDirectory(opts.dataDir);
    const pglite = new PGlite(dir);
    await pglite.waitReady;
    orm = (await MikroORM.init<SqlDriver>({
      ...baseOptions(),
      driver: PGliteDriver as unknown as Options<SqlDriver>["driver"],
      dbName: "postgres",
      driverOptions: { connection: { pglite: () => pglite } },
    })) as Orm;
    release = async () => {
      await pglite.close();
      unlock();
    };
  }
  if (opts.migrate !== false) await orm.getMigrator().up();
  return {
    orm,
    kind,
    em: () => orm.em.fork({ clear: true }) as Em,
    ping: async () => {
      try {
        await orm.em.fork().getConnection().execute("select 1");
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      await orm.close(true);
      await release();
    },
  };
};

/** An exclusive lock file holding our pid; a stale one (dead pid) is taken over. */
const lockDirectory = (dataDir: string): (() => void) => {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "pglite.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(readFileSync(path, "utf8"));
      if (pid && pid !== process.pid && processAlive(pid)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${pid}. Stop it, or set DATABASE_URL to share PostgreSQL between processes.`,
        );
      }
      unlinkSync(path);
    }
  }
  throw new Error(`Could not lock ${path}`);
};

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};
