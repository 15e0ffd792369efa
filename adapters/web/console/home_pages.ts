import { html } from "../html.ts";
import { csrfField, type Frame, layout } from "../layout.ts";
import { consolePath, roleLabel } from "./console_layout.ts";

/** `/console`: the organizations the signed-in account belongs to. */
export const organizationsPage = (
  frame: Frame,
  organizations: Array<{ id: string; name: string; role: string }>,
  signup: { emails: string[]; error: string | null; form: { name: string; email: string } } | null,
) =>
  layout(
    { ...frame, noindex: true },
    html`<h1>Your organizations</h1>`,
    organizations.length === 0
      ? html`<p class="card muted">You are not a member of any organization yet. When someone invites you, the invitation arrives by e-mail.</p>`
      : html`<ul class="plain org-list">${organizations.map(
          (o) =>
            html`<li class="card"><a class="org-link" href=${consolePath(o.id)}>${o.name}</a> <span class="tag">${roleLabel(o.role)}</span></li>`,
        )}</ul>`,
    signup
      ? html`<section class="card" aria-labelledby="new-org-h"><h2 id="new-org-h">Create an organization</h2>
        <p class="small">You become its owner. Its contact e-mail is one of your confirmed addresses; it appears on the badges it issues.</p>
        ${signup.error ? html`<p class="status bad" role="alert">${signup.error}</p>` : null}
        <form method="post" action="/console/organizations" class="stack">${csrfField(frame.csrf)}
          <label for="org-name">Name</label><input id="org-name" name="name" required maxlength="255" value=${signup.form.name} />
          <label for="org-email">Contact e-mail</label>
          <select id="org-email" name="email">${signup.emails.map((e) => html`<option value=${e} selected=${e === signup.form.email}>${e}</option>`)}</select>
          <button type="submit">Create organization</button>
        </form></section>`
      : null,
  );
