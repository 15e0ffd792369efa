import { parseScopeWords } from "../auth/mod.ts";
import type { Result } from "../errors/mod.ts";

const BASE = "https://purl.imsglobal.org/spec/ob/v3p0/scope/";

/** The Open Badges API's scopes, in the order grants and responses list them. */
export const OB_SCOPES = [
  `${BASE}credential.readonly`,
  `${BASE}credential.upsert`,
  `${BASE}profile.readonly`,
  `${BASE}profile.update`,
] as const;

export type ObScope = (typeof OB_SCOPES)[number];

export const OB_SCOPE = {
  credentialRead: OB_SCOPES[0],
  credentialUpsert: OB_SCOPES[1],
  profileRead: OB_SCOPES[2],
  profileUpdate: OB_SCOPES[3],
} as const;

/** The specification's description of each scope, as the service description document gives it. */
export const OB_SCOPE_DESCRIPTIONS: Record<ObScope, string> = {
  [OB_SCOPE.credentialRead]: "Permission to read AchievementCredentials for the authenticated entity.",
  [OB_SCOPE.credentialUpsert]: "Permission to create or update AchievementCredentials for the authenticated entity.",
  [OB_SCOPE.profileRead]: "Permission to read the profile for the authenticated entity.",
  [OB_SCOPE.profileUpdate]: "Permission to update the profile for the authenticated entity.",
};

/** What an earner is asked to allow, in plain words, on the consent page. */
export const OB_SCOPE_PLAIN: Record<ObScope, string> = {
  [OB_SCOPE.credentialRead]: "Read the badges you accepted, as signed Open Badges credentials",
  [OB_SCOPE.credentialUpsert]: "Add badges from other issuers to your wallet (Laurel checks each one)",
  [OB_SCOPE.profileRead]: "Read your name and your Open Badges identifier",
  [OB_SCOPE.profileUpdate]: "Change the name on your Laurel account",
};

/**
 * Clients built for the specification's examples also ask for `offline_access`: Laurel gives a
 * refresh token with every grant, so the word is accepted and dropped.
 */
const OFFLINE_ACCESS = "offline_access";

/** The Open Badges scopes a `scope` parameter names, in the order of {@link OB_SCOPES}. */
export const parseObScopeParam = (raw: string | undefined): Result<ObScope[], string> =>
  parseScopeWords(
    OB_SCOPES,
    (raw ?? "")
      .split(" ")
      .filter((w) => w !== OFFLINE_ACCESS)
      .join(" "),
    300,
  );
