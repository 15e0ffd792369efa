import { acceptanceRate, type FigureCounts, type Figures, isoWeekStart, percent } from "../../../core/issuing/mod.ts";
import { html, type Node } from "../html.ts";
import type { Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath } from "./console_layout.ts";

/** A span of seconds as people say it: "under a minute", "42 min", "5 h 10 min", "3 days 4 h". */
export const spanWords = (seconds: number | null): string => {
  if (seconds === null) return "—";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 1) return "under a minute";
  // A number and its unit never part at the end of a line.
  if (minutes < 60) return `${minutes}\u00a0min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}\u00a0h${minutes % 60 ? ` ${minutes % 60}\u00a0min` : ""}`;
  const days = Math.floor(hours / 24);
  return `${days.toLocaleString("en-GB")}\u00a0days${hours % 24 ? ` ${hours % 24}\u00a0h` : ""}`;
};

const rateText = (c: FigureCounts): string => percent(acceptanceRate(c)) || "—";

/** The Monday an ISO week (`2026-W49`) starts on, as "30 Nov". */
const weekStartLabel = (week: string): string => {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  if (!m) return week;
  // 4 January is always in week 1.
  const jan4 = isoWeekStart(new Date(Date.UTC(Number(m[1]), 0, 4)));
  const start = new Date(jan4.getTime() + (Number(m[2]) - 1) * 7 * 86_400_000);
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" }).format(start);
};

const countCells = (c: FigureCounts): Node =>
  html`<td>${c.issued.toLocaleString("en-GB")}</td><td>${c.accepted.toLocaleString("en-GB")}</td><td>${c.pending.toLocaleString("en-GB")}</td><td>${c.revoked.toLocaleString("en-GB")}</td><td>${rateText(c)}</td><td>${spanWords(c.median_seconds_to_accept)}</td>`;

const HEADS = ["Issued", "Accepted", "Pending", "Revoked", "Acceptance rate", "Median time to accept"];

const figureTable = (caption: string, first: string, rows: Node[]): Node =>
  html`<div class="table-wrap"><table class="figures">
    <caption class="sr-only">${caption}</caption>
    <thead><tr><th scope="col">${first}</th>${HEADS.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;

/** `/console/<org>/figures`: acceptance, time to accept, per template and per week, and the CSV of them. */
export const figuresPage = (frame: Frame, member: ConsoleMember, figures: Figures) => {
  const org = member.organizationId;
  const badges = consolePath(org, "badges");
  const t = figures.total;
  const summary: Array<[string, string, string]> = [
    ["rate", rateText(t), "Acceptance rate"],
    ["median", spanWords(t.median_seconds_to_accept), "Median time to accept"],
    ["issued", t.issued.toLocaleString("en-GB"), "Issued"],
    ["accepted", t.accepted.toLocaleString("en-GB"), "Accepted"],
    ["pending", t.pending.toLocaleString("en-GB"), "Pending"],
    ["revoked", t.revoked.toLocaleString("en-GB"), "Revoked"],
  ];
  return consoleLayout(
    frame,
    member,
    "home",
    html`<p class="small"><a href=${consolePath(org)}>Dashboard</a></p>`,
    html`<h1>Figures</h1>`,
    html`<p class="row"><a class="button secondary" href=${`${consolePath(org)}/figures.csv`} download>Download these figures (CSV)</a></p>`,
    html`<section aria-labelledby="figures-all-h"><h2 id="figures-all-h" class="sr-only">All badges</h2>
      <ul class="plain counts figure-cards">${summary.map(
        ([key, value, label]) =>
          html`<li class="card count" data-figure=${key}><span class="count-n">${value}</span> <span class="count-label">${label}</span></li>`,
      )}</ul></section>`,
    html`<section class="card" aria-labelledby="figures-templates-h"><h2 id="figures-templates-h">Per template</h2>
      ${
        figures.templates.length === 0
          ? html`<p class="muted">No badge issued yet.</p>`
          : figureTable(
              "Figures per template, all time",
              "Template",
              figures.templates.map(
                (row) =>
                  html`<tr data-template=${row.template_id}><th scope="row"><a href=${`${badges}?badge_template_id=${row.template_id}`}>${row.template_name}</a></th>${countCells(row)}</tr>`,
              ),
            )
      }</section>`,
    html`<section class="card" aria-labelledby="figures-weeks-h"><h2 id="figures-weeks-h">Per week of issue</h2>
      <p class="small muted">ISO weeks in UTC, Monday to Sunday. A week's row is about the badges issued in it, in the state they are in now.</p>
      ${figureTable(
        "Figures per week of issue, last weeks",
        "Week",
        figures.weeks.map(
          (w) =>
            html`<tr data-week=${w.week}><th scope="row" class="week">${w.week}<span class="muted small">from ${weekStartLabel(w.week)}</span></th>${countCells(w.total)}</tr>`,
        ),
      )}</section>`,
    html`<section class="card" aria-labelledby="figures-how-h"><h2 id="figures-how-h">How these are counted</h2>
      <ul class="small">
        <li><strong>Issued</strong>: every badge, in any state, replaced ones included (as on the dashboard).</li>
        <li><strong>Accepted</strong>, <strong>pending</strong>, <strong>revoked</strong>: badges in that state now. A badge accepted and later revoked counts as revoked.</li>
        <li><strong>Acceptance rate</strong>: accepted badges out of those issued, leaving out replaced badges (their replacements are counted).</li>
        <li><strong>Median time to accept</strong>: over accepted badges, the middle value of the time from the badge's issue date to its acceptance. A badge dated in the past counts from that date.</li>
      </ul>
    </section>`,
  );
};
