import type { FastifyInstance } from "fastify";
import type { VNode } from "preact";
import { templateImageUrl } from "../../core/badges/mod.ts";
import {
  type PathwayPageView,
  type PathwayStore,
  type PathwayTemplateRef,
  publicPathway,
  type WalletPathway,
} from "../../core/pathways/mod.ts";
import { html, safeUrl } from "./html.ts";
import { type Frame, layout } from "./layout.ts";
import { pathwayPage } from "./pages/pathway_list.ts";
import { uuidParam } from "./routes_public.ts";
import type { WebUrls } from "./urls.ts";
import type { WebKit } from "./web_deps.ts";

/** What the pathway pages read: a pathway with its templates, and an account's progress. */
export type PathwayPagesStore = Pick<PathwayStore, "shown" | "forAccount" | "list">;

const imageOf = (t: PathwayTemplateRef, urls: WebUrls): string =>
  safeUrl(templateImageUrl({ publicBase: urls.publicUrl }, t)) ?? urls.defaultImage;

/** A template as a small round picture beside its name. */
const templateChip = (t: PathwayTemplateRef, urls: WebUrls): VNode =>
  html`<li class="pw-template"><img src=${imageOf(t, urls)} alt="" width="40" height="40" /><span>${t.name}</span></li>`;

const requiredLine = (m: { required: number; templates: readonly unknown[] }): string =>
  m.templates.length <= 1
    ? "Required"
    : m.required === m.templates.length
      ? `All ${m.required} required`
      : `${m.required} of ${m.templates.length} required`;

/** The public page of a pathway: who offers it, its milestones in order and the completion badge. */
export const pathwayPublicPage = (frame: Frame, view: PathwayPageView, urls: WebUrls): VNode =>
  layout(
    frame,
    html`<section class="card pw-head" aria-labelledby="pathway-h">
      <p class="eyebrow">Pathway · <a href=${urls.organizationPage(view.organization_id)}>${view.organization_name}</a></p>
      <h1 id="pathway-h">${view.name}</h1>
      ${view.description ? html`<p class="description">${view.description}</p>` : null}
      <p class="small">${view.milestones.length === 1 ? "1 milestone" : `${view.milestones.length} milestones`}${view.state === "archived" ? " · archived: no longer offered" : ""}</p>
    </section>`,
    html`<ol class="pw-map" aria-label="Milestones">${view.milestones.map(
      (m, i) => html`<li class="card pw-milestone">
        <span class="pw-step" aria-hidden="true">${i + 1}</span>
        <div>
          <h2>${m.name}</h2>
          <p class="small">${requiredLine(m)}</p>
          <ul class="plain pw-templates">${m.templates.map((t) => templateChip(t, urls))}</ul>
        </div>
      </li>`,
    )}</ol>`,
    view.completion
      ? html`<section class="card pw-completion" aria-labelledby="completion-h">
          <img src=${imageOf(view.completion, urls)} alt="" width="72" height="72" />
          <div><p class="eyebrow" id="completion-h">On completion</p><h2>${view.completion.name}</h2>
          <p class="small">Issued by ${view.organization_name} when every milestone is done.</p></div>
        </section>`
      : null,
  );

/**
 * The wallet's "Your pathways": each pathway the earner has started, each milestone done or not,
 * what is next, completed ones marked; a link to the pathway's page. Nothing when there is none.
 */
export const walletPathwaysSection = (items: readonly WalletPathway[], urls: WebUrls): VNode | null => {
  if (items.length === 0) return null;
  return html`<section class="card" id="pathways" aria-labelledby="pathways-h">
    <h2 id="pathways-h">Your pathways</h2>
    <ul class="plain pw-wallet">${items.map(
      (p) => html`<li class="pw-progress" data-pathway=${p.id}>
        <div class="pw-progress-head">
          <h3><a href=${pathwayPage(p.id)}>${p.name}</a></h3>
          ${p.completed ? html`<span class="tag ok">Completed</span>` : html`<span class="tag">${p.done} of ${p.milestones.length} done</span>`}
        </div>
        <p class="small">${p.organization_name}</p>
        <meter min="0" max=${p.milestones.length} value=${p.completed ? p.milestones.length : p.done} aria-label=${`${p.name}: milestones done`}></meter>
        <ol class="plain pw-steps">${p.milestones.map(
          (
            m,
          ) => html`<li class=${m.done ? "done" : ""}><span class="pw-mark" aria-hidden="true">${m.done ? "✓" : "○"}</span>
            <span>${m.name} <span class="small">${m.done ? "done" : `${m.held} of ${m.required} held`}</span></span></li>`,
        )}</ol>
        ${
          p.next.length > 0
            ? html`<p class="small pw-next-h">Next</p><ul class="plain pw-templates">${p.next.map((t) => templateChip(t, urls))}</ul>`
            : null
        }
      </li>`,
    )}</ul></section>`;
};

/** `GET /pathways/<id>`: a published or archived pathway's public page; a draft or unknown id is 404. */
export const pathwayPublicRoutes = (kit: WebKit, store: PathwayPagesStore) => async (app: FastifyInstance) => {
  app.get("/pathways/:id", async (request, reply) => {
    const view = await publicPathway(store, uuidParam(request));
    return kit.page(reply, 200, pathwayPublicPage(kit.frame(request, reply, view.name), view, kit.urls));
  });
};
