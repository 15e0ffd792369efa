/**
 * Every `METHOD path` an app serves, read from Fastify's own route tree
 * (`app.printRoutes({ commonPrefix: false })`); HEAD answers as GET and is left out. A node's
 * path is its parent's followed by its own segment as printed ("/sign_out" then "_everywhere").
 */
export const routesOf = (tree: string): Array<{ method: string; path: string }> => {
  const out: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of tree.split("\n")) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? "").length / 4;
    const segment = m[2] ?? "";
    const parent = depth > 0 ? (stack[depth - 1] ?? "") : "";
    // A wildcard prints without the "/" before it ("docs" then "*" is "/docs/*").
    const path = segment === "*" && !parent.endsWith("/") ? `${parent}/*` : `${parent}${segment}`;
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[3] ?? "").split(",").map((s) => s.trim())) {
      if (method && method !== "HEAD") out.push({ method, path: path.replace(/\/{2,}/g, "/") });
    }
  }
  return out;
};
