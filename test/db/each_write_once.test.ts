import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import t from "tap";

/**
 * Each write has one SQL text and each table one row type: a second `insert into badges` or
 * `insert into events`, a store declaring its own untyped `Row`, or a row's field cast to the type
 * it should have been declared with, fails here. Read from the sources, so a new one fails at once.
 */

const ROOT = resolve(import.meta.dirname, "../..");

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

const CODE = ["adapters", "workers", "apps"].flatMap((dir) => sources(join(ROOT, dir)));
const DB = sources(join(ROOT, "adapters/db"));

/** Lines of `files` matching `pattern`, as `path:line: text`. */
const lines = (files: string[], pattern: RegExp): string[] =>
  files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (pattern.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );

t.test("issuing has one statement that inserts badges, and events one that appends them", async (t) => {
  const badgeInserts = lines(CODE, /insert into badges\b/i);
  t.same(
    badgeInserts.map((l) => l.split(":")[0]),
    ["adapters/db/grouped_issues.ts"],
    `the grouped issue statement is the only badge insert: ${badgeInserts.join("; ")}`,
  );
  const eventInserts = lines(CODE, /insert into events\b/i);
  t.same(
    eventInserts.map((l) => l.split(":")[0]),
    ["adapters/db/postgres_event_log.ts"],
    `appendEventsCtes is the only event insert: ${eventInserts.join("; ")}`,
  );
  const lookups = lines(CODE, /from badge_templates t join organizations o on o\.id = t\.organization_id\s*$/);
  t.same(lookups, [], "no second text of the issue lookup");
});

t.test("row types are declared once, in adapters/db/rows.ts, and read without field casts", async (t) => {
  t.same(
    lines(
      DB.filter((f) => !f.endsWith("/sql.ts")),
      /\btype Row\s*=/,
    ),
    [],
    "stores declaring their own untyped Row",
  );
  t.same(
    lines(
      DB.filter((f) => !f.endsWith("/rows.ts")),
      /^(export )?interface \w+Row\b/,
    ),
    [],
    "table row interfaces outside rows.ts (a select of some columns is a Pick or Omit of the table's row)",
  );
  t.same(lines(DB, /\b(r|row)\.[a-z_]+ as [A-Za-z]/), [], "a row's field cast to a type");
});
