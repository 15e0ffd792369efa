import type { BadgeStandardShape } from "../badges/mod.ts";
import {
  connectAccessRemovedEvent,
  type EventRecord,
  type PublicBadgesEventType,
  publicBadgesEvent,
} from "../events/mod.ts";

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
 * A badge changing hands (a merge) is `mergeConnectEvents`'s: removed for one earner, added for the other.
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
  if (was && is && shapeChanged) return "user.public_badges.changed";
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

/** A badge whose template was edited: its shape before and after, and who its holder connected. */
export interface RetemplatedBadge {
  visibility: BadgeVisibility;
  before: BadgeStandardShape;
  after: BadgeStandardShape;
  organizations: readonly string[];
}

/**
 * A template edit: `changed` for each visible badge whose shape the edit changed (its name,
 * description, image or skills), to each organization connected to the badge's holder; nothing
 * for edits a badge's shape does not show (state, slug, settings) nor for badges nobody sees.
 */
export const templateChangeEvents = (
  badges: readonly RetemplatedBadge[],
  ctx: { now: Date; newEventId: () => string },
): EventRecord[] =>
  badges.flatMap((b) => {
    const differs = JSON.stringify(b.before) !== JSON.stringify(b.after);
    const kind = publicBadgesEventFor(b.visibility, b.visibility, differs);
    const holder = b.visibility.user_id;
    return kind && holder ? publicBadgesEvents(kind, holder, b.after, b.organizations, ctx) : [];
  });

/** The accounts of a merge and the organizations each had granted access (active grants, before it). */
export interface MergeConnections {
  source: string;
  destination: string;
  sourceOrganizations: readonly string[];
  destinationOrganizations: readonly string[];
}

/**
 * What a merge tells connected organizations. The merged-away account's grants end with it: each
 * organization it had connected stops seeing its visible badges (`removed`, its user id) and loses
 * access (`user.connect_access.removed`). Those badges now belong to the surviving account, so each
 * organization it had connected starts seeing them (`added`, its user id). An organization
 * connected to both gets both sides. The surviving account's own badges change for nobody, and no
 * organization gains the surviving account's badges through a grant given to the other account.
 */
export const mergeConnectEvents = (
  merge: MergeConnections,
  moved: readonly { visibility: BadgeVisibility; shape: BadgeStandardShape }[],
  ctx: { now: Date; newEventId: () => string },
): EventRecord[] => {
  const visible = moved.filter((b) => visibleToConnected(b.visibility));
  const removed = visible.flatMap((b) =>
    publicBadgesEvents("user.public_badges.removed", merge.source, b.shape, merge.sourceOrganizations, ctx),
  );
  const accessEnded = merge.sourceOrganizations.map((organization_id) =>
    connectAccessRemovedEvent(merge.source, { id: ctx.newEventId(), organization_id, occurred_at: ctx.now }),
  );
  const added = visible.flatMap((b) =>
    publicBadgesEvents("user.public_badges.added", merge.destination, b.shape, merge.destinationOrganizations, ctx),
  );
  return [...removed, ...accessEnded, ...added];
};
