import type { OrganizationRef } from "../badges/mod.ts";
import { normalizeEmail } from "../badges/mod.ts";
import { forbidden, notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import { type BadgeView, earnerDecision, type IssuingContext, setPrivacy, type TemplateView } from "../issuing/mod.ts";
import { syncAccountConnections } from "../workforce/mod.ts";
import type { EarnerDeps } from "./context.ts";
import type { EarnerAccount } from "./ports.ts";
import { badgePageVisible, canDecide, idShaped, onPublicProfile, validVanity, walletOrder } from "./rules.ts";

export const updateName = async (
  deps: Pick<EarnerDeps, "store">,
  now: Date,
  account: EarnerAccount,
  input: { first_name: string; last_name: string },
): Promise<void> => {
  const first = input.first_name.trim();
  const last = input.last_name.trim();
  const errors = [
    ...(first === "" || first.length > 255 ? [{ field: "first_name", message: "must be 1 to 255 characters" }] : []),
    ...(last.length > 255 ? [{ field: "last_name", message: "must be at most 255 characters" }] : []),
  ];
  if (errors.length > 0) throw validationFailed("Check the name", errors);
  await deps.store.updateName(account.user.id, first, last, now);
};

export const updateProfile = async (
  deps: Pick<EarnerDeps, "store">,
  now: Date,
  account: EarnerAccount,
  input: { public_profile: boolean; vanity_name: string },
): Promise<void> => {
  const vanity = input.vanity_name.trim();
  if (vanity !== "" && !validVanity(vanity)) {
    throw validationFailed("Check the profile name", [
      {
        field: "vanity_name",
        message: "3 to 40 letters, digits or dashes, starting with a letter, not shaped like an id",
      },
    ]);
  }
  const result = await deps.store.updateProfile(account.user.id, input.public_profile, vanity || null, now);
  if (result === "taken")
    throw validationFailed("Check the profile name", [{ field: "vanity_name", message: "is taken" }]);
};

/**
 * Removes one of the account's addresses; the last one stays (an account needs a way in). An
 * employee record of that address is disassociated in the same transaction.
 */
export const removeEmail = async (
  deps: Pick<EarnerDeps, "store">,
  ctx: { now: Date; newEventId: () => string },
  account: EarnerAccount,
  email: string,
) => {
  const key = normalizeEmail(email);
  if (!account.user.emails.some((e) => normalizeEmail(e.email) === key)) throw notFound("E-mail address");
  if (account.user.emails.length < 2)
    throw validationFailed("An account keeps at least one address", [
      { field: "email", message: "is the account's only address" },
    ]);
  await deps.store.transaction(async (tx) => {
    await tx.removeEmail(account.user.id, key);
    await syncAccountConnections(tx.connections, ctx, account.user.id);
  });
};

/** The wallet: every badge of the account, pending first. */
export const walletBadges = async (deps: Pick<EarnerDeps, "store">, userId: string): Promise<BadgeView[]> =>
  (await deps.store.userBadges(userId)).sort(walletOrder);

const ownBadge = async (deps: EarnerDeps, account: EarnerAccount, badgeId: string): Promise<BadgeView> => {
  const view = await deps.issuing.store.getBadge(null, badgeId);
  if (!view || view.badge.user_id !== account.user.id) throw notFound("Badge");
  return view;
};

/** Accept or reject one's own pending badge, once its address is confirmed on the account. */
export const decideBadge = async (
  deps: EarnerDeps,
  ctx: IssuingContext,
  account: EarnerAccount,
  badgeId: string,
  decision: "accept" | "reject",
): Promise<BadgeView> => {
  const view = await ownBadge(deps, account, badgeId);
  if (!canDecide(view.badge, account.user))
    throw forbidden(`Confirm ${view.badge.recipient_email} on your account before deciding on this badge`);
  return earnerDecision(deps.issuing, ctx, badgeId, decision, account.user.id);
};

export const badgePrivacy = async (
  deps: EarnerDeps,
  ctx: IssuingContext,
  account: EarnerAccount,
  badgeId: string,
  isPublic: boolean,
): Promise<BadgeView> => {
  await ownBadge(deps, account, badgeId);
  return setPrivacy(deps.issuing, ctx, badgeId, isPublic, account.user.id);
};

/** A badge page's badge, or not found for anyone who may not see it (no existence leak). */
export const badgeForPage = async (
  deps: Pick<EarnerDeps, "issuing">,
  badgeId: string,
  viewerId: string | null,
): Promise<BadgeView> => {
  const view = await deps.issuing.store.getBadge(null, badgeId);
  if (!view || !badgePageVisible(view.badge, viewerId)) throw notFound("Badge");
  return view;
};

/**
 * The pending badge a notification link points at, for a visitor without a session: only when the
 * link's token matches the badge's stored keyed digest (compared in constant time). Otherwise
 * null, and the accept page names neither the recipient nor the badge: badge ids are not secret
 * (a public replaced badge links to its replacement), the mailed token is.
 */
export const badgeForAcceptLink = async (
  deps: Pick<EarnerDeps, "issuing">,
  badgeId: string,
  token: string | null,
): Promise<BadgeView | null> => {
  if (token === null || token === "") return null;
  const view = await deps.issuing.store.getBadge(null, badgeId);
  const stored = view?.badge.accept_token_digest ?? null;
  if (view?.badge.state !== "pending" || stored === null) return null;
  const tokens = deps.issuing.acceptTokens;
  return tokens.equal(tokens.digest(token), stored) ? view : null;
};

/** An organization's public page: the issuer and its active public templates. */
export const issuerPage = async (
  deps: Pick<EarnerDeps, "store">,
  organizationId: string,
): Promise<{ issuer: OrganizationRef; templates: TemplateView[] }> => {
  const issuer = orNotFound(await deps.store.getIssuer(organizationId), "Organization");
  const templates = await deps.store.issuerTemplates(organizationId);
  return { issuer, templates: templates.filter((t) => t.template.state === "active" && t.template.public) };
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An earner's public profile, or not found while it is off. Ids and vanity names are separate
 * namespaces: anything shaped like an id is looked up as an id only (an id-shaped vanity name,
 * which `validVanity` refuses, is never reached), anything else as a vanity name only.
 */
export const publicProfile = async (
  deps: Pick<EarnerDeps, "store">,
  idOrVanity: string,
): Promise<{ account: EarnerAccount; badges: BadgeView[] }> => {
  const account = idShaped(idOrVanity)
    ? UUID.test(idOrVanity)
      ? await deps.store.getAccount(idOrVanity.toLowerCase())
      : null
    : validVanity(idOrVanity)
      ? await deps.store.accountByVanity(idOrVanity)
      : null;
  if (!account?.public_profile || account.closed_at !== null) throw notFound("Profile");
  const badges = (await deps.store.userBadges(account.user.id)).filter((v) => onPublicProfile(v.badge));
  return { account, badges };
};
