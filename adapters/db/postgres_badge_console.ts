import type { EventRecord } from "../../core/events/mod.ts";
import type { BadgeActivityStore, BadgeCounters, QueuedNotification } from "../../core/issuing/mod.ts";
import type { Database } from "./database.ts";
import type { EventRow, MailOutboxRow } from "./rows.ts";
import { toDate, toJson, toNumber } from "./sql.ts";

/**
 * The counters of migration 025 (kept by a trigger as badges change): a dashboard reads at most
 * five state rows and twelve week rows, whatever the number of badges.
 */
export const postgresBadgeCounters = (db: Database): BadgeCounters => ({
  async stateCounts(organizationId) {
    const rows = await db.all<{ state: string; n: unknown }>(
      "select state, n from badge_state_counts where organization_id = ?",
      [organizationId],
    );
    return rows.map((r) => ({ state: r.state, count: toNumber(r.n) }));
  },
  async weekCounts(organizationId, fromWeek) {
    const rows = await db.all<{ week: unknown; issued: unknown; accepted: unknown }>(
      `select to_char(week, 'YYYY-MM-DD') as week, issued, accepted from badge_week_counts
       where organization_id = ? and week >= ?::date order by week`,
      [organizationId, fromWeek],
    );
    return rows.map((r) => ({ week: String(r.week), issued: toNumber(r.issued), accepted: toNumber(r.accepted) }));
  },
});

/** A badge's events (the expression index of migration 025) and its notification mails in the outbox. */
export const postgresBadgeActivity = (db: Database): BadgeActivityStore => ({
  async badgeEvents(organizationId, badgeId, limit) {
    const rows = await db.all<Omit<EventRow, "seq">>(
      `select id, organization_id, event_type, occurred_at, detail from events
       where organization_id = ? and detail -> 'badge' is not null and (detail -> 'badge' ->> 'id') = ?
       order by id desc limit ?`,
      [organizationId, badgeId, limit],
    );
    return rows.map(
      (r): EventRecord => ({
        id: r.id,
        organization_id: r.organization_id,
        event_type: r.event_type,
        occurred_at: toDate(r.occurred_at),
        detail: toJson<Record<string, unknown>>(r.detail),
      }),
    );
  },
  async queuedNotifications(organizationId, badgeId) {
    const rows = await db.all<
      Pick<MailOutboxRow, "id" | "created_at" | "attempts" | "last_error" | "failed_at"> & { to: string | null }
    >(
      `select id, content ->> 'to' as "to", created_at, attempts, last_error, failed_at from mail_outbox
       where organization_id = ? and kind = 'pending_badge_notification'
         and (sent_event -> 'detail' -> 'badge' ->> 'id') = ?
       order by created_at desc`,
      [organizationId, badgeId],
    );
    return rows.map(
      (r): QueuedNotification => ({
        id: r.id,
        to: r.to ?? "",
        created_at: r.created_at,
        attempts: r.attempts,
        last_error: r.last_error,
        failed_at: r.failed_at,
      }),
    );
  },
});
