import { csvLine } from "../shared/mod.ts";

/**
 * The dashboard's figures, defined here and aggregated by the store in SQL (docs/decisions.md,
 * "The dashboard's figures"):
 *
 * - **issued**: every badge (every state, replaced ones included), as the dashboard's counters count them;
 * - **accepted**, **pending**, **revoked**, **rejected**, **replaced**: badges in that state now
 *   (a badge accepted and then revoked counts as revoked, as on the dashboard's chart);
 * - **acceptance rate**: accepted / (issued − replaced): a replaced badge lives on as its
 *   replacement, which is counted in its own right; none when nothing is left to accept;
 * - **median time to accept**: the median, over accepted badges, of the time from `issued_at` to
 *   the acceptance (the state's change), a negative span (an `issued_at` after the acceptance)
 *   counting as zero;
 * - **weeks**: ISO 8601 weeks in UTC (Monday to Sunday, `2026-W49`), of `issued_at`: a week's
 *   row is about the badges issued in it, in the state they are in now.
 */
export interface FigureCounts {
  issued: number;
  accepted: number;
  pending: number;
  revoked: number;
  rejected: number;
  replaced: number;
  /** Seconds from issue to acceptance, median over the accepted badges; null when none is accepted. */
  median_seconds_to_accept: number | null;
}

/** One template's figures (all time, or one week's). */
export interface TemplateFigures extends FigureCounts {
  template_id: string;
  template_name: string;
}

/** What the store aggregates: per template and in all, over all time and per ISO week of issue. */
export interface FigureRows {
  /** Every template that issued a badge, by name. */
  templates: TemplateFigures[];
  /** All templates together. */
  total: FigureCounts;
  /** The weeks from the first asked for that have a badge: per template, and in all. */
  weeks: Array<{ week: string; total: FigureCounts; templates: TemplateFigures[] }>;
}

export interface BadgeFigures {
  /**
   * The figures of `organizationId`'s badges; the weekly ones of badges issued at or after
   * `weeksFrom` (a Monday, 00:00 UTC). One statement over the organization's badges, each time.
   */
  figures(organizationId: string, weeksFrom: Date): Promise<FigureRows>;
}

/** The weeks the figures show, the current one last. */
export const FIGURE_WEEKS = 12;

const DAY_MS = 86_400_000;

/** The ISO 8601 week (UTC) holding `at`: `2026-W49`. Week 1 holds the year's first Thursday. */
export const isoWeekOf = (at: Date): string => {
  const day = Math.floor(at.getTime() / DAY_MS);
  // 1970-01-01 was a Thursday; the ISO year of a week is its Thursday's year.
  const thursday = day - ((day + 3) % 7) + 3;
  const year = new Date(thursday * DAY_MS).getUTCFullYear();
  const firstDay = Math.floor(Date.UTC(year, 0, 1) / DAY_MS);
  const week = Math.floor((thursday - firstDay) / 7) + 1;
  return `${year}-W${String(week).padStart(2, "0")}`;
};

/** The Monday 00:00 UTC starting the ISO week holding `at`. */
export const isoWeekStart = (at: Date): Date => {
  const day = Math.floor(at.getTime() / DAY_MS);
  return new Date((day - ((day + 3) % 7)) * DAY_MS);
};

/** The last `n` ISO weeks up to the one holding `now`, oldest first, with their Mondays. */
export const lastIsoWeeks = (now: Date, n = FIGURE_WEEKS): Array<{ week: string; start: Date }> => {
  const current = isoWeekStart(now).getTime();
  return Array.from({ length: n }, (_, i) => {
    const start = new Date(current - (n - 1 - i) * 7 * DAY_MS);
    return { week: isoWeekOf(start), start };
  });
};

/** Accepted out of the badges still to be counted (replaced ones live on as their replacements); null when none. */
export const acceptanceRate = (c: FigureCounts): number | null => {
  const offered = c.issued - c.replaced;
  return offered > 0 ? c.accepted / offered : null;
};

export const NO_FIGURES: FigureCounts = {
  issued: 0,
  accepted: 0,
  pending: 0,
  revoked: 0,
  rejected: 0,
  replaced: 0,
  median_seconds_to_accept: null,
};

export interface Figures {
  total: FigureCounts;
  templates: TemplateFigures[];
  /** `FIGURE_WEEKS` weeks, oldest first, weeks without a badge at zero. */
  weeks: Array<{ week: string; total: FigureCounts; templates: TemplateFigures[] }>;
}

/** The figures of the last `FIGURE_WEEKS` weeks and of all time, every week present. */
export const readFigures = async (store: BadgeFigures, now: Date, organizationId: string): Promise<Figures> => {
  const weeks = lastIsoWeeks(now);
  const rows = await store.figures(organizationId, (weeks[0] as { start: Date }).start);
  const byWeek = new Map(rows.weeks.map((w) => [w.week, w]));
  return {
    total: rows.total,
    templates: rows.templates,
    weeks: weeks.map(({ week }) => byWeek.get(week) ?? { week, total: NO_FIGURES, templates: [] }),
  };
};

/** The rate as a CSV cell or a page shows it: a percentage with one decimal, "" when there is none. */
export const percent = (rate: number | null): string => (rate === null ? "" : `${(rate * 100).toFixed(1)}%`);

export const FIGURES_CSV_HEADER = [
  "period",
  "template_id",
  "template",
  "issued",
  "accepted",
  "pending",
  "revoked",
  "rejected",
  "replaced",
  "acceptance_rate",
  "median_hours_to_accept",
] as const;

const csvRow = (period: string, id: string, name: string, c: FigureCounts): string =>
  csvLine([
    period,
    id,
    name,
    String(c.issued),
    String(c.accepted),
    String(c.pending),
    String(c.revoked),
    String(c.rejected),
    String(c.replaced),
    percent(acceptanceRate(c)),
    c.median_seconds_to_accept === null ? "" : (c.median_seconds_to_accept / 3600).toFixed(2),
  ]);

/**
 * The figures as a CSV file: all time (period `all`) then each week oldest first, each as the
 * total (template `all templates`) followed by its templates. Every cell goes through
 * `neutralizeCell`, so a template named `=HYPERLINK(…)` is text in a spreadsheet.
 */
export const figuresCsv = (f: Figures): string => {
  const lines = [csvLine(FIGURES_CSV_HEADER)];
  const period = (name: string, total: FigureCounts, templates: TemplateFigures[]) => {
    lines.push(csvRow(name, "", "all templates", total));
    for (const t of templates) lines.push(csvRow(name, t.template_id, t.template_name, t));
  };
  period("all", f.total, f.templates);
  for (const w of f.weeks) period(w.week, w.total, w.templates);
  return lines.join("");
};
