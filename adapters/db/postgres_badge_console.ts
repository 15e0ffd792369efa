import type { EventRecord } from "../../core/events/mod.ts";
import type {
  BadgeActivityStore,
  BadgeCounters,
  BadgeFigures,
  FigureCounts,
  FigureRows,
  QueuedNotification,
  TemplateFigures,
} from "../../core/issuing/mod.ts";
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

/**
 * The figures of core/issuing/figures.ts, aggregated in one statement over the organization's
 * badges (its `organization_id` index): per template and in all, over all time (`week` left out of
 * the grouping) and per ISO week of `issued_at` in UTC for badges issued from `weeksFrom` on.
 * Badges issued before `weeksFrom` have no week and their weekly groups are dropped.
 */
const FIGURES_SQL = `
  with picked as (
    select badge_template_id, state, issued_at, state_updated_at,
      case when issued_at >= ?::timestamptz then to_char(issued_at at time zone 'UTC', 'IYYY-"W"IW') end as week
    from badges where organization_id = ?
  )
  select picked.week, picked.badge_template_id as template_id, min(tpl.name) as template_name,
    grouping(picked.week) as all_weeks, grouping(picked.badge_template_id) as all_templates,
    count(*) as issued,
    count(*) filter (where picked.state = 'accepted') as accepted,
    count(*) filter (where picked.state = 'pending') as pending,
    count(*) filter (where picked.state = 'revoked') as revoked,
    count(*) filter (where picked.state = 'rejected') as rejected,
    count(*) filter (where picked.state = 'replaced') as replaced,
    percentile_cont(0.5) within group (
      order by greatest(extract(epoch from picked.state_updated_at - picked.issued_at), 0)
    ) filter (where picked.state = 'accepted') as median_seconds
  from picked join badge_templates tpl on tpl.id = picked.badge_template_id
  group by grouping sets ((picked.badge_template_id), (), (picked.week, picked.badge_template_id), (picked.week))
  order by picked.week nulls first, min(tpl.name), picked.badge_template_id`;

export const postgresBadgeFigures = (db: Database): BadgeFigures => ({
  async figures(organizationId, weeksFrom) {
    const rows = await db.all<{
      week: string | null;
      template_id: string | null;
      template_name: string | null;
      all_weeks: unknown;
      all_templates: unknown;
      issued: unknown;
      accepted: unknown;
      pending: unknown;
      revoked: unknown;
      rejected: unknown;
      replaced: unknown;
      median_seconds: unknown;
    }>(FIGURES_SQL, [weeksFrom.toISOString(), organizationId]);
    const out: FigureRows = {
      templates: [],
      total: {
        issued: 0,
        accepted: 0,
        pending: 0,
        revoked: 0,
        rejected: 0,
        replaced: 0,
        median_seconds_to_accept: null,
      },
      weeks: [],
    };
    for (const found of rows) {
      const counts: FigureCounts = {
        issued: toNumber(found.issued),
        accepted: toNumber(found.accepted),
        pending: toNumber(found.pending),
        revoked: toNumber(found.revoked),
        rejected: toNumber(found.rejected),
        replaced: toNumber(found.replaced),
        median_seconds_to_accept: found.median_seconds === null ? null : toNumber(found.median_seconds),
      };
      const allWeeks = toNumber(found.all_weeks) === 1;
      const allTemplates = toNumber(found.all_templates) === 1;
      const ofTemplate = (): TemplateFigures => ({
        ...counts,
        template_id: found.template_id ?? "",
        template_name: found.template_name ?? "",
      });
      if (allWeeks) {
        if (allTemplates) out.total = counts;
        else out.templates.push(ofTemplate());
        continue;
      }
      // The group of badges issued before the weeks asked for.
      if (found.week === null) continue;
      let week = out.weeks.at(-1);
      if (week?.week !== found.week) {
        week = { week: found.week, total: counts, templates: [] };
        out.weeks.push(week);
      }
      if (allTemplates) week.total = counts;
      else week.templates.push(ofTemplate());
    }
    return out;
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
