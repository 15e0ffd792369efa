import type { BadgeState } from "./badge_state.ts";

/** Where a badge shows: its page, the earner's public profile, its hosted records, its baked image. */
export type BadgeSurface = "page" | "profile" | "records" | "baked";

/** A hosted record's answer: served, gone (revoked: 410 with the revocation), or as if it never existed. */
export type RecordAnswer = "served" | "gone" | "not_found";

/**
 * Who sees a badge where, by its state, while it is public: the one table every surface reads.
 * - Pending and rejected were never awarded in the earner's eyes: nowhere in public.
 * - Revoked keeps its page (saying so) and answers its records with 410, which is how OB 2.0
 *   verifiers learn of a revocation; it leaves the profile and has no record worth baking.
 * - Replaced stays served: the earner did earn it, the replacement is another record, and a 410
 *   would make verifiers report a revocation that never happened.
 */
export const PUBLIC_VISIBILITY = {
  pending: { page: false, profile: false, records: "not_found", baked: false },
  accepted: { page: true, profile: true, records: "served", baked: true },
  rejected: { page: false, profile: false, records: "not_found", baked: false },
  revoked: { page: true, profile: false, records: "gone", baked: false },
  replaced: { page: true, profile: false, records: "served", baked: true },
} as const satisfies Record<BadgeState, { page: boolean; profile: boolean; records: RecordAnswer; baked: boolean }>;

type Visible = { state: BadgeState; public: boolean; user_id: string | null };

/**
 * Whether `viewerId` (null: anyone) sees the badge on `surface`. A private badge is hidden from
 * everyone but its earner, who sees its page in every state (to accept it, or see why not) and its
 * baked image while it carries a record; its hosted records stay hidden even from them, since they
 * are what a verifier reads and the evidence in them is the earner's to withhold.
 */
export const badgeVisibleOn = (surface: Exclude<BadgeSurface, "records">, badge: Visible, viewerId: string | null) => {
  const own = viewerId !== null && badge.user_id === viewerId;
  if (surface === "page" && own) return true;
  if (surface === "baked" && own) return PUBLIC_VISIBILITY[badge.state].baked;
  return badge.public && PUBLIC_VISIBILITY[badge.state][surface];
};

/** A hosted record's answer, the same to everyone: a private badge's records do not exist publicly. */
export const recordAnswer = (badge: { state: BadgeState; public: boolean }): RecordAnswer =>
  badge.public ? PUBLIC_VISIBILITY[badge.state].records : "not_found";
