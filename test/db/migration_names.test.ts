import { readdirSync } from "node:fs";
import t from "tap";
import { MIGRATIONS } from "../../adapters/db/migrations/mod.ts";

// openDatabase decides that a database is up to date from the migrations' file names, without
// loading MikroORM: the list MikroORM runs must be exactly those files, in their order.
t.test("the migrations MikroORM runs are the migration files, in order", async (t) => {
  const files = readdirSync(new URL("../../adapters/db/migrations/", import.meta.url))
    .filter((f) => /^m\d{8}_\d{3}_\w+\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ""))
    .sort();
  t.ok(files.length > 20);
  t.same(
    MIGRATIONS.map((m) => m.name),
    files,
  );
});
