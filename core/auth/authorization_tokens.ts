import { forbidden } from "../errors/mod.ts";
import { addSeconds, DAY_SECONDS } from "../shared/mod.ts";
import { type Credential, type Flags, flagsOf } from "./permissions.ts";

/** An authorization token lives 180 days unless rotated (docs/interface.md, Limits). */
export const AUTHORIZATION_TOKEN_LIFETIME_SECONDS = 180 * DAY_SECONDS;

/** An access token lives 7200 s (docs/interface.md, Limits). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 7200;

export const authorizationTokenExpiry = (createdAt: Date): Date =>
  addSeconds(createdAt, AUTHORIZATION_TOKEN_LIFETIME_SECONDS);

export interface FlagRequest {
  read_enabled?: boolean | undefined;
  write_enabled?: boolean | undefined;
  delete_enabled?: boolean | undefined;
}

/**
 * The flags of a new token: each flag asked for is granted only if the creator holds it (403
 * otherwise); a flag not asked for is inherited from the creator.
 */
export const newTokenFlags = (creator: Credential, requested: FlagRequest): Flags => {
  const ceiling = flagsOf(creator, "authorization_tokens");
  const result = { ...ceiling };
  for (const key of ["read_enabled", "write_enabled", "delete_enabled"] as const) {
    const wanted = requested[key];
    if (wanted === undefined) continue;
    if (wanted && !ceiling[key]) {
      throw forbidden(`Cannot create a token with ${key} when the requesting credential lacks it`);
    }
    result[key] = wanted;
  }
  return result;
};

/**
 * A credential that lacks write or delete permission sees only the read-only tokens,
 * so it never learns a value more powerful than itself.
 */
export const seesOnlyReadOnlyTokens = (creator: Credential): boolean => {
  const f = flagsOf(creator, "authorization_tokens");
  return !(f.write_enabled && f.delete_enabled);
};

export const isReadOnly = (flags: Flags): boolean => !flags.write_enabled && !flags.delete_enabled;

/** A stored token is usable when not revoked and not past its expiry. */
export const tokenUsable = (token: { expires_at: Date; revoked_at: Date | null }, now: Date): boolean =>
  token.revoked_at === null && token.expires_at.getTime() > now.getTime();

/** Rotation replaces the calling token, so only an authorization token can rotate. */
export const rotationCaller = (caller: Credential): { tokenId: string } => {
  if (caller.kind !== "authorization_token") {
    throw forbidden("Rotation replaces the calling authorization token; call it with HTTP Basic");
  }
  return { tokenId: caller.tokenId };
};

/**
 * The token value of an HTTP Basic credential's decoded `user:password` text: the token alone, the
 * token and a colon (the interface's form, an empty password) or the token and a trailing `|` (what
 * some clients written for this interface send) are the same credential. Anything else, a password
 * included, is no credential: token values hold neither `:` nor `|`.
 *
 * @example basicTokenValue("abc:") // "abc"
 * @example basicTokenValue("abc:secret") // null
 */
export const basicTokenValue = (decoded: string): string | null => {
  const last = decoded.at(-1);
  const value = last === ":" || last === "|" ? decoded.slice(0, -1) : decoded;
  return value.length === 0 || /[:|]/.test(value) ? null : value;
};
