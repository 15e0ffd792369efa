import type { PGlite } from "@electric-sql/pglite";
import { type IDatabaseDriver, MikroORM } from "@mikro-orm/core";
import { Migrator } from "@mikro-orm/migrations";
import { PostgreSqlDriver } from "@mikro-orm/postgresql";
import { PGliteDriver } from "mikro-orm-pglite";
import { MIGRATIONS } from "./migrations/mod.ts";

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
const migrate = async <D extends IDatabaseDriver>(orm: MikroORM<D>, to?: string): Promise<void> => {
  try {
    await orm.getMigrator().up(to === undefined ? undefined : { to });
  } finally {
    await orm.close(true);
  }
};

/**
 * Brings the PostgreSQL database at `url` up to date, on a connection of its own; or only up to the
 * migration named `to` (a test of a later migration's data move builds the database before it).
 */
export const migratePostgres = async (url: string, to?: string): Promise<void> =>
  migrate(
    await MikroORM.init({ ...migrationOptions, driver: PostgreSqlDriver, clientUrl: url, pool: { min: 0, max: 1 } }),
    to,
  );

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

/** Brings an open PGlite up to date through its one connection, which stays open. */
export const migratePglite = async (pglite: PGlite): Promise<void> => {
  const view = unclosable(pglite);
  await migrate(
    await MikroORM.init({
      ...migrationOptions,
      driver: PGliteDriver,
      dbName: "postgres",
      driverOptions: { connection: { pglite: () => view } },
    }),
  );
};
