import type { HeldBadge } from "../../core/workforce/mod.ts";
import { BADGE_FROM, type BadgeJoinRow, badgeViewOf } from "./badge_rows.ts";
import type { Queryable } from "./sql.ts";

/**
 * Reads shared by the employee and connection stores: who owns an address, and what an account
 * holds, each for many at once.
 */

/** The open accounts owning these normalized addresses confirmed. */
export const confirmedOwners = async (q: Queryable, keys: string[]): Promise<Map<string, string>> => {
  if (keys.length === 0) return new Map();
  const found = await q.all<{ email_key: string; user_id: string }>(
    `select ue.email_key, ue.user_id from user_emails ue join users u on u.id = ue.user_id
     where ue.confirmed and u.closed_at is null and ue.email_key in (select jsonb_array_elements_text(?::jsonb))`,
    [JSON.stringify(keys)],
  );
  return new Map(found.map((r) => [r.email_key, r.user_id] as const));
};

/** The badges held by each of these accounts. */
export const heldBadgesOf = async (q: Queryable, userIds: string[]): Promise<Map<string, HeldBadge[]>> => {
  const out = new Map<string, HeldBadge[]>();
  if (userIds.length === 0) return out;
  const found = await q.all<BadgeJoinRow>(
    `${BADGE_FROM} where b.user_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)
     order by b.issued_at desc, b.id desc`,
    [JSON.stringify(userIds)],
  );
  for (const row of found) {
    const view = badgeViewOf(row);
    const userId = view.badge.user_id as string;
    out.set(userId, [...(out.get(userId) ?? []), view]);
  }
  return out;
};
