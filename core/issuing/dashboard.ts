import { BADGE_STATES, type BadgeState } from "../badges/mod.ts";

/** The weeks the dashboard's chart shows, the current one last. */
export const DASHBOARD_WEEKS = 12;

const DAY_MS = 86_400_000;

/** One week's figures: its Monday (UTC, `YYYY-MM-DD`), badges issued that week, badges accepted that week. */
export interface WeekCount {
  week: string;
  issued: number;
  accepted: number;
}

/**
 * The counters the store keeps as badges change (never a scan of the badges): badges per state,
 * and per week the badges issued in it (by `issued_at`) and those accepted in it and still
 * accepted (by the time of the state change).
 */
export interface BadgeCounters {
  stateCounts(organizationId: string): Promise<Array<{ state: string; count: number }>>;
  /** The weeks from `fromWeek` on that have a row. */
  weekCounts(organizationId: string, fromWeek: string): Promise<WeekCount[]>;
}

export type StateCounts = Record<BadgeState, number> & { issued: number };

export interface Dashboard {
  counts: StateCounts;
  /** `DASHBOARD_WEEKS` weeks, oldest first, weeks without a badge at zero. */
  weeks: WeekCount[];
}

/** The Monday (UTC) of the week holding `at`, as `YYYY-MM-DD`. */
export const weekOf = (at: Date): string => {
  const day = Math.floor(at.getTime() / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
  const monday = day - ((day + 3) % 7);
  return new Date(monday * DAY_MS).toISOString().slice(0, 10);
};

/** The last `n` weeks up to the one holding `now`, oldest first. */
export const lastWeeks = (now: Date, n = DASHBOARD_WEEKS): string[] => {
  const current = new Date(`${weekOf(now)}T00:00:00Z`).getTime();
  return Array.from({ length: n }, (_, i) => new Date(current - (n - 1 - i) * 7 * DAY_MS).toISOString().slice(0, 10));
};

/** The dashboard's counts and chart from the counters; `issued` is every badge the organization has. */
export const readDashboard = async (counters: BadgeCounters, now: Date, organizationId: string): Promise<Dashboard> => {
  const weeks = lastWeeks(now);
  const [states, rows] = await Promise.all([
    counters.stateCounts(organizationId),
    counters.weekCounts(organizationId, weeks[0] as string),
  ]);
  const counts = Object.fromEntries(BADGE_STATES.map((s) => [s, 0])) as StateCounts;
  counts.issued = 0;
  for (const { state, count } of states) {
    if ((BADGE_STATES as readonly string[]).includes(state)) counts[state as BadgeState] = count;
    counts.issued += count;
  }
  const byWeek = new Map(rows.map((r) => [r.week, r]));
  return {
    counts,
    weeks: weeks.map((week) => ({
      week,
      issued: byWeek.get(week)?.issued ?? 0,
      accepted: byWeek.get(week)?.accepted ?? 0,
    })),
  };
};
