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
 * Reads the space-separated `scope` parameter (RFC 6749 §3.3) against `known`: it must name at
 * least one scope, all of them known; duplicates are folded and the result keeps the order of
 * `known`. `echoed` caps how much of the unknown names the message repeats.
 */
export const parseScopeWords = <S extends string>(
  known: readonly S[],
  raw: string | undefined,
  echoed = Number.POSITIVE_INFINITY,
): Result<S[], string> => {
  const words = (raw ?? "").split(" ").filter((w) => w.length > 0);
  if (words.length === 0) return fail("scope is required");
  const knownSet: ReadonlySet<string> = new Set(known);
  const unknown = words.filter((w) => !knownSet.has(w));
  if (unknown.length > 0) return fail(`unknown scope: ${unknown.join(" ").slice(0, echoed)}`);
  const wanted = new Set(words);
  return ok(known.filter((s) => wanted.has(s)));
};

/** The organization scopes a `scope` parameter names, in the order of {@link SCOPES}. */
export const parseScopeParam = (raw: string | undefined): Result<Scope[], string> => parseScopeWords(SCOPES, raw);

export const formatScopes = (scopes: readonly Scope[]): string => scopes.join(" ");
