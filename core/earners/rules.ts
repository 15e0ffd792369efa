import { type BadgeRecord, badgeVisibleOn, normalizeEmail } from "../badges/mod.ts";
import type { BadgeView, UserRecord } from "../issuing/mod.ts";
import { obiTemplateVisibility, obiVisibility } from "../obi/mod.ts";
import type { EarnerLink, EarnerSession } from "./ports.ts";

/** A mailed link works for 15 minutes, once. */
export const LINK_TTL_MS = 15 * 60_000;
/** A session lasts 30 days from sign-in, unless signed out (or out everywhere) before. */
export const SESSION_TTL_MS = 30 * 24 * 3_600_000;

/**
 * Mailed links are limited per address (no one can flood an inbox) and per client (no one can
 * probe many addresses), over the link's own lifetime.
 */
export const LINK_LIMITS = { perAddress: 5, perClient: 20, windowMs: LINK_TTL_MS } as const;

export const linkRequestAllowed = (recent: { address: number; client: number }): boolean =>
  recent.address < LINK_LIMITS.perAddress && recent.client < LINK_LIMITS.perClient;

export type LinkCheck = "ok" | "unknown" | "used" | "expired";

export const checkLink = (link: EarnerLink | null, now: Date): LinkCheck => {
  if (link === null) return "unknown";
  if (link.used_at !== null) return "used";
  return link.expires_at.getTime() <= now.getTime() ? "expired" : "ok";
};

export const sessionActive = (session: EarnerSession | null, now: Date): session is EarnerSession =>
  session !== null && session.revoked_at === null && session.expires_at.getTime() > now.getTime();

/**
 * `next` after a sign-in: a path inside Laurel only. `//host` and `/\host` are read by browsers as
 * another origin, and control characters could split a header.
 */
export const safeNext = (next: string | null | undefined): string | null => {
  if (typeof next !== "string" || next.length === 0 || next.length > 500) return null;
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return null;
  return next;
};

/** Vanity names: 3-40 letters, digits and dashes, starting with a letter. */
export const VANITY_PATTERN = /^[a-z][a-z0-9-]{2,39}$/i;
/**
 * Shaped like an account id: a UUID (one that starts with a-f fits the vanity pattern), with or
 * without its dashes. `/users/<x>` reads such a name as an id, so it can never be a vanity name.
 */
const ID_SHAPED = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
export const idShaped = (name: string): boolean => ID_SHAPED.test(name);
export const validVanity = (name: string): boolean => VANITY_PATTERN.test(name) && !idShaped(name);

/**
 * Who may see a badge's page. The public sees it only while it is public and was accepted (it
 * stays visible once revoked or replaced, so a verifier learns of that); the earner it belongs
 * to also sees it pending (to accept it), private or rejected. Everyone else gets the same 404
 * as for an id that never existed.
 */
export const badgePageVisible = (badge: BadgeRecord, viewerId: string | null): boolean =>
  badgeVisibleOn("page", badge, viewerId);

/** Shown on the public profile: public badges the earner accepted and still holds. */
export const onPublicProfile = (badge: BadgeRecord): boolean => badgeVisibleOn("profile", badge, null);

export type BadgeStatus =
  | { kind: "valid" | "expired" | "pending" | "rejected" }
  | { kind: "revoked"; reason: string }
  | { kind: "replaced"; replacement_id: string | null };

export const badgeStatus = (badge: BadgeRecord, now: Date): BadgeStatus => {
  switch (badge.state) {
    case "revoked":
      return { kind: "revoked", reason: badge.revocation_reason ?? "" };
    case "replaced":
      return { kind: "replaced", replacement_id: badge.replacement_badge_id };
    case "pending":
    case "rejected":
      return { kind: badge.state };
    case "accepted":
      return { kind: badge.expires_at !== null && badge.expires_at.getTime() <= now.getTime() ? "expired" : "valid" };
  }
};

export interface VerifyCheck {
  name: "record" | "issuer" | "badge_class" | "not_revoked" | "not_expired";
  ok: boolean;
}

/** What a verifier checks of the hosted record, from a fresh read of the badge. */
export const verifyChecks = (view: BadgeView, now: Date): VerifyCheck[] => [
  { name: "record", ok: obiVisibility(view.badge) !== "not_found" },
  { name: "issuer", ok: view.issuer.id === view.badge.organization_id },
  { name: "badge_class", ok: obiTemplateVisibility(view.template.state) === "served" },
  { name: "not_revoked", ok: view.badge.state !== "revoked" },
  { name: "not_expired", ok: view.badge.expires_at === null || view.badge.expires_at.getTime() > now.getTime() },
];

/**
 * The earner may accept or reject a badge only once the address it was sent to is a confirmed
 * address of their account: following a sign-in link confirms the address it was mailed to.
 */
export const canDecide = (badge: BadgeRecord, user: UserRecord): boolean => {
  const key = normalizeEmail(badge.recipient_email);
  return badge.user_id === user.id && user.emails.some((e) => e.confirmed && normalizeEmail(e.email) === key);
};

/** Pending badges first (they wait for a decision), then newest first. */
export const walletOrder = (a: BadgeView, b: BadgeView): number => {
  const pa = a.badge.state === "pending" ? 0 : 1;
  const pb = b.badge.state === "pending" ? 0 : 1;
  if (pa !== pb) return pa - pb;
  return b.badge.issued_at.getTime() - a.badge.issued_at.getTime() || (a.badge.id < b.badge.id ? 1 : -1);
};
