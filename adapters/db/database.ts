import { execFile } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findServer, parseHostList, pgliteSql, postgresSql, type Sql } from "./sql.ts";

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

/** Runs the migrations of PostgreSQL at `url` in a process that ends with them (migrate_process.ts). */
const migrateInProcess = (url: string): Promise<void> =>
  new Promise((resolve, reject) => {
    // Run as TypeScript by Node, or as the build's JavaScript beside this file.
    const file = new URL(
      import.meta.url.endsWith(".ts") ? "./migrate_process.ts" : "./migrate_process.js",
      import.meta.url,
    );
    const child = execFile(
      process.execPath,
      [fileURLToPath(file)],
      { maxBuffer: 1024 * 1024 },
      (err, _stdout, stderr) => {
        if (err) reject(new Error(`database migrations failed: ${stderr.trim() || err.message}`, { cause: err }));
        else resolve();
      },
    );
    // The address goes on stdin: arguments are readable by any local user.
    child.stdin?.end(url);
  });

/** The migrations' names, read from their files' names (migrations/mod.ts lists the same classes). */
const migrationNames = (): string[] =>
  readdirSync(new URL("./migrations/", import.meta.url)).flatMap(
    (file) => /^(m\d{8}_\d{3}_\w+)\.[jt]s$/.exec(file)?.[1] ?? [],
  );

/**
 * Whether every migration is recorded already: one query, where migrating costs MikroORM's loading
 * (and on PostgreSQL a Node process of its own). Any failure (no table yet, no server) answers no,
 * and the migrations then run and report it.
 */
const upToDate = async (sql: Sql): Promise<boolean> => {
  const names = migrationNames();
  try {
    const row = await sql.one<{ n: number }>(
      "select count(*)::int as n from mikro_orm_migrations where name = any(?)",
      [names],
    );
    return row?.n === names.length;
  } catch {
    return false;
  }
};

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
    sql = postgresSql({ url: opts.databaseUrl, max: opts.pool?.max ?? 10, ...(opts.log ? { log: opts.log } : {}) });
    if (opts.migrate !== false && !(await upToDate(sql))) {
      // The migrations' driver reads one server: the one the pool will follow, found now.
      const { servers, readWrite } = parseHostList(opts.databaseUrl);
      const follows = servers.length > 1 || readWrite;
      try {
        await migrateInProcess(follows ? await findServer(opts.databaseUrl) : opts.databaseUrl);
      } catch (err) {
        await sql.end();
        throw err;
      }
    }
  } else {
    const dir = join(opts.dataDir, "pglite");
    mkdirSync(dir, { recursive: true });
    const unlock = lockDirectory(opts.dataDir);
    // Loaded only here: a process on PostgreSQL carries neither PGlite nor the ORM.
    const { PGlite } = await import("@electric-sql/pglite");
    const pglite = new PGlite(dir);
    await pglite.waitReady;
    sql = pgliteSql(pglite);
    if (opts.migrate !== false && !(await upToDate(sql))) await (await import("./migrate.ts")).migratePglite(pglite);
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
