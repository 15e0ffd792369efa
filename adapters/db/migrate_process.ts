import { migratePostgres } from "./migrate.ts";

// The migrations of a PostgreSQL database, in a process of their own (started by openDatabase):
// MikroORM and its drivers then never load into the long-running process, which would carry them,
// and the memory they touched, for its whole life (docs/benchmarks.md, memory). The address comes
// in the environment, not the arguments, which any local user can read.
try {
  await migratePostgres(process.env.LAUREL_MIGRATE_DATABASE_URL ?? "");
} catch (err) {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
}
