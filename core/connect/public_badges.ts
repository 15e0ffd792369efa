import type { BadgeStandardShape } from "../badges/mod.ts";
import { type EventRecord, type PublicBadgesEventType, publicBadgesEvent } from "../events/mod.ts";

/** What decides whether a connected organization sees a badge through `public_badges`. */
export interface BadgeVisibility {
  state: string;
  public: boolean;
  user_id: string | null;
}

/** Seen through the connect feature: the earner's own badge, accepted and public (as on their profile). */
export const visibleToConnected = (b: BadgeVisibility | null): boolean =>
  b !== null && b.user_id !== null && b.public && b.state === "accepted";

/**
 * The event a connected organization receives when one badge goes from `before` to `after`
 * (null: not there, i.e. issued or deleted): `added` when it becomes visible, `removed` when it
 * stops being visible, `changed` when it stays visible but its shape changed, nothing otherwise.
 */
export const publicBadgesEventFor = (
  before: BadgeVisibility | null,
  after: BadgeVisibility | null,
  shapeChanged: boolean,
): PublicBadgesEventType | null => {
  const was = visibleToConnected(before);
  const is = visibleToConnected(after);
  if (!was && is) return "user.public_badges.added";
  if (was && !is) return "user.public_badges.removed";
  if (was && is && (shapeChanged || before?.user_id !== after?.user_id)) return "user.public_badges.changed";
  return null;
};

/** One event per connected organization, each with its own id. */
export const publicBadgesEvents = (
  kind: PublicBadgesEventType,
  userId: string,
  badge: BadgeStandardShape,
  organizations: readonly string[],
  ctx: { now: Date; newEventId: () => string },
): EventRecord[] =>
  organizations.map((organization_id) =>
    publicBadgesEvent(kind, userId, badge, { id: ctx.newEventId(), organization_id, occurred_at: ctx.now }),
  );
