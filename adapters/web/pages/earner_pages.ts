import type { VNode } from "preact";
import { badgeStatus, canDecide, type EarnerAccount } from "../../../core/earners/mod.ts";
import type { BadgeView } from "../../../core/issuing/mod.ts";
import { html, type Node } from "../html.ts";
import { csrfField, type Frame, layout } from "../layout.ts";
import type { WebUrls } from "../urls.ts";
import { downloadLinks, statusLine } from "./badge_page.ts";
import { badgeTile } from "./public_pages.ts";

const notice = (text: string | null): Node => (text ? html`<p class="notice" role="status">${text}</p>` : null);

const action = (frame: Frame, url: string, label: string, fields: Record<string, string>, cls = "secondary"): VNode =>
  html`<form method="post" action=${url} class="inline">
    ${csrfField(frame.csrf)}${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name=${k} value=${v} />`)}
    <button type="submit" class=${cls}>${label}</button>
  </form>`;

/** A wallet entry: the badge and the image types its baked image is offered in. */
export interface WalletBadge {
  view: BadgeView;
  downloads: ("png" | "svg")[];
}

const walletActions = (frame: Frame, { view, downloads }: WalletBadge, urls: WebUrls, now: Date): VNode => {
  const { badge } = view;
  const viewer = frame.viewer as EarnerAccount;
  const decide =
    badge.state === "pending"
      ? canDecide(badge, viewer.user)
        ? [
            action(frame, urls.badgeAction(badge.id, "accept"), "Accept", { back: "wallet" }, ""),
            action(frame, urls.badgeAction(badge.id, "reject"), "Reject", { back: "wallet" }, "danger"),
          ]
        : html`<p class="small">Confirm ${badge.recipient_email} on your account to accept it.</p>`
      : null;
  const privacy = action(frame, urls.badgeAction(badge.id, "privacy"), badge.public ? "Make private" : "Make public", {
    public: badge.public ? "false" : "true",
    back: "wallet",
  });
  // Said before the switch is pressed: a private badge's hosted records are withdrawn too, so the
  // links a verifier already holds stop working.
  const records = badge.public
    ? html`<p class="small">Public · <a href=${urls.assertion(badge.id)} download=${`badge-${badge.id}.json`}>OB 2.0 assertion</a> · <a href=${urls.credential(badge.id)} download=${`badge-${badge.id}.jwt`}>OB 3.0 credential</a> · <a href=${urls.credentialLdp(badge.id)} download=${`badge-${badge.id}.jsonld`}>OB 3.0 credential, JSON-LD with a Data Integrity proof</a></p>
      <p class="small">Making it private also withdraws its Open Badges records: anyone holding their links, verifiers included, gets “not found” and can no longer verify it, until you make it public again.</p>`
    : html`<p class="small">Private · its page and its Open Badges records (OB 2.0 assertion, OB 3.0 credential) answer “not found” to everyone, verifiers included, until you make it public.</p>`;
  return html`<div>
    ${statusLine(badgeStatus(badge, now), urls)}
    ${records}
    ${downloads.length > 0 ? html`<p class="small">Download image</p>${downloadLinks(badge.id, downloads, urls)}` : null}
    <div class="actions">${decide}${privacy}</div>
  </div>`;
};

export const walletPage = (
  frame: Frame,
  data: {
    badges: WalletBadge[];
    now: Date;
    notice: string | null;
    employers?: VNode | null;
    external?: VNode | null;
    recommendations?: VNode | null;
    pathways?: VNode | null;
  },
  urls: WebUrls,
) =>
  layout(
    frame,
    notice(data.notice),
    data.employers ?? null,
    html`<h1>Your badges</h1>`,
    data.badges.length === 0
      ? html`<p class="card muted">No badges yet. When an organization sends you one, it appears here.</p>`
      : html`<ul class="grid wallet">${data.badges.map((b) => badgeTile(b.view, urls, walletActions(frame, b, urls, data.now)))}</ul>`,
    data.pathways ?? null,
    data.recommendations ?? null,
    data.external ?? null,
  );

export const accountPage = (
  frame: Frame,
  data: { notice: string | null; error: string | null; exports?: boolean },
  urls: WebUrls,
) => {
  const account = frame.viewer as EarnerAccount;
  const { user } = account;
  const profileUrl = urls.profilePage(account.vanity_name ?? user.id);
  return layout(
    { ...frame, noindex: true },
    notice(data.notice),
    data.error ? html`<p class="status bad" role="alert">${data.error}</p>` : null,
    html`<h1>Your account</h1>`,
    html`<section class="card" aria-labelledby="name-h"><h2 id="name-h">Name</h2>
      <form method="post" action="/account/name" class="stack">${csrfField(frame.csrf)}
        <label for="first_name">First name</label><input id="first_name" name="first_name" required maxlength="255" value=${user.first_name} autocomplete="given-name" />
        <label for="last_name">Last name</label><input id="last_name" name="last_name" maxlength="255" value=${user.last_name} autocomplete="family-name" />
        <button type="submit">Save name</button>
      </form></section>`,
    html`<section class="card" aria-labelledby="emails-h"><h2 id="emails-h">E-mail addresses</h2>
      <ul class="plain emails">${user.emails.map(
        (
          e,
        ) => html`<li><span>${e.email}</span> <span class=${e.confirmed ? "tag ok" : "tag"}>${e.confirmed ? "confirmed" : "not confirmed"}</span>
          ${user.emails.length > 1 ? html`<form method="post" action="/account/emails/remove" class="inline">${csrfField(frame.csrf)}<input type="hidden" name="email" value=${e.email} /><button type="submit" class="link" aria-label=${`Remove ${e.email}`}>Remove</button></form>` : null}</li>`,
      )}</ul>
      <form method="post" action="/account/emails" class="stack">${csrfField(frame.csrf)}
        <label for="new-email">Add an address (we send it a confirmation link; badges sent to it join your account)</label>
        <div class="row"><input id="new-email" name="email" type="email" required autocomplete="email" /><button type="submit" class="secondary">Add</button></div>
      </form></section>`,
    html`<section class="card" aria-labelledby="profile-h"><h2 id="profile-h">Public profile</h2>
      <p>${account.public_profile ? html`Your public badges are listed at <a href=${profileUrl}>${profileUrl}</a>.` : "Off: nobody can see a list of your badges."}</p>
      <form method="post" action="/account/profile" class="stack">${csrfField(frame.csrf)}
        <label class="check"><input type="checkbox" name="public_profile" value="on" checked=${account.public_profile} /> Show my public badges on a profile page</label>
        <label for="vanity_name">Profile name (optional, in the address)</label>
        <input id="vanity_name" name="vanity_name" maxlength="40" pattern="[A-Za-z][A-Za-z0-9-]{2,39}" value=${account.vanity_name ?? ""} />
        <button type="submit">Save profile</button>
      </form></section>`,
    html`<section class="card" aria-labelledby="merge-h"><h2 id="merge-h">Merge another account</h2>
      <p>Have badges under another address with its own account? We e-mail that address a link; open it here, signed in as you are now, and its badges and addresses move to this account.</p>
      <form method="post" action="/account/merge" class="stack">${csrfField(frame.csrf)}
        <label for="merge-email">The other account's address</label>
        <div class="row"><input id="merge-email" name="email" type="email" required /><button type="submit" class="secondary">Send merge link</button></div>
      </form></section>`,
    html`<section class="card" aria-labelledby="connections-h"><h2 id="connections-h">Connected applications</h2>
      <p><a href="/account/connections">See and remove the applications you gave access to your badges</a></p></section>`,
    data.exports
      ? html`<section class="card" aria-labelledby="export-h"><h2 id="export-h">Download everything</h2>
      <p>A ZIP file of all your badges (each as an image with its Open Badges record baked in, its OB 2.0 assertion and its OB 3.0 credential, as a VC-JWT and as JSON-LD with a Data Integrity proof), your profile and your e-mail addresses. We prepare it in the background and e-mail you a link to it; the link works for 7 days.</p>
      <form method="post" action="/account/export" class="inline">${csrfField(frame.csrf)}<button type="submit" class="secondary">Prepare my export</button></form></section>`
      : null,
    html`<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">Sessions</h2>
      <form method="post" action="/sign_out_everywhere" class="inline">${csrfField(frame.csrf)}<button type="submit" class="danger">Sign out everywhere</button></form></section>`,
  );
};
