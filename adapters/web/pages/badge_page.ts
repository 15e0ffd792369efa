import type { VNode } from "preact";
import { fullName, templateImageUrl } from "../../../core/badges/mod.ts";
import { type BadgeStatus, badgeStatus, canDecide, type VerifyCheck } from "../../../core/earners/mod.ts";
import type { EndorsementView } from "../../../core/endorsements/mod.ts";
import type { BadgeView } from "../../../core/issuing/mod.ts";
import { formatDate, html, type Node, safeUrl } from "../html.ts";
import { csrfField, type Frame, layout } from "../layout.ts";
import type { WebUrls } from "../urls.ts";
import { endorsementList } from "./endorsement_list.ts";

export interface BadgePageData {
  view: BadgeView;
  now: Date;
  checks: VerifyCheck[];
  /** The result of a visitor's e-mail check, when one was asked. */
  emailCheck: { email: string; matches: boolean } | null;
  notice: string | null;
  /** The image types a baked image is offered in to this viewer; empty: none. */
  downloads: ("png" | "svg")[];
  /** The accepted endorsements of the badge's template. */
  endorsements?: readonly EndorsementView[];
}

/** Links to the badge's image with its records baked in, one line per image type. */
export const downloadLinks = (id: string, types: ("png" | "svg")[], urls: WebUrls): Node =>
  types.length === 0
    ? null
    : html`<ul class="plain downloads">${types.map(
        (t) =>
          html`<li>${t.toUpperCase()}: <a href=${urls.bakedImage(id, t)} download>with the OB 2.0 assertion</a> · <a href=${urls.bakedImage(id, t, "ob3")} download>with the OB 3.0 credential</a> · <a href=${urls.bakedImage(id, t, "ob3_ldp")} download>with the OB 3.0 credential and its Data Integrity proof</a></li>`,
      )}</ul>`;

const download = (data: BadgePageData, urls: WebUrls): Node =>
  data.downloads.length === 0
    ? null
    : html`<section class="card" aria-labelledby="download-h">
        <h2 id="download-h">Download image</h2>
        <p>The badge image with its Open Badges record inside (“baked”), for backpacks and wallets that import badge images.</p>
        ${downloadLinks(data.view.badge.id, data.downloads, urls)}
      </section>`;

const CHECK_LABEL: Record<VerifyCheck["name"], string> = {
  record: "The hosted record answers",
  issuer: "The issuer resolves",
  badge_class: "The badge class resolves",
  not_revoked: "Not revoked",
  not_expired: "Not expired",
};

export const statusLine = (status: BadgeStatus, urls: WebUrls): VNode => {
  switch (status.kind) {
    case "valid":
      return html`<p class="status ok" role="status"><strong>Valid.</strong> This badge is current.</p>`;
    case "expired":
      return html`<p class="status warn" role="status"><strong>Expired.</strong> This badge is past its expiry date.</p>`;
    case "pending":
      return html`<p class="status info" role="status"><strong>Waiting for you.</strong> Accept this badge to add it to your record.</p>`;
    case "rejected":
      return html`<p class="status muted" role="status"><strong>Rejected.</strong> You declined this badge.</p>`;
    case "revoked":
      return html`<p class="status bad" role="status"><strong>Revoked.</strong> Reason: ${status.reason}</p>`;
    case "replaced":
      return html`<p class="status warn" role="status">
        <strong>Replaced.</strong>${" "}
        ${status.replacement_id ? html`<a href=${urls.badgePage(status.replacement_id)}>See the badge that replaces it</a>` : "A newer badge replaces it."}
      </p>`;
  }
};

const link = (value: string, label: string = value): Node => {
  const href = safeUrl(value);
  return href ? html`<a href=${href} rel="nofollow noopener">${label}</a>` : html`<span class="raw">${label}</span>`;
};

const details = (view: BadgeView): Node => {
  const { badge, template } = view;
  return html`<dl class="facts">
    <div><dt>Issued</dt><dd>${formatDate(badge.issued_at)}</dd></div>
    <div><dt>Expires</dt><dd>${badge.expires_at ? formatDate(badge.expires_at) : "Never"}</dd></div>
    ${template.skills.length > 0 ? html`<div><dt>Skills</dt><dd><ul class="chips">${template.skills.map((s) => html`<li>${s}</li>`)}</ul></dd></div>` : null}
    ${template.criteria_url ? html`<div><dt>Criteria</dt><dd>${link(template.criteria_url)}</dd></div>` : null}
    ${badge.evidence.length > 0 ? html`<div><dt>Evidence</dt><dd><ul class="plain">${badge.evidence.map((e) => html`<li>${link(e.value, e.name || e.value)}${e.description ? html` — ${e.description}` : null}</li>`)}</ul></dd></div>` : null}
    ${template.alignments.length > 0 ? html`<div><dt>Aligned with</dt><dd><ul class="plain">${template.alignments.map((a) => html`<li>${link(a.url, a.name)}${a.description ? html` — ${a.description}` : null}</li>`)}</ul></dd></div>` : null}
  </dl>`;
};

const decision = (view: BadgeView, frame: Frame, urls: WebUrls): Node => {
  if (!frame.viewer || view.badge.user_id !== frame.viewer.user.id) return null;
  const { badge } = view;
  const privacy = html`<form method="post" action=${urls.badgeAction(badge.id, "privacy")} class="inline">
    ${csrfField(frame.csrf)}<input type="hidden" name="public" value=${badge.public ? "false" : "true"} />
    <input type="hidden" name="back" value="badge" />
    <button type="submit" class="secondary">${badge.public ? "Make private" : "Make public"}</button>
  </form>`;
  if (badge.state !== "pending")
    return html`<section class="card owner" aria-labelledby="owner-h"><h2 id="owner-h">Your badge</h2>
      <p>${badge.public ? "Anyone with the link can see this page and verify its Open Badges records. Making it private withdraws both, also for verifiers holding their links, until you make it public again." : "Only you can see this page; its Open Badges records answer “not found” to everyone."}</p>${privacy}</section>`;
  if (!canDecide(badge, frame.viewer.user))
    return html`<section class="card owner" aria-labelledby="owner-h"><h2 id="owner-h">Your badge</h2>
      <p>This badge was sent to ${badge.recipient_email}. Confirm that address on your <a href="/account">account</a> to accept it.</p></section>`;
  return html`<section class="card owner" aria-labelledby="owner-h"><h2 id="owner-h">Accept this badge?</h2>
    <p>Accepting adds it to your wallet and lets you share it.</p>
    <div class="actions">
      <form method="post" action=${urls.badgeAction(badge.id, "accept")} class="inline">${csrfField(frame.csrf)}<input type="hidden" name="back" value="badge" /><button type="submit">Accept</button></form>
      <form method="post" action=${urls.badgeAction(badge.id, "reject")} class="inline">${csrfField(frame.csrf)}<input type="hidden" name="back" value="badge" /><button type="submit" class="danger">Reject</button></form>
    </div></section>`;
};

const verify = (data: BadgePageData, frame: Frame, urls: WebUrls): Node =>
  html`<section class="card" aria-labelledby="verify-h">
    <h2 id="verify-h">Verify</h2>
    <p>Checked against the hosted record just now:</p>
    <ul class="checks">${data.checks.map((c) => html`<li class=${c.ok ? "ok" : "bad"}><span aria-hidden="true">${c.ok ? "✓" : "✗"}</span> ${CHECK_LABEL[c.name]}<span class="sr-only">${c.ok ? ": yes" : ": no"}</span></li>`)}</ul>
    <form method="post" action=${urls.badgeAction(data.view.badge.id, "verify_email")} class="stack">
      ${csrfField(frame.csrf)}
      <label for="verify-email">Was it issued to this e-mail address?</label>
      <div class="row"><input id="verify-email" name="email" type="email" required autocomplete="email" value=${data.emailCheck?.email ?? ""} /><button type="submit" class="secondary">Check</button></div>
    </form>
    ${data.emailCheck ? html`<p class=${data.emailCheck.matches ? "status ok" : "status bad"} role="status">${data.emailCheck.matches ? "Yes: the badge's hashed recipient matches this address." : "No: this badge was not issued to that address."}</p>` : null}
    <p class="small">Open Badges records: <a href=${urls.assertion(data.view.badge.id)}>OB 2.0 assertion</a> · <a href=${urls.credential(data.view.badge.id)}>OB 3.0 credential</a> · <a href=${urls.credentialLdp(data.view.badge.id)} download=${`badge-${data.view.badge.id}.jsonld`}>OB 3.0 credential, JSON-LD with a Data Integrity proof</a> (for wallets that take only these)</p>
  </section>`;

const linkedIn = (view: BadgeView, urls: WebUrls): string => {
  const q = new URLSearchParams({
    startTask: "CERTIFICATION_NAME",
    name: view.template.name,
    organizationName: view.issuer.name,
    issueYear: String(view.badge.issued_at.getUTCFullYear()),
    issueMonth: String(view.badge.issued_at.getUTCMonth() + 1),
    certUrl: urls.badgePage(view.badge.id),
    certId: view.badge.id,
  });
  if (view.badge.expires_at) {
    q.set("expirationYear", String(view.badge.expires_at.getUTCFullYear()));
    q.set("expirationMonth", String(view.badge.expires_at.getUTCMonth() + 1));
  }
  return `https://www.linkedin.com/profile/add?${q.toString()}`;
};

const share = (view: BadgeView, urls: WebUrls): Node =>
  view.badge.public && view.badge.state === "accepted"
    ? html`<section class="card" aria-labelledby="share-h">
        <h2 id="share-h">Share</h2>
        <label for="share-url">Link to this page</label>
        <div class="row"><input id="share-url" type="url" readonly value=${urls.badgePage(view.badge.id)} /><button type="button" class="secondary" data-copy="share-url">Copy link</button></div>
        <p><a class="button linkedin" href=${linkedIn(view, urls)} rel="noopener">Add to LinkedIn profile</a></p>
      </section>`
    : null;

export const badgePage = (frame: Frame, data: BadgePageData, urls: WebUrls): VNode => {
  const { badge, template, issuer, authorizedIssuer } = data.view;
  const earner = fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name);
  return layout(
    frame,
    data.notice ? html`<p class="notice" role="status">${data.notice}</p>` : null,
    html`<article class="card badge" aria-labelledby="badge-h">
      <img class="badge-image" src=${safeUrl(templateImageUrl({ publicBase: urls.publicUrl }, template)) ?? urls.defaultImage} alt="" width="160" height="160" />
      <div class="badge-body">
        ${
          authorizedIssuer
            ? html`<p class="eyebrow">Issued by <a href=${urls.organizationPage(authorizedIssuer.id)}>${authorizedIssuer.name}</a> on behalf of <a href=${urls.organizationPage(issuer.id)}>${issuer.name}</a></p>`
            : html`<p class="eyebrow">Issued by <a href=${urls.organizationPage(issuer.id)}>${issuer.name}</a></p>`
        }
        <h1 id="badge-h">${template.name}</h1>
        <p class="earner">Earned by <strong>${earner}</strong></p>
        ${statusLine(badgeStatus(badge, data.now), urls)}
        <p class="description">${template.description}</p>
        ${details(data.view)}
      </div>
    </article>`,
    decision(data.view, frame, urls),
    endorsementList(data.endorsements ?? [], urls, "this badge"),
    share(data.view, urls),
    download(data, urls),
    // A pending or rejected badge has no public record yet: nothing to verify.
    badge.state === "pending" || badge.state === "rejected" ? null : verify(data, frame, urls),
  );
};
