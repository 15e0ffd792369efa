/**
 * A value the browser sent, by name, from a request part no schema types. Page routes answer a
 * bad value with a page rather than a validation error, so helpers shared by many of them read
 * a value here and check its type before use.
 */
export const sentValue = (part: unknown, name: string | symbol): unknown =>
  typeof part === "object" && part !== null ? Reflect.get(part, name) : undefined;

/** The notice a redirect's `?done=` names, or null: only the table's own names, never `constructor` and kin. */
export const doneNotice = (notices: Record<string, string>, request: { query: unknown }): string | null => {
  const done = String(sentValue(request.query, "done") ?? "");
  return Object.hasOwn(notices, done) ? (notices[done] ?? null) : null;
};
