import { badgeStandardShape, normalizeEmail } from "../badges/mod.ts";
import { mergeConnectEvents } from "../connect/mod.ts";
import { CoreError, fail, ok, type Result } from "../errors/mod.ts";
import { accountMergedEvent } from "../events/mod.ts";
import {
  acceptLinkSignsIn,
  acceptTokenFromThePast,
  acceptTokenMintedAt,
  eventContext,
  newUserRecord,
} from "../issuing/mod.ts";
import { followBadgeChange, syncAccountConnections } from "../workforce/mod.ts";
import type { EarnerContext, EarnerDeps } from "./context.ts";
import type { EarnerAccount, EarnerLink, EarnerTx, LinkPurpose } from "./ports.ts";
import {
  checkLink,
  LINK_LIMITS,
  LINK_TTL_MS,
  linkRequestAllowed,
  SESSION_TTL_MS,
  safeNext,
  sessionActive,
} from "./rules.ts";

/**
 * Makes a single-use link for `email` and returns its token to be mailed (only its digest is
 * stored). Known and unknown addresses are treated alike, so the answer reveals nothing.
 */
export const requestLink = async (
  deps: Pick<EarnerDeps, "store" | "digest">,
  ctx: Pick<EarnerContext, "now" | "newToken">,
  input: { purpose: LinkPurpose; email: string; userId?: string | null; next?: string | null; client?: string | null },
): Promise<{ token: string; link: EarnerLink }> => {
  const email = input.email.trim();
  const clientKey = input.client ? deps.digest(input.client) : null;
  const since = new Date(ctx.now.getTime() - LINK_LIMITS.windowMs);
  if (!linkRequestAllowed(await deps.store.recentLinks(normalizeEmail(email), clientKey, since)))
    throw new CoreError("rate_limited", "Too many links were asked for; wait a few minutes and try again");
  const token = ctx.newToken();
  const link: EarnerLink = {
    token_hash: deps.digest(token),
    purpose: input.purpose,
    email,
    email_key: normalizeEmail(email),
    user_id: input.userId ?? null,
    next_path: safeNext(input.next),
    client_key: clientKey,
    created_at: ctx.now,
    expires_at: new Date(ctx.now.getTime() + LINK_TTL_MS),
    used_at: null,
  };
  await deps.store.insertLink(link);
  return { token, link };
};

/** Why a link was not used: the page says which, so these are outcomes, not errors. */
export type LinkRefusal =
  | "unknown"
  | "used"
  | "expired"
  | "wrong_account"
  | "email_taken"
  | "no_account"
  | "account_closed";

export interface RedeemedLink {
  purpose: LinkPurpose;
  userId: string;
  email: string;
  session: string | null;
  next: string | null;
}

export type Redeemed = Result<RedeemedLink, LinkRefusal>;

/**
 * Uses a mailed link once. A sign-in link confirms its address (making the account when there
 * is none) and opens a session. A link that acts for an account (adding an address, merging) works
 * only in that account's own signed-in session: whoever holds the mailbox proves control of the
 * address, and the session proves it is the same person who asked. An add-address link confirms
 * the address on that account; a merge link merges the account owning the address into it. A
 * link whose account has been closed (merged away) meanwhile is refused. `sessionUserId`: who is
 * signed in in this browser, if anyone.
 */
export const redeemLink = async (
  deps: EarnerDeps,
  ctx: EarnerContext,
  token: string,
  sessionUserId: string | null,
): Promise<Redeemed> => {
  const hash = deps.digest(token);
  return deps.store.transaction(async (tx): Promise<Redeemed> => {
    const link = await tx.lockLink(hash);
    const check = checkLink(link, ctx.now);
    if (check !== "ok" || link === null) return fail(check === "ok" ? "unknown" : check);
    if (link.purpose !== "sign_in" && (link.user_id === null || link.user_id !== sessionUserId))
      return fail("wrong_account");
    let owner = await tx.ownerOf(link.email_key);
    if (link.user_id !== null) {
      // Both accounts a merge touches are locked before anything is read for it, so two merges of
      // the same accounts in opposite directions run one after the other, and the second finds
      // its account closed; read again after the lock, since a merge may have moved the address.
      const ids = owner !== null ? [link.user_id, owner.user_id] : [link.user_id];
      const locked = await tx.lockAccounts(ids);
      const requester = locked.find((a) => a.id === link.user_id);
      if (requester === undefined || requester.closed_at !== null) return fail("account_closed");
      owner = await tx.ownerOf(link.email_key);
      if (link.purpose === "merge" && owner !== null && owner.user_id !== link.user_id) {
        const source = locked.find((a) => a.id === owner?.user_id);
        if (source === undefined || source.closed_at !== null) return fail("account_closed");
      }
    }
    if (link.purpose === "add_email" && owner !== null && owner.user_id !== link.user_id) return fail("email_taken");
    if (link.purpose === "merge" && (owner === null || owner.user_id === link.user_id)) return fail("no_account");
    await tx.markLinkUsed(hash, ctx.now);
    let userId: string;
    if (link.purpose === "merge") {
      const source = (owner as { user_id: string }).user_id;
      userId = link.user_id as string;
      const connected = {
        source,
        destination: userId,
        sourceOrganizations: await tx.connectedOrganizations([source]),
        destinationOrganizations: await tx.connectedOrganizations([userId]),
      };
      // Issuers of either account's badges, and organizations either account connected to.
      const organizations = [
        ...new Set([
          ...(await tx.organizationsHoldingBadges([source, userId])),
          ...connected.sourceOrganizations,
          ...connected.destinationOrganizations,
        ]),
      ].sort();
      const moved = await tx.connections.heldBadges(source);
      await tx.mergeAccounts(source, userId, ctx.now);
      await tx.revokeSessions(source, ctx.now);
      await tx.endLinks(source, ctx.now);
      // A grant was consent to the merged-away account's badges, not to those it joins.
      await tx.endGrants(source, ctx.now);
      // The merged-away account's records leave it; the addresses it brought associate them again here.
      await syncAccountConnections(tx.connections, ctx, source);
      await syncAccountConnections(tx.connections, ctx, userId);
      // The employers connected to this account now see the moved badges too.
      for (const held of moved) {
        const after = { ...held, badge: { ...held.badge, user_id: userId } };
        await followBadgeChange(tx.connections, ctx, deps.issuing.urls, held, after);
      }
      const shaped = moved.map((v) => ({
        visibility: v.badge,
        shape: badgeStandardShape(v.badge, v.template, v.issuer, deps.issuing.urls, v.authorizedIssuer),
      }));
      await tx.appendEvents([
        ...organizations.map((org) =>
          accountMergedEvent({ source_user_id: source, destination_user_id: userId }, eventContext(ctx, org)),
        ),
        ...mergeConnectEvents(connected, shaped, ctx),
      ]);
      return ok({ purpose: link.purpose, userId, email: link.email, session: null, next: "/account" });
    }
    if (link.purpose === "add_email") {
      userId = owner?.user_id ?? (link.user_id as string);
      await confirmAddress(tx, ctx, userId, link.email, link.email_key);
      return ok({ purpose: link.purpose, userId, email: link.email, session: null, next: "/account" });
    }
    return ok(await signInAddress(deps, ctx, tx, link.email, link.email_key, link.next_path));
  });
};

/** The address is confirmed on the account: badges sent to it join it, employee records follow it. */
const confirmAddress = async (tx: EarnerTx, ctx: EarnerContext, userId: string, email: string, emailKey: string) => {
  await tx.confirmEmail(userId, email, emailKey, ctx.now);
  await tx.linkBadges(userId, [emailKey], ctx.now);
  await syncAccountConnections(tx.connections, ctx, userId);
};

/**
 * Whoever proved control of the address is signed in: into the account owning it, or into a new
 * one made for it (named as the latest badge sent to it), the address confirmed, a session opened.
 */
const signInAddress = async (
  deps: EarnerDeps,
  ctx: EarnerContext,
  tx: EarnerTx,
  email: string,
  emailKey: string,
  next: string | null,
): Promise<RedeemedLink> => {
  const owner = await tx.ownerOf(emailKey);
  let userId: string;
  if (owner !== null) userId = owner.user_id;
  else {
    const name = (await tx.latestRecipientName(emailKey)) ?? {
      first_name: email.split("@")[0] || email,
      last_name: "",
    };
    const user = newUserRecord({ email, ...name }, { id: ctx.newId(), now: ctx.now });
    await tx.insertUser(user, [emailKey]);
    userId = user.id;
  }
  await confirmAddress(tx, ctx, userId, email, emailKey);
  const session = ctx.newToken();
  await tx.insertSession({
    token_hash: deps.digest(session),
    user_id: userId,
    created_at: ctx.now,
    expires_at: new Date(ctx.now.getTime() + SESSION_TTL_MS),
    revoked_at: null,
  });
  return { purpose: "sign_in", userId, email, session, next };
};

/**
 * Signs a pending badge's recipient in from the badge's notification link, with no second mail:
 * the link's token was mailed to the badge's recipient address alone, so holding it proves control
 * of that mailbox as a sign-in link does. The same protections hold: a button press uses it (the
 * route takes a POST with the form's CSRF token, so a mail scanner fetching the link uses nothing);
 * it works once (the badge forgets the digest as the session opens, under the badge's row lock, so
 * two presses cannot both sign in); for `ACCEPT_LINK_SIGN_IN_MS` from when it was made (its time is
 * inside the token, under the stored digest); only while the badge is pending; and only ever for
 * the badge's recipient address, whoever is signed in in the browser. It lands on the badge.
 */
export const redeemBadgeLink = async (
  deps: EarnerDeps,
  ctx: EarnerContext,
  badgeId: string,
  token: string,
): Promise<Redeemed> => {
  const minted = acceptTokenMintedAt(token);
  // A time to come was never minted here: the token is not one of ours.
  if (minted === null || !acceptTokenFromThePast(minted, ctx.now)) return fail("unknown");
  if (!acceptLinkSignsIn(token, ctx.now)) return fail("expired");
  const tokens = deps.issuing.acceptTokens;
  const digest = tokens.digest(token);
  return deps.store.transaction(async (tx): Promise<Redeemed> => {
    const badge = await tx.lockBadgeLink(badgeId);
    if (badge === null) return fail("unknown");
    if (badge.accept_token_digest === null || badge.state !== "pending") return fail("used");
    if (!tokens.equal(digest, badge.accept_token_digest)) return fail("unknown");
    await tx.endBadgeLink(badgeId);
    const email = badge.recipient_email.trim();
    return ok(await signInAddress(deps, ctx, tx, email, normalizeEmail(email), `/badges/${badgeId}`));
  });
};

/** The signed-in account of a session token, or null (unknown, revoked, expired, account closed). */
export const sessionAccount = async (
  deps: Pick<EarnerDeps, "store" | "digest">,
  now: Date,
  token: string | undefined,
): Promise<EarnerAccount | null> => {
  if (!token) return null;
  const session = await deps.store.getSession(deps.digest(token));
  if (!sessionActive(session, now)) return null;
  const account = await deps.store.getAccount(session.user_id);
  return account && account.closed_at === null ? account : null;
};

export const signOut = (deps: Pick<EarnerDeps, "store" | "digest">, now: Date, token: string): Promise<void> =>
  deps.store.revokeSession(deps.digest(token), now);

/** Ends every session of the account, in every browser. */
export const signOutEverywhere = (deps: Pick<EarnerDeps, "store">, now: Date, userId: string): Promise<void> =>
  deps.store.revokeSessions(userId, now);
