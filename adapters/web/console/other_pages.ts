import type { AuditRecord } from "../../../core/audit/mod.ts";
import type { InvitationRecord } from "../../../core/members/mod.ts";
import { IMAGE_MAX_BYTES, type OrganizationRecord, type ProfileInput } from "../../../core/organizations/mod.ts";
import { html, type Node, safeUrl } from "../html.ts";
import { csrfField, type Frame, layout } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, roleLabel, when } from "./console_layout.ts";

/** `/console/invitations/<token>`: who invites, to what, and how to accept. */
export const invitationPage = (
  frame: Frame,
  data: {
    invitation: InvitationRecord;
    organization: OrganizationRecord;
    /** The signed-in account holds the invited address, confirmed. */
    mayAccept: boolean;
    signInUrl: string;
    action: string;
  },
) => {
  const { invitation, organization } = data;
  return layout(
    { ...frame, noindex: true },
    html`<section class="card narrow message">
      <p class="eyebrow">Invitation</p>
      <h1>Join ${organization.name}</h1>
      <p>${invitation.invited_by_name} invites <strong class="raw">${invitation.email}</strong> to join as <strong>${roleLabel(invitation.role).toLowerCase()}</strong>.</p>
      <p class="small">The invitation expires ${when(invitation.expires_at)}.</p>
      ${
        !frame.viewer
          ? html`<p>Sign in with ${invitation.email} to accept.</p><p><a class="button" href=${data.signInUrl}>Sign in to accept</a></p>`
          : data.mayAccept
            ? html`<form method="post" action=${data.action} class="stack">${csrfField(frame.csrf)}<button type="submit">Accept and open the console</button></form>`
            : html`<p class="status warn">You are signed in with another address. Sign out, then sign in with ${invitation.email} (or add it to your account and confirm it) to accept.</p>`
      }
    </section>`,
  );
};

const actorText = (r: AuditRecord, names: Map<string, string>): Node => {
  switch (r.actor.kind) {
    case "member":
      return names.get(r.actor.id ?? "") ?? `member ${r.actor.id ?? ""}`;
    case "authorization_token":
      return html`authorization token <span class="raw">${r.actor.id ?? ""}</span>`;
    case "oauth_application":
      return `OAuth application ${r.actor.id ?? ""}`;
    default:
      return "Laurel operator";
  }
};

const detailsText = (d: Record<string, unknown>): string =>
  Object.entries(d)
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ");

export const auditPage = (
  frame: Frame,
  member: ConsoleMember,
  data: { items: AuditRecord[]; names: Map<string, string>; next: string | null; first: boolean },
) => {
  const path = consolePath(member.organizationId, "audit");
  return consoleLayout(
    frame,
    member,
    "audit",
    html`<h1>Audit log</h1>`,
    html`<p class="muted">Every change made in the console or over the API, newest first, kept 400 days.</p>`,
    data.first ? null : html`<p><a href=${path}>Newest entries</a></p>`,
    data.items.length === 0
      ? html`<p class="card muted">Nothing recorded ${data.first ? "yet" : "before these"}.</p>`
      : html`<ol class="plain stack-list audit">${data.items.map(
          (r) => html`<li class="card">
            <div class="card-head"><h3 class="card-title"><code>${r.action}</code></h3>${when(r.occurred_at)}</div>
            <p>By ${actorText(r, data.names)}${r.client_address ? html` from <span class="raw">${r.client_address}</span>` : null}</p>
            ${r.target ? html`<p class="small raw">${r.target}</p>` : null}
            ${Object.keys(r.details).length > 0 ? html`<p class="small">${detailsText(r.details)}</p>` : null}
          </li>`,
        )}</ol>`,
    data.next ? html`<p><a class="button secondary" href=${`${path}?after=${data.next}`}>Older entries</a></p>` : null,
  );
};

export const profilePage = (
  frame: Frame,
  member: ConsoleMember,
  org: OrganizationRecord,
  data: { publicPage: string; notice: string | null; error: string | null; form: ProfileInput | null },
) => {
  const website = safeUrl(org.website_url);
  const image = safeUrl(org.image_url);
  const path = consolePath(member.organizationId, "profile");
  const f = data.form ?? {
    name: org.name,
    description: org.description ?? "",
    email: org.email ?? "",
    website_url: org.website_url ?? "",
  };
  return consoleLayout(
    frame,
    member,
    "profile",
    html`<h1>Organization profile</h1>`,
    data.notice ? html`<p class="notice" role="status">${data.notice}</p>` : null,
    data.error ? html`<p class="status bad" role="alert">${data.error}</p>` : null,
    html`<p class="small">Shown on <a href=${data.publicPage}>the organization's public page</a> and in every Open Badges issuer profile.</p>`,
    member.allowed("profile.update")
      ? html`<section class="card" aria-labelledby="profile-h"><h2 id="profile-h">Details</h2>
        <form method="post" action=${path} class="stack">${csrfField(frame.csrf)}
          <label for="org-name">Name</label><input id="org-name" name="name" required maxlength="255" value=${f.name} />
          <label for="org-description">Description</label><textarea id="org-description" name="description" maxlength="5000" rows="4">${f.description}</textarea>
          <label for="org-website">Website</label><input id="org-website" name="website_url" type="url" maxlength="2048" value=${f.website_url} />
          <label for="org-email">Contact e-mail</label><input id="org-email" name="email" type="email" required maxlength="320" value=${f.email} />
          <button type="submit">Save profile</button>
        </form></section>`
      : html`<section class="card"><dl class="facts">
        <div><dt>Name</dt><dd>${org.name}</dd></div>
        <div><dt>Description</dt><dd class="description">${org.description ?? "—"}</dd></div>
        <div><dt>Website</dt><dd>${website ? html`<a href=${website} rel="nofollow noopener">${org.website_url}</a>` : (org.website_url ?? "—")}</dd></div>
        <div><dt>Contact e-mail</dt><dd class="raw">${org.email ?? "—"}</dd></div>
      </dl></section>`,
    html`<section class="card" aria-labelledby="image-h"><h2 id="image-h">Issuer image</h2>
      ${image ? html`<img class="org-image" src=${image} alt=${`${org.name} image`} width="96" height="96" />` : html`<p class="muted">No image yet.</p>`}
      ${
        member.allowed("profile.update")
          ? html`<form method="post" action=${`${path}/image`} enctype="multipart/form-data" class="stack">${csrfField(frame.csrf)}
            <label for="org-image">PNG or SVG, at most 1 MiB (an SVG with script, event handlers or outside references is refused)</label>
            <input id="org-image" name="image" type="file" accept="image/png,image/svg+xml" required data-max-bytes=${IMAGE_MAX_BYTES} />
            <button type="submit" class="secondary">Upload image</button>
          </form>`
          : null
      }</section>`,
  );
};
