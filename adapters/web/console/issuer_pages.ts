import type { IssuerAuthorizationView } from "../../../core/issuer_authorizations/mod.ts";
import type { TemplateView } from "../../../core/issuing/mod.ts";
import { html } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, when } from "./console_layout.ts";

const STATE_LABEL: Record<IssuerAuthorizationView["state"], string> = {
  pending: "Waiting for acceptance",
  accepted: "Issuing",
  ended: "Ended",
};

export interface GrantForm {
  issuer: string;
  all: boolean;
  templateIds: string[];
}

const templatesOf = (a: IssuerAuthorizationView) =>
  a.all_templates
    ? `Every template${a.badge_templates.length > 0 ? ` (now ${a.badge_templates.map((t) => t.name).join(", ")})` : ""}`
    : a.badge_templates.map((t) => t.name).join(", ") || "No template any more";

const row = (frame: Frame, member: ConsoleMember, a: IssuerAuthorizationView, side: "grantor" | "issuer") => {
  const other = side === "grantor" ? a.issuer_name : a.grantor_name;
  const base = `/console/${member.organizationId}/${side === "grantor" ? "issuers" : "grantors"}/${a.id}`;
  const may = member.allowed("templates.write");
  const actions = may
    ? html`${side === "issuer" && a.state === "pending" ? postButton(frame, `${base}/accept`, "Accept", { ariaLabel: `Accept issuing for ${other}` }) : null}
      ${postButton(frame, `${base}/end`, side === "issuer" && a.state === "pending" ? "Decline" : "End", {
        cls: "danger",
        ariaLabel: side === "grantor" ? `End the authorization of ${other}` : `End issuing for ${other}`,
      })}`
    : null;
  return html`<li class="card">
    <div class="card-head"><h3 class="card-title">${other}</h3><span class="tag">${STATE_LABEL[a.state]}</span></div>
    <p class="small">${templatesOf(a)} · since ${when(a.created_at)}</p>
    ${actions ? html`<div class="actions">${actions}</div>` : null}
  </li>`;
};

const list = (frame: Frame, member: ConsoleMember, items: IssuerAuthorizationView[], side: "grantor" | "issuer") =>
  items.length === 0
    ? html`<p class="muted">None.</p>`
    : html`<ul class="plain stack-list">${items.map((a) => row(frame, member, a, side))}</ul>`;

/**
 * Authorized issuers, both sides: the organizations issuing this one's templates on its behalf
 * (with the form to authorize one), and the organizations this one issues for.
 */
export const issuersPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    given: IssuerAuthorizationView[];
    received: IssuerAuthorizationView[];
    templates: TemplateView[];
    notice: string | null;
    error: string | null;
    form: GrantForm;
  },
) =>
  consoleLayout(
    frame,
    member,
    "issuers",
    html`<h1>Authorized issuers</h1>`,
    html`<p>Another organization can issue your badge templates on your behalf: the badges are yours (your records, your name as their issuer) and say which organization issued them. It issues once it accepts, until either of you ends it; badges issued stay valid.</p>`,
    notice(data.notice),
    problem(data.error),
    html`<section aria-labelledby="given-h"><h2 id="given-h">Organizations issuing for you</h2>${list(frame, member, data.given, "grantor")}</section>`,
    html`<section aria-labelledby="received-h"><h2 id="received-h">Organizations you issue for</h2>${list(frame, member, data.received, "issuer")}
      ${data.received.some((a) => a.state === "accepted") ? html`<p class="small">Their templates are on your <a href=${consolePath(member.organizationId, "issue")}>issue form</a> and take part in your imports.</p>` : null}</section>`,
    member.allowed("templates.write")
      ? html`<section class="card" aria-labelledby="grant-h"><h2 id="grant-h">Authorize an organization</h2>
        <form method="post" action=${consolePath(member.organizationId, "issuers")} class="stack">${csrfField(frame.csrf)}
          <label for="grant-issuer">The organization's id or address</label>
          <input id="grant-issuer" name="issuer_organization_id" required maxlength="500" aria-describedby="grant-issuer-help" value=${data.form.issuer} />
          <p class="small" id="grant-issuer-help">Its public page address, or the id at its end.</p>
          <fieldset class="checkboxes"><legend>Which templates it may issue</legend>
            <label class="check"><input type="checkbox" name="all_templates" value="on" checked=${data.form.all} /> Every template, those made later included</label>
            ${data.templates.map(
              (t) =>
                html`<label class="check"><input type="checkbox" name="badge_template_ids" value=${t.template.id} checked=${data.form.templateIds.includes(t.template.id)} /> ${t.template.name}${t.template.state === "active" ? "" : ` (${t.template.state})`}</label>`,
            )}
          </fieldset>
          <button type="submit">Authorize</button>
        </form></section>`
      : null,
  );
