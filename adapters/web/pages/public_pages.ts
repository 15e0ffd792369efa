import type { VNode } from "preact";
import { type OrganizationRef, templateImageUrl } from "../../../core/badges/mod.ts";
import type { EarnerAccount } from "../../../core/earners/mod.ts";
import type { EndorsementView } from "../../../core/endorsements/mod.ts";
import type { BadgeView, TemplateView } from "../../../core/issuing/mod.ts";
import { formatDate, html, safeUrl } from "../html.ts";
import { type Frame, layout } from "../layout.ts";
import type { WebUrls } from "../urls.ts";
import { endorsementList } from "./endorsement_list.ts";

export const organizationPage = (
  frame: Frame,
  data: {
    issuer: OrganizationRef;
    templates: TemplateView[];
    endorsements?: readonly EndorsementView[];
    pathways?: VNode | null;
  },
  urls: WebUrls,
): VNode => {
  const { issuer, templates } = data;
  const website = safeUrl(issuer.website_url);
  return layout(
    frame,
    html`<section class="card org" aria-labelledby="org-h">
      ${safeUrl(issuer.image_url) ? html`<img class="org-image" src=${safeUrl(issuer.image_url)} alt="" width="96" height="96" />` : null}
      <div>
        <p class="eyebrow">Issuer</p>
        <h1 id="org-h">${issuer.name}</h1>
        ${issuer.description ? html`<p class="description">${issuer.description}</p>` : null}
        ${website ? html`<p><a href=${website} rel="nofollow noopener">${issuer.website_url}</a></p>` : null}
      </div>
    </section>`,
    endorsementList(data.endorsements ?? [], urls, "this issuer"),
    html`<section aria-labelledby="templates-h">
      <h2 id="templates-h">Badges</h2>
      ${
        templates.length === 0
          ? html`<p class="card muted">No badges are published yet.</p>`
          : html`<ul class="grid">${templates.map(
              ({ template }) => html`<li class="card tile">
                <img src=${safeUrl(templateImageUrl({ publicBase: urls.publicUrl }, template)) ?? urls.defaultImage} alt="" width="72" height="72" />
                <h3>${template.name}</h3>
                <p>${template.description}</p>
                <p class="small">${template.badges_count === 1 ? "1 badge issued" : `${template.badges_count} badges issued`}</p>
              </li>`,
            )}</ul>`
      }
    </section>`,
    data.pathways ?? null,
  );
};

export const badgeTile = (view: BadgeView, urls: WebUrls, extra: VNode | null = null): VNode =>
  html`<li class="card tile">
    <img src=${safeUrl(templateImageUrl({ publicBase: urls.publicUrl }, view.template)) ?? urls.defaultImage} alt="" width="72" height="72" />
    <h3><a href=${urls.badgePage(view.badge.id)}>${view.template.name}</a></h3>
    <p class="small">${view.issuer.name} · ${formatDate(view.badge.issued_at)}</p>
    ${extra}
  </li>`;

export const profilePage = (frame: Frame, data: { account: EarnerAccount; badges: BadgeView[] }, urls: WebUrls) => {
  const name = `${data.account.user.first_name} ${data.account.user.last_name}`.trim();
  return layout(
    {
      ...frame,
      share: {
        title: name,
        description: `${name}'s badges on Laurel`,
        url: urls.profilePage(data.account.vanity_name ?? data.account.user.id),
        image: undefined,
      },
    },
    html`<section class="card narrow" aria-labelledby="profile-h"><p class="eyebrow">Profile</p><h1 id="profile-h">${name}</h1>
      <p>${data.badges.length === 1 ? "1 badge" : `${data.badges.length} badges`}</p></section>`,
    data.badges.length === 0
      ? html`<p class="card muted">No public badges yet.</p>`
      : html`<ul class="grid">${data.badges.map((v) => badgeTile(v, urls))}</ul>`,
  );
};
