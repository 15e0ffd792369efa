import { fail, forbidden, ok, type Result } from "../errors/mod.ts";
import { ALL_FLAGS, type Credential, type Flags } from "./permissions.ts";
import { SCOPES, type Scope } from "./scopes.ts";

/**
 * The most an OAuth application may ever do: the flags of the credential that created it and,
 * when an access token created it, that token's scopes (`null`: every scope). An application
 * cannot outgrow its creator, so a credential cannot climb through an application it makes.
 */
export interface Ceiling {
  flags: Flags;
  scopes: readonly Scope[] | null;
}

export const FULL_CEILING: Ceiling = { flags: ALL_FLAGS, scopes: null };

const isFull = (flags: Flags): boolean => flags.read_enabled && flags.write_enabled && flags.delete_enabled;

/** The ceiling an application gets from the credential creating it. */
export const ceilingOf = (creator: Credential): Ceiling =>
  creator.kind === "authorization_token"
    ? {
        flags: {
          read_enabled: creator.read_enabled,
          write_enabled: creator.write_enabled,
          delete_enabled: creator.delete_enabled,
        },
        scopes: null,
      }
    : { flags: { ...creator.ceiling }, scopes: [...creator.scopes] };

/**
 * The scopes an application with this ceiling may be granted. `authorization_tokens` mints and
 * reveals credentials, and a new token inherits all its creator's flags, so it is within a ceiling
 * only when that ceiling holds all three flags: a lesser creator sees only read-only token values
 * and must not reach the others through an application.
 */
export const scopesWithinCeiling = (ceiling: Ceiling): Scope[] =>
  SCOPES.filter(
    (s) =>
      (ceiling.scopes === null || ceiling.scopes.includes(s)) &&
      (s !== "authorization_tokens" || isFull(ceiling.flags)),
  );

/** What an application may be granted: its explicit `scopes` list, if any, within its ceiling. */
export const allowedScopes = (app: { ceiling: Ceiling; scopes: readonly Scope[] | null }): Scope[] => {
  const within = scopesWithinCeiling(app.ceiling);
  return app.scopes === null ? within : within.filter((s) => app.scopes?.includes(s));
};

/** The scopes asked for at the token endpoint, when every one is allowed; otherwise those that are not. */
export const grantScopes = (requested: readonly Scope[], allowed: readonly Scope[]): Result<Scope[], Scope[]> => {
  const refused = requested.filter((s) => !allowed.includes(s));
  return refused.length === 0 ? ok([...requested]) : fail(refused);
};

/**
 * An explicit scope list set on an application must lie within its ceiling and within what the
 * caller setting it could be granted itself (403 otherwise, like a token's flags).
 */
export const checkScopeList = (scopes: readonly Scope[], ceiling: Ceiling, caller: Credential): Scope[] => {
  const callerMay = scopesWithinCeiling(ceilingOf(caller));
  const appMay = scopesWithinCeiling(ceiling);
  const outside = scopes.filter((s) => !appMay.includes(s) || !callerMay.includes(s));
  if (outside.length > 0) throw forbidden(`Scopes beyond this application's ceiling: ${outside.join(" ")}`);
  return SCOPES.filter((s) => scopes.includes(s));
};
