import { fail, ok, type Result } from "../errors/mod.ts";

/** The scopes an earner grants an organization's application through the authorization code flow. */
export const USER_SCOPES = ["profile", "public_badges"] as const;

export type UserScope = (typeof USER_SCOPES)[number];

const USER_SCOPE_SET: ReadonlySet<string> = new Set(USER_SCOPES);

export const isUserScope = (value: string): value is UserScope => USER_SCOPE_SET.has(value);

/** The `scope` of an authorization request: known user scopes only, folded, in the order of {@link USER_SCOPES}. */
export const parseUserScopeParam = (raw: string | undefined): Result<UserScope[], string> => {
  const words = (raw ?? "").split(" ").filter((w) => w.length > 0);
  if (words.length === 0) return fail("scope is required");
  const unknown = words.filter((w) => !isUserScope(w));
  if (unknown.length > 0) return fail(`unknown scope: ${unknown.join(" ").slice(0, 200)}`);
  const wanted = new Set(words);
  return ok(USER_SCOPES.filter((s) => wanted.has(s)));
};
