import { STATUS_LIST_SIZE, type StatusListStore } from "../../core/obi/mod.ts";
import type { Queryable } from "./sql.ts";

/**
 * The set bits of one status list, in one statement: the indexes of the organization's revoked
 * badges and of its deleted ones (`badge_status_retired`), within the list's range. No row: the
 * organization has no lists, or fewer than asked for.
 */
const SET_INDEXES = `select array(
    select b.status_index from badges b
    where b.organization_id = l.organization_id and b.state = 'revoked' and b.status_index >= ? and b.status_index < ?
    union all
    select r.status_index from badge_status_retired r
    where r.organization_id = l.organization_id and r.status_index >= ? and r.status_index < ?
  ) as set
  from badge_status_lists l where l.organization_id = ? and l.lists > ?`;

export const postgresStatusLists = (db: Queryable): StatusListStore => ({
  async setIndexes(organizationId, list) {
    const from = list * STATUS_LIST_SIZE;
    const to = from + STATUS_LIST_SIZE;
    const row = await db.one<{ set: (number | string)[] }>(SET_INDEXES, [from, to, from, to, organizationId, list]);
    return row ? row.set.map(Number) : null;
  },
});
