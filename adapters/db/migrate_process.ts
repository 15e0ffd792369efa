import { migratePostgres } from "./migrate.ts";

// The migrations of a PostgreSQL database, in a process of their own (started by openDatabase):
// MikroORM and its drivers then never load into the long-running process, which would carry them,
// and the memory they touched, for its whole life (docs/benchmarks.md, memory). The address comes
// on stdin, not in the arguments, which any local user can read.
try {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  await migratePostgres(Buffer.concat(chunks).toString("utf8"));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
}
