import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import t from "tap";

/**
 * The two faces stand apart: the pages (`adapters/web`) import nothing of the REST API
 * (`adapters/rest`). What both serve (Open Badges records and images, error answers, uploads) has
 * rooms of its own (`adapters/obi`, `adapters/http`, `adapters/uploads`) that both import.
 */
const ADAPTERS = resolve(import.meta.dirname, "../../adapters");
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

t.test("no file of adapters/web imports adapters/rest", async (t) => {
  const web = sources(join(ADAPTERS, "web"));
  t.ok(web.length > 20, "the pages' files were read");
  const found = web.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(IMPORT)]
      .map((m) => m[1] as string)
      .filter((specifier) => specifier.startsWith("."))
      .filter((specifier) => relative(ADAPTERS, resolve(dirname(file), specifier)).split("/")[0] === "rest")
      .map((specifier) => `${relative(ADAPTERS, file)}: ${specifier}`),
  );
  t.same(found, []);
});
