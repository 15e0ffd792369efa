import type { Result } from "../errors/mod.ts";
import { parseScopeWords } from "./scopes.ts";

/** The scopes an earner grants an organization's application through the authorization code flow. */
export const USER_SCOPES = ["profile", "public_badges"] as const;

export type UserScope = (typeof USER_SCOPES)[number];

const USER_SCOPE_SET: ReadonlySet<string> = new Set(USER_SCOPES);

export const isUserScope = (value: string): value is UserScope => USER_SCOPE_SET.has(value);

/** The `scope` of an authorization request: known user scopes only, folded, in the order of {@link USER_SCOPES}. */
export const parseUserScopeParam = (raw: string | undefined): Result<UserScope[], string> =>
  parseScopeWords(USER_SCOPES, raw, 200);
