import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import t from "tap";

/**
 * Core's folders import each other only one way: a cycle between two folders (or round several)
 * means neither can be read, tested or moved without the other. Read from the sources, so a new
 * import that closes a cycle fails here before anyone has to find it.
 */

const CORE = resolve(import.meta.dirname, "../../core");

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

/** The core folder a file lies in ("" for a file at core's top). */
const folderOf = (file: string): string => {
  const parts = relative(CORE, file).split(sep);
  return parts.length > 1 ? (parts[0] as string) : "";
};

const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms;

/** Which core folders each core folder imports. */
export const folderImports = (): Map<string, Set<string>> => {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(CORE)) {
    const from = folderOf(file);
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const specifier = match[1] as string;
      if (!specifier.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier);
      if (relative(CORE, target).startsWith("..")) continue;
      const to = folderOf(target);
      if (to !== from) targets.add(to);
    }
  }
  return graph;
};

/** Every cycle found by a depth-first walk, each as the folders round it. */
const cycles = (graph: Map<string, Set<string>>): string[][] => {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    path.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
};

t.test("the walk finds a cycle when there is one", async (t) => {
  const graph = new Map([
    ["a", new Set(["b"])],
    ["b", new Set(["c"])],
    ["c", new Set(["a"])],
    ["d", new Set(["a"])],
  ]);
  t.same(cycles(graph), [["a", "b", "c", "a"]]);
});

t.test("no import cycle between core folders", async (t) => {
  const graph = folderImports();
  t.ok(graph.size > 10, "the folders of core were read");
  t.ok(graph.get("issuing")?.has("badges"), "imports between folders were read");
  t.same(
    cycles(graph).map((c) => c.join(" -> ")),
    [],
  );
});
