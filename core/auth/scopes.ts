import { fail, ok, type Result } from "../errors/mod.ts";

/** The organization scopes (docs/interface.md, Authentication). Each also names the resource family it guards. */
export const SCOPES = [
  "authorization_tokens",
  "badge_templates",
  "events",
  "invitations",
  "issued_badges",
  "memberships",
  "oauth_applications",
  "pathways",
  "recommendations",
  "workforce",
] as const;

export type Scope = (typeof SCOPES)[number];

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export const isScope = (value: string): value is Scope => SCOPE_SET.has(value);

/**
 * Parses the space-separated `scope` parameter (RFC 6749 §3.3). It must name at least one scope,
 * all of them known; duplicates are folded and the result keeps the order of {@link SCOPES}.
 */
export const parseScopeParam = (raw: string | undefined): Result<Scope[], string> => {
  const words = (raw ?? "").split(" ").filter((w) => w.length > 0);
  if (words.length === 0) return fail("scope is required");
  const unknown = words.filter((w) => !isScope(w));
  if (unknown.length > 0) return fail(`unknown scope: ${unknown.join(" ")}`);
  const wanted = new Set(words);
  return ok(SCOPES.filter((s) => wanted.has(s)));
};

export const formatScopes = (scopes: readonly Scope[]): string => scopes.join(" ");
