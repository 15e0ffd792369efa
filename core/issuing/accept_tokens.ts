import type { AcceptTokens } from "./context.ts";

/**
 * How long a pending-badge mail's link signs its recipient in. The link proves control of the
 * recipient's mailbox as a sign-in link does, but it waits in that mailbox longer: after this it
 * still names the badge, and the recipient asks for a sign-in link as anyone does (or the issuer
 * resends the mail, which makes a new link).
 */
export const ACCEPT_LINK_SIGN_IN_MS = 14 * 24 * 3_600_000;

const MINTED = /^([0-9a-z]{10})[A-Za-z0-9_-]{20,}$/;

/**
 * A pending-badge link's token: when it was made (ten base-36 digits of milliseconds), then an
 * unguessable part, all in the base64url alphabet (links are found in mail by that alphabet). The
 * stored keyed digest covers the whole token, so its age cannot be changed without the token
 * failing to match.
 */
export const mintAcceptToken = (tokens: Pick<AcceptTokens, "newToken">, now: Date): string =>
  `${now.getTime().toString(36).padStart(10, "0")}${tokens.newToken()}`;

/** When an accept token was made, or null for one without its time (made before links signed in). */
export const acceptTokenMintedAt = (token: string): Date | null => {
  const m = MINTED.exec(token);
  return m ? new Date(Number.parseInt(m[1] as string, 36)) : null;
};

/** The processes of one deployment may disagree on the time by this much: a token made "later" than now by less is fine. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Whether an accept token's time is one a process of this deployment could have given it by `now`. */
export const acceptTokenFromThePast = (minted: Date, now: Date): boolean =>
  minted.getTime() <= now.getTime() + CLOCK_SKEW_MS;

/** Whether a pending-badge link still signs its recipient in at `now`. */
export const acceptLinkSignsIn = (token: string, now: Date): boolean => {
  const minted = acceptTokenMintedAt(token);
  if (minted === null || !acceptTokenFromThePast(minted, now)) return false;
  return now.getTime() - minted.getTime() < ACCEPT_LINK_SIGN_IN_MS;
};
