import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type IDatabaseDriver, MikroORM } from "@mikro-orm/core";
import { Migrator } from "@mikro-orm/migrations";
import { PostgreSqlDriver } from "@mikro-orm/postgresql";
import { PGliteDriver } from "mikro-orm-pglite";
import { MIGRATIONS } from "./migrations/mod.ts";
import { pgliteSql, postgresSql, type Sql } from "./sql.ts";

/** The database of a process: its statements (`Sql`), a health check and closing. */
export interface Database extends Sql {
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The part of a pino logger the database needs. */
export interface DatabaseLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const migrationOptions = {
  entities: [] as string[],
  extensions: [Migrator],
  migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
  discovery: { warnWhenNoEntities: false },
  allowGlobalContext: false,
  debug: false,
  ensureDatabase: false,
};

/** MikroORM runs the migrations (its migrator keeps their order and record), then lets go. */
const migrate = async <D extends IDatabaseDriver>(orm: MikroORM<D>): Promise<void> => {
  try {
    await orm.getMigrator().up();
  } finally {
    await orm.close(true);
  }
};

/**
 * PGlite as MikroORM's driver sees it, except that closing it is left to the database: the ORM
 * closes its connection when it is done migrating, and the same PGlite serves every statement after.
 */
const unclosable = (pglite: PGlite): PGlite =>
  new Proxy(pglite, {
    get(target, key) {
      if (key === "close") return async () => undefined;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
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
  /** The process's logger: a lost connection is logged through it as JSON. */
  log?: DatabaseLog;
}): Promise<Database> => {
  let sql: Sql;
  let release = async (): Promise<void> => {};
  if (opts.databaseUrl) {
    if (opts.migrate !== false) {
      await migrate(
        await MikroORM.init({
          ...migrationOptions,
          driver: PostgreSqlDriver,
          clientUrl: opts.databaseUrl,
          pool: { min: 0, max: 1 },
        }),
      );
    }
    sql = postgresSql({ url: opts.databaseUrl, max: opts.pool?.max ?? 10, ...(opts.log ? { log: opts.log } : {}) });
  } else {
    const dir = join(opts.dataDir, "pglite");
    mkdirSync(dir, { recursive: true });
    const unlock = lockDirectory(opts.dataDir);
    const pglite = new PGlite(dir);
    await pglite.waitReady;
    if (opts.migrate !== false) {
      const view = unclosable(pglite);
      await migrate(
        await MikroORM.init({
          ...migrationOptions,
          driver: PGliteDriver,
          dbName: "postgres",
          driverOptions: { connection: { pglite: () => view } },
        }),
      );
    }
    sql = pgliteSql(pglite);
    release = async () => unlock();
  }
  return {
    ...sql,
    ping: async () => {
      try {
        await sql.all("select 1");
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      await sql.end();
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
