import type { ConnectionStore, ConnectionTx, EmployeeRecord } from "../../core/workforce/mod.ts";
import { BADGE_FROM, type BadgeJoinRow, badgeViewOf } from "./badge_rows.ts";
import type { Database } from "./database.ts";
import { type EmployeeFields, recordOf, SELECT } from "./employee_rows.ts";
import { confirmedOwners } from "./held_badges.ts";
import { appendEvents } from "./postgres_event_log.ts";
import type { Queryable } from "./sql.ts";

/** Connection reads and writes inside the transaction of `q` (an earner's, an employee's). */
export const connectionTx = (q: Queryable): ConnectionTx => ({
  confirmedOwners: (keys) => confirmedOwners(q, keys),
  async confirmedKeys(userId) {
    const found = await q.all<{ email_key: string }>(
      `select ue.email_key from user_emails ue join users u on u.id = ue.user_id
       where ue.user_id = ? and ue.confirmed and u.closed_at is null order by ue.email_key`,
      [userId],
    );
    return found.map((r) => r.email_key);
  },
  async lockForAccount(userId, keys) {
    const found = await q.all<EmployeeFields>(
      `select ${SELECT} from employees e where e.user_id = ?
         or (e.user_id is null and e.email_key in (select jsonb_array_elements_text(?::jsonb)))
       order by e.created_at, e.id for update`,
      [userId, JSON.stringify(keys)],
    );
    return found.map(recordOf);
  },
  async lockRecord(id) {
    const row = await q.one<EmployeeFields>(`select ${SELECT} from employees e where e.id = ? for update`, [id]);
    return row ? recordOf(row) : null;
  },
  async employers(ids) {
    if (ids.length === 0) return [];
    const found = await q.all<{ id: string; name: string; bio: string }>(
      `select o.id, o.name, coalesce(o.description, '') as bio from organizations o
       where o.id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
      [JSON.stringify(ids)],
    );
    return found.map((r) => ({ id: r.id, name: r.name, bio: r.bio, industry: "" }));
  },
  heldBadges: async (userId) =>
    (await q.all<BadgeJoinRow>(`${BADGE_FROM} where b.user_id = ? order by b.issued_at desc, b.id desc`, [userId])).map(
      badgeViewOf,
    ),
  async saveConnections(records: EmployeeRecord[]) {
    await q.run(
      `update employees e set employee_state = r.employee_state,
         employee_state_updated_at = r.employee_state_updated_at, user_id = r.user_id
       from jsonb_populate_recordset(null::employees, ?::jsonb) r where e.id = r.id`,
      [JSON.stringify(records)],
    );
  },
  appendEvents: (events) => appendEvents(q, events),
});

export const postgresConnectionStore = (db: Database): ConnectionStore => ({
  transaction: (work) => db.transaction((tx) => work(connectionTx(tx))),
});
