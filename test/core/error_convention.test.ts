import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import t from "tap";

/**
 * Core's one error convention (CONTRIBUTING.md, "Errors"): a failure is a thrown `CoreError`, and
 * the only failure value is `Result`. Read from the sources, so a function that returns a
 * `CoreError` beside its value, or a hand-made `{ ok: false }`, fails here.
 */

const CORE = resolve(import.meta.dirname, "../../core");
const ERRORS = join(CORE, "errors", "errors.ts");

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

const FORBIDDEN: Array<[RegExp, string]> = [
  [/\|\s*CoreError\b|\bCoreError\s*\|/, "a CoreError returned beside a value (throw it)"],
  [/\bok:\s*(?:true|false)\b/, "a hand-made result (use Result, ok and fail from core/errors)"],
];

t.test("core returns no failure except through Result", async (t) => {
  const found: string[] = [];
  for (const file of sources(CORE)) {
    if (file === ERRORS) continue;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        for (const [pattern, what] of FORBIDDEN) {
          if (pattern.test(line)) found.push(`${relative(CORE, file)}:${i + 1}: ${what}`);
        }
      });
  }
  t.same(found, []);
});
