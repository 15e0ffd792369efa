import t from "tap";
import { BADGE_LIST } from "../../core/badges/mod.ts";
import {
  acceptanceRate,
  BULK_LIMIT,
  bulkTargets,
  FIGURES_CSV_HEADER,
  type FigureCounts,
  figuresCsv,
  type IssuingDeps,
  isoWeekOf,
  isoWeekStart,
  lastIsoWeeks,
  NO_FIGURES,
  readFigures,
} from "../../core/issuing/mod.ts";
import { parseListQuery } from "../../core/listing/mod.ts";

/**
 * The dashboard's figures without I/O: ISO weeks in UTC at the year's edges, the acceptance rate,
 * the CSV (every cell neutralized) and the twelve weeks filled in; a bulk action's targets read a
 * filter page by page and stop at the limit.
 */

t.test("ISO weeks in UTC, at the edges of years", async (t) => {
  for (const [at, week] of [
    ["2026-12-07T00:00:00Z", "2026-W50"],
    ["2026-12-06T23:59:59Z", "2026-W49"],
    ["2026-01-01T12:00:00Z", "2026-W01"],
    ["2024-12-30T00:00:00Z", "2025-W01"],
    ["2021-01-03T23:00:00Z", "2020-W53"],
    ["2027-01-01T00:00:00Z", "2026-W53"],
    ["2027-01-04T00:00:00Z", "2027-W01"],
  ] as const) {
    t.equal(isoWeekOf(new Date(at)), week, at);
  }
  t.equal(isoWeekStart(new Date("2026-12-09T15:00:00Z")).toISOString(), "2026-12-07T00:00:00.000Z", "a Monday");
  const weeks = lastIsoWeeks(new Date("2026-01-06T10:00:00Z"), 3);
  t.same(
    weeks.map((w) => w.week),
    ["2025-W52", "2026-W01", "2026-W02"],
    "oldest first, across the year",
  );
});

t.test("the acceptance rate leaves replaced badges out", async (t) => {
  const c = (over: Partial<FigureCounts>): FigureCounts => ({ ...NO_FIGURES, ...over });
  t.equal(acceptanceRate(c({ issued: 4, accepted: 3 })), 0.75);
  t.equal(acceptanceRate(c({ issued: 5, accepted: 3, replaced: 1 })), 0.75);
  t.equal(acceptanceRate(c({ issued: 1, replaced: 1 })), null, "nothing left to accept: none");
  t.equal(acceptanceRate(NO_FIGURES), null);
});

t.test("figures and their CSV: every week present, formulas made text", async (t) => {
  const now = new Date("2026-12-09T12:00:00Z");
  const askedFrom: Date[] = [];
  const tpl = { template_id: "t1", template_name: '=cmd|"/c calc"!A1', ...NO_FIGURES, issued: 2, accepted: 1 };
  const figures = await readFigures(
    {
      async figures(_org, from) {
        askedFrom.push(from);
        return {
          total: { ...NO_FIGURES, issued: 2, accepted: 1, median_seconds_to_accept: 5400 },
          templates: [{ ...tpl, median_seconds_to_accept: 5400 }],
          weeks: [{ week: "2026-W50", total: { ...NO_FIGURES, issued: 2, accepted: 1 }, templates: [tpl] }],
        };
      },
    },
    now,
    "org",
  );
  t.equal(askedFrom[0]?.toISOString(), "2026-09-21T00:00:00.000Z", "twelve weeks back, from a Monday");
  t.equal(figures.weeks.length, 12);
  t.equal(figures.weeks.at(-1)?.week, "2026-W50");
  t.same(figures.weeks[0], { week: "2026-W39", total: NO_FIGURES, templates: [] }, "an empty week at zero");
  const lines = figuresCsv(figures).split("\r\n");
  t.equal(lines[0], FIGURES_CSV_HEADER.join(","));
  t.equal(lines[1], "all,,all templates,2,1,0,0,0,0,50.0%,1.50");
  t.equal(lines[2], `all,t1,"'=cmd|""/c calc""!A1",2,1,0,0,0,0,50.0%,1.50`, "the formula is text");
  t.equal(lines[3], "2026-W39,,all templates,0,0,0,0,0,0,,", "no rate and no median without a badge");
  t.equal(lines.filter((l) => l.startsWith("2026-W50,")).length, 2, "the week's total and its template");
  t.equal(lines.at(-1), "", "the file ends with a line break");
});

t.test("a bulk action's targets: the filter's badges page by page, at most the limit", async (t) => {
  const all = Array.from({ length: 250 }, (_, i) => ({ badge: { id: `b${i}` } }));
  const pages: number[] = [];
  const deps = {
    store: {
      async listBadges(_org: string, _q: unknown, page: { page: number; per: number; offset: number }) {
        pages.push(page.page);
        return { items: all.slice(page.offset, page.offset + page.per), total: all.length };
      },
    },
  } as unknown as IssuingDeps;
  const query = parseListQuery(BADGE_LIST, [["state", "pending"]]);
  const every = await bulkTargets(deps, "org", query);
  t.equal(every.ids.length, 250);
  t.equal(every.total, 250);
  t.same(pages, [1, 2, 3], "pages of 100 until a short one");
  pages.length = 0;
  const capped = await bulkTargets(deps, "org", query, 120);
  t.same(
    capped.ids,
    all.slice(0, 120).map((b) => b.badge.id),
    "the first ones in the list's order",
  );
  t.equal(capped.total, 250, "and how many match in all");
  t.same(pages, [1, 2], "no page past the limit");
  t.equal(BULK_LIMIT, 10_000);
});
