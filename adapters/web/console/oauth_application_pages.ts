import type { Scope } from "../../../core/auth/mod.ts";
import type { OAuthApplication } from "../../../core/credentials/mod.ts";
import { html, type Node } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, secretOnce, when } from "./console_layout.ts";

export interface ApplicationRow {
  app: OAuthApplication;
  dataServices: boolean;
}

const scopeBoxes = (idPrefix: string, offered: readonly Scope[], chosen: readonly string[], disabled: boolean) =>
  html`<fieldset class="checkboxes"><legend>Scopes it may be granted</legend>
    ${offered.map(
      (s) =>
        html`<label class="check"><input type="checkbox" id=${`${idPrefix}-${s}`} name="scopes" value=${s} checked=${chosen.includes(s)} disabled=${disabled} /> <code>${s}</code></label>`,
    )}
  </fieldset>`;

const dataServicesLine = (on: boolean) =>
  html`<span class=${on ? "tag ok" : "tag"}>${on ? "data services on" : "data services off"}</span>`;

const appCard = (frame: Frame, member: ConsoleMember, row: ApplicationRow, canWrite: boolean) => {
  const { app } = row;
  const base = `${consolePath(member.organizationId, "oauth_applications")}/${app.id}`;
  return html`<li class="card">
    <div class="card-head"><h3 class="card-title">${app.name}</h3>${dataServicesLine(row.dataServices)}</div>
    ${app.description ? html`<p class="description">${app.description}</p>` : null}
    <dl class="facts">
      <div><dt>Client id</dt><dd class="raw">${app.uid}</dd></div>
      <div><dt>Scopes</dt><dd>${app.scopes ? html`<ul class="chips">${app.scopes.split(" ").map((s) => html`<li>${s}</li>`)}</ul>` : "none"}</dd></div>
      <div><dt>Created</dt><dd>${when(app.created_at)}</dd></div>
      <div><dt>Last used</dt><dd>${when(app.last_used_at, "never")}</dd></div>
    </dl>
    ${
      canWrite
        ? html`<div class="actions"><a class="button secondary" href=${base}>Edit</a>
          ${postButton(frame, `${base}/delete`, "Delete", { cls: "danger", ariaLabel: `Delete ${app.name}` })}</div>`
        : null
    }
  </li>`;
};

export const applicationsPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    rows: ApplicationRow[];
    offered: readonly Scope[];
    notice: string | null;
    error: string | null;
    created: { name: string; uid: string; secret: string } | null;
    form: { name: string; description: string; scopes: readonly string[] };
    more: Node;
  },
) => {
  const canWrite = member.allowed("developers.write");
  const action = consolePath(member.organizationId, "oauth_applications");
  return consoleLayout(
    frame,
    member,
    "oauth_applications",
    html`<p class="eyebrow">Developers</p><h1>OAuth applications</h1>`,
    html`<p class="muted">An application gets access tokens at the token endpoint with its client id and secret (client credentials). Webhooks are posted only while one of your applications has data services enabled; Laurel's operators switch them on at your request.</p>`,
    notice(data.notice),
    problem(data.error),
    data.created
      ? secretOnce(
          "new-secret",
          `Client secret of ${data.created.name} (client id ${data.created.uid})`,
          data.created.secret,
          "Copy it now: this is the only time Laurel shows it. If it is lost, delete the application and create another.",
        )
      : null,
    data.rows.length === 0
      ? html`<p class="card muted">No applications yet.</p>`
      : html`<ul class="plain stack-list">${data.rows.map((r) => appCard(frame, member, r, canWrite))}</ul>`,
    data.more,
    canWrite
      ? html`<section class="card" aria-labelledby="new-app-h"><h2 id="new-app-h">New application</h2>
        <form method="post" action=${action} class="stack">${csrfField(frame.csrf)}
          <label for="app-name">Name</label><input id="app-name" name="name" required maxlength="255" value=${data.form.name} />
          <label for="app-description">Description (optional)</label><textarea id="app-description" name="description" maxlength="2000" rows="3">${data.form.description}</textarea>
          ${scopeBoxes("new-scope", data.offered, data.form.scopes, false)}
          <button type="submit">Create application</button>
        </form></section>`
      : null,
  );
};

/** An application's form as sent, when it was refused. */
export interface ApplicationForm {
  name: string;
  description: string;
  scopes: readonly string[];
}

export const applicationEditPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    app: OAuthApplication;
    dataServices: boolean;
    offered: readonly Scope[];
    error: string | null;
    form: ApplicationForm | null;
  },
) => {
  const { app } = data;
  const base = `${consolePath(member.organizationId, "oauth_applications")}/${app.id}`;
  const form: ApplicationForm = data.form ?? {
    name: app.name,
    description: app.description ?? "",
    scopes: app.scopes ? app.scopes.split(" ") : [],
  };
  return consoleLayout(
    frame,
    member,
    "oauth_applications",
    html`<p class="eyebrow"><a href=${consolePath(member.organizationId, "oauth_applications")}>OAuth applications</a></p><h1>${app.name}</h1>`,
    problem(data.error),
    html`<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">Edit</h2>
      <form method="post" action=${base} class="stack">${csrfField(frame.csrf)}
        <label for="app-name">Name</label><input id="app-name" name="name" required maxlength="255" value=${form.name} />
        <label for="app-description">Description (optional)</label><textarea id="app-description" name="description" maxlength="2000" rows="3">${form.description}</textarea>
        ${scopeBoxes("edit-scope", data.offered, form.scopes, false)}
        <p class="small">Data services: ${dataServicesLine(data.dataServices)} (set by Laurel's operators).</p>
        <button type="submit">Save changes</button>
      </form></section>`,
    html`<section class="card danger-zone" aria-labelledby="delete-h"><h2 id="delete-h">Delete</h2>
      <p>Its access tokens stop working at once, and software using its client id can no longer get new ones.</p>
      ${postButton(frame, `${base}/delete`, "Delete this application", { cls: "danger" })}</section>`,
  );
};
