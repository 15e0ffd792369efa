import type { BadgeListQuery } from "../badges/mod.ts";
import { badRequest } from "../errors/mod.ts";
import type { IssuingDeps } from "./context.ts";
import type { BadgeView } from "./ports.ts";

/**
 * The feed's cursor: where the last page ended, opaque to clients. It holds the last badge's id
 * (ids are UUIDv7, so id order is issue order and a page is one index seek past it).
 */
const CURSOR = /^c1([0-9a-f]{32})$/;

export const feedCursor = (badgeId: string): string => `c1${badgeId.replace(/-/g, "")}`;

const cursorId = (cursor: string): string => {
  const hex = CURSOR.exec(cursor)?.[1];
  if (!hex) throw badRequest("The cursor is invalid", [{ field: "cursor", message: "is not a cursor this feed gave" }]);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export interface FeedPage {
  items: BadgeView[];
  /** The cursor of the next page; null when this page reached the end. */
  next: string | null;
}

/**
 * One page (`per` badges) of every badge of the organization matching the list filters, oldest
 * issued first, from after `cursor` (null: the start). One more row than a page is read to know whether
 * another page follows, so the last page says so without a count.
 */
export const searchIssuedBadges = async (
  deps: IssuingDeps,
  organizationId: string,
  query: Pick<BadgeListQuery, "filters">,
  cursor: string | null,
  per: number,
): Promise<FeedPage> => {
  const after = cursor === null ? null : cursorId(cursor);
  const rows = await deps.store.badgeFeed(organizationId, query, after, per + 1);
  const items = rows.slice(0, per);
  const last = items[items.length - 1];
  return { items, next: rows.length > per && last ? feedCursor(last.badge.id) : null };
};
