import { readFileSync, writeFileSync } from "node:fs";
import { configurationTable } from "../apps/env_schema.ts";

/**
 * Writes README's configuration table from the environment's schema (apps/env_schema.ts):
 * `npm run docs:config`. The table is the first one under "## Configuration".
 */

const README = new URL("../README.md", import.meta.url);

/** README with its configuration table replaced by `table`. */
export const withConfigurationTable = (readme: string, table: string): string => {
  const heading = readme.indexOf("## Configuration\n");
  if (heading < 0) throw new Error('README.md has no "## Configuration" section');
  const start = readme.indexOf("\n|", heading) + 1;
  let end = start;
  while (readme.startsWith("|", end)) end = readme.indexOf("\n", end) + 1;
  return `${readme.slice(0, start)}${table}\n${readme.slice(end)}`;
};

if (import.meta.main) {
  const readme = readFileSync(README, "utf8");
  const next = withConfigurationTable(readme, configurationTable());
  if (next !== readme) writeFileSync(README, next);
  process.stdout.write(
    next === readme ? "README.md: configuration table up to date\n" : "README.md: configuration table written\n",
  );
}
