import type { VNode } from "preact";
import type { PathwayRecord } from "../../../core/pathways/mod.ts";
import { html } from "../html.ts";

/** A pathway's public page. */
export const pathwayPage = (id: string): string => `/pathways/${id}`;

/** The organization page's "Pathways": each published one linked to its page. Nothing when there is none. */
export const organizationPathwaysSection = (items: readonly PathwayRecord[]): VNode | null => {
  if (items.length === 0) return null;
  return html`<section aria-labelledby="pathways-h">
    <h2 id="pathways-h">Pathways</h2>
    <ul class="grid">${items.map(
      (p) => html`<li class="card tile pw-tile">
        <p class="eyebrow">${p.milestones.length === 1 ? "1 milestone" : `${p.milestones.length} milestones`}</p>
        <h3><a href=${pathwayPage(p.id)}>${p.name}</a></h3>
        ${p.description ? html`<p>${p.description}</p>` : null}
        <ol class="pw-trail">${p.milestones.map((m) => html`<li>${m.name}</li>`)}</ol>
      </li>`,
    )}</ul>
  </section>`;
};
