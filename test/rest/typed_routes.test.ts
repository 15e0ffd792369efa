import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import t from "tap";

/**
 * Routes read their request through types the route declares (its schema through the TypeBox type
 * provider, or the route's generic), never by casting: a cast says what a value is without the
 * schema or parser that makes it so. Read from the sources, so a new cast fails here.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const ADAPTERS = join(ROOT, "adapters");
const ROUTES = join(ADAPTERS, "rest/routes");

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

/** `request.params as X`, `(request.query as X).y`, `(request.body ?? {}) as X`. */
const CAST = /\brequest\.(?:params|body|query)\b(?:\)?\s+as\b|\s*\?\?[^)]*\)\s*as\b)/g;

t.test("no adapter casts a request's params, body or query", async (t) => {
  const found = sources(ADAPTERS).flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (line.match(CAST) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
  t.same(found, [], "casts of request parts");
});

/** The token endpoint attaches validation errors and answers them itself, so its body is not the schema's. */
const UNTYPED = new Set(["token_endpoint.ts"]);

t.test("every REST route file declares its routes through the TypeBox type provider", async (t) => {
  const files = readdirSync(ROUTES).filter((name) => name.endsWith(".ts") && !UNTYPED.has(name));
  t.ok(files.length > 10, "the route files are found");
  const untyped = files.filter(
    (name) => !readFileSync(join(ROUTES, name), "utf8").includes("withTypeProvider<TypeBoxTypeProvider>()"),
  );
  t.same(untyped, [], "route files without the type provider");
});
