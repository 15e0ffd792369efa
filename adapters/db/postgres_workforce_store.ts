import type { WorkforceAuthorizationStore } from "../../core/workforce/mod.ts";
import type { Database } from "./database.ts";

/** `organizations.workforce_authorized` (migration 004), read and set by operators. */
export const postgresWorkforceAuthorizationStore = (db: Database): WorkforceAuthorizationStore => ({
  async get(organizationId) {
    const rows = await db.all<{ workforce_authorized: boolean }>(
      "select workforce_authorized from organizations where id = ?::uuid",
      [organizationId],
    );
    return rows[0] === undefined ? null : rows[0].workforce_authorized === true;
  },
  async set(organizationId, authorized) {
    const rows = await db.all<{ id: string }>(
      "update organizations set workforce_authorized = ? where id = ?::uuid returning id",
      [authorized, organizationId],
    );
    return rows.length === 1;
  },
});
