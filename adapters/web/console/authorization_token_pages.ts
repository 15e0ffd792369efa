import type { Flags } from "../../../core/auth/mod.ts";
import type { AuthorizationTokenRecord } from "../../../core/credentials/mod.ts";
import { html, type Node } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, secretOnce, when } from "./console_layout.ts";

const FLAG_LABELS = [
  ["read_enabled", "Read", "list and fetch"],
  ["write_enabled", "Write", "create and change"],
  ["delete_enabled", "Delete", "delete and revoke"],
] as const;

const flagTags = (t: Flags) =>
  html`<ul class="chips">${FLAG_LABELS.filter(([k]) => t[k]).map(([, label]) => html`<li>${label}</li>`)}</ul>`;

const tokenCard = (frame: Frame, member: ConsoleMember, t: AuthorizationTokenRecord, now: Date, canWrite: boolean) => {
  const base = `${consolePath(member.organizationId, "authorization_tokens")}/${t.id}`;
  const expired = t.expires_at.getTime() <= now.getTime();
  const name = t.description || "Untitled token";
  return html`<li class="card">
    <div class="card-head"><h3 class="card-title">${name}</h3>${expired ? html`<span class="tag bad">expired</span>` : html`<span class="tag ok">active</span>`}</div>
    <dl class="facts">
      <div><dt>Permissions</dt><dd>${flagTags(t)}</dd></div>
      <div><dt>Created</dt><dd>${when(t.created_at)}</dd></div>
      <div><dt>Expires</dt><dd>${when(t.expires_at)}</dd></div>
      <div><dt>Last used</dt><dd>${when(t.last_used_at, "never")}</dd></div>
    </dl>
    ${
      canWrite
        ? html`<div class="actions">
          ${postButton(frame, `${base}/rotate`, "Rotate", { ariaLabel: `Rotate ${name}` })}
          ${postButton(frame, `${base}/revoke`, "Revoke", { cls: "danger", ariaLabel: `Revoke ${name}` })}</div>`
        : null
    }
  </li>`;
};

/** The new-token form as sent, when it was refused. */
export interface TokenForm extends Flags {
  description: string;
}

export const tokensPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    tokens: AuthorizationTokenRecord[];
    now: Date;
    ceiling: Flags;
    notice: string | null;
    error: string | null;
    created: { description: string; value: string } | null;
    form: TokenForm | null;
    more: Node;
  },
) => {
  const canWrite = member.allowed("developers.write");
  return consoleLayout(
    frame,
    member,
    "authorization_tokens",
    html`<p class="eyebrow">Developers</p><h1>Authorization tokens</h1>`,
    html`<p class="muted">A token is sent as the HTTP Basic user name. It lives 180 days; rotating gives a new value with the same permissions and stops the old one at once.</p>`,
    notice(data.notice),
    problem(data.error),
    data.created
      ? secretOnce(
          "new-token",
          `Token ${data.created.description ? `“${data.created.description}”` : ""}`.trim(),
          data.created.value,
          "Copy it now: this is the only time Laurel shows it.",
        )
      : null,
    data.tokens.length === 0
      ? html`<p class="card muted">No active tokens.</p>`
      : html`<ul class="plain stack-list">${data.tokens.map((t) => tokenCard(frame, member, t, data.now, canWrite))}</ul>`,
    data.more,
    canWrite
      ? html`<section class="card" aria-labelledby="new-token-h"><h2 id="new-token-h">New token</h2>
        <form method="post" action=${consolePath(member.organizationId, "authorization_tokens")} class="stack">${csrfField(frame.csrf)}
          <label for="token-description">Description</label><input id="token-description" name="description" maxlength="2000" value=${data.form?.description ?? ""} />
          <fieldset class="checkboxes"><legend>Permissions (never more than your role allows)</legend>
            ${FLAG_LABELS.map(
              ([k, label, what]) =>
                html`<label class="check"><input type="checkbox" name=${k} value="on" checked=${data.ceiling[k] && (data.form ? data.form[k] : true)} disabled=${!data.ceiling[k]} /> ${label} <span class="small">(${what})</span></label>`,
            )}
          </fieldset>
          <button type="submit">Create token</button>
        </form></section>`
      : null,
  );
};
