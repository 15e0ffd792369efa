import type { VNode } from "preact";
import { type BadgeTemplateRecord, templateImageUrl } from "../../../core/badges/mod.ts";
import type { MailMessage } from "../../../core/mail/mod.ts";
import { IMAGE_MAX_BYTES } from "../../../core/organizations/mod.ts";
import { html, type Node, safeUrl } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, when } from "./console_layout.ts";

/** What the template form shows: the member's last input, or the template's values. */
export interface TemplateForm {
  name: string;
  description: string;
  skills: string;
  reporting_tags: string;
  notification_message: string;
  criteria_url: string;
  alignments: string;
  state: string;
  public: boolean;
  allow_duplicate_badges: boolean;
}

export const EMPTY_FORM: TemplateForm = {
  name: "",
  description: "",
  skills: "",
  reporting_tags: "",
  notification_message: "",
  criteria_url: "",
  alignments: "",
  state: "draft",
  public: true,
  allow_duplicate_badges: false,
};

/** One alignment a line: `name | url | description`, the description optional. */
export const formOfTemplate = (t: BadgeTemplateRecord): TemplateForm => ({
  name: t.name,
  description: t.description,
  skills: t.skills.join(", "),
  reporting_tags: t.reporting_tags.join(", "),
  notification_message: t.notification_message ?? "",
  criteria_url: t.criteria_url ?? "",
  alignments: t.alignments.map((a) => [a.name, a.url, a.description ?? ""].join(" | ").replace(/ \| $/, "")).join("\n"),
  state: t.state,
  public: t.public,
  allow_duplicate_badges: t.allow_duplicate_badges,
});

const STATE_LABEL: Record<string, string> = { draft: "Draft", active: "Active", archived: "Archived" };
const stateTag = (state: string) =>
  html`<span class=${state === "active" ? "tag ok" : "tag"}>${STATE_LABEL[state] ?? state}</span>`;
const issuedLine = (n: number) => (n === 1 ? "1 badge issued" : `${n} badges issued`);

const thumbnail = (publicUrl: string, t: BadgeTemplateRecord, size: number): VNode | null => {
  const src = safeUrl(templateImageUrl({ publicBase: publicUrl }, t));
  return src ? html`<img class="template-image" src=${src} alt="" width=${size} height=${size} />` : null;
};

export const templatesPage = (
  frame: Frame,
  member: ConsoleMember,
  data: { templates: BadgeTemplateRecord[]; publicUrl: string; notice: string | null; more: Node },
) => {
  const path = consolePath(member.organizationId, "templates");
  const canWrite = member.allowed("templates.write");
  return consoleLayout(
    frame,
    member,
    "templates",
    html`<h1>Badge templates</h1>`,
    html`<p class="muted">A template is what a badge says: its name, image, criteria and skills. Badges are issued from active templates; archiving one stops its issuing and keeps the badges it issued.</p>`,
    notice(data.notice),
    canWrite ? html`<p><a class="button" href=${`${path}/new`}>New template</a></p>` : null,
    data.templates.length === 0
      ? html`<p class="card muted">No templates yet.</p>`
      : html`<ul class="plain stack-list">${data.templates.map(
          (t) => html`<li class="card template-row">
            ${thumbnail(data.publicUrl, t, 56)}
            <div>
              <div class="card-head"><h2 class="card-title">${canWrite ? html`<a href=${`${path}/${t.id}`}>${t.name}</a>` : t.name}</h2>${stateTag(t.state)}</div>
              <p class="small">${issuedLine(t.badges_count)} · ${t.public ? "public" : "not public"} · updated ${when(t.updated_at)}</p>
            </div>
          </li>`,
        )}</ul>`,
    data.more,
  );
};

const fields = (form: TemplateForm, state: string | null) => html`
  <label for="tpl-name">Name</label><input id="tpl-name" name="name" required maxlength="255" value=${form.name} />
  <label for="tpl-description">Description</label>
  <p class="small" id="tpl-description-help">Also the criteria narrative of the badge's Open Badges records: what an earner did to earn it.</p>
  <textarea id="tpl-description" name="description" required maxlength="5000" rows="5" aria-describedby="tpl-description-help">${form.description}</textarea>
  <label for="tpl-skills">Skills (optional, separated by commas)</label><input id="tpl-skills" name="skills" value=${form.skills} />
  <label for="tpl-reporting-tags">Reporting tags (optional, separated by commas)</label>
  <p class="small" id="tpl-reporting-tags-help">Your own labels, never shown to earners. Over the API, <code>filter=badge_templates[reporting_tags]::tag</code> selects the badges of templates with any of the tags named.</p>
  <input id="tpl-reporting-tags" name="reporting_tags" value=${form.reporting_tags} aria-describedby="tpl-reporting-tags-help" />
  <label for="tpl-notification-message">Message in the badge e-mail (optional)</label>
  <p class="small" id="tpl-notification-message-help">Your own words to each person this template's badge is sent to, shown as you write them, under "A message from" your organization. At most 2,000 characters.</p>
  <textarea id="tpl-notification-message" name="notification_message" maxlength="2000" rows="3" aria-describedby="tpl-notification-message-help">${form.notification_message}</textarea>
  <label for="tpl-criteria">Criteria address (optional)</label><input id="tpl-criteria" name="criteria_url" type="url" maxlength="2048" value=${form.criteria_url} />
  <label for="tpl-alignments">Alignments (optional)</label>
  <p class="small" id="tpl-alignments-help">One a line: name | address | description (the description may be left out).</p>
  <textarea id="tpl-alignments" name="alignments" rows="3" aria-describedby="tpl-alignments-help">${form.alignments}</textarea>
  ${
    state === null || state === "draft"
      ? html`<label for="tpl-state">State</label>
        <select id="tpl-state" name="state">
          <option value="draft" selected=${form.state !== "active"}>Draft: not issuing yet</option>
          <option value="active" selected=${form.state === "active"}>Active: badges may be issued</option>
        </select>`
      : html`<p class="small">State: ${stateTag(state)}</p>`
  }
  <label class="check"><input type="checkbox" name="public" value="on" checked=${form.public} /> Public: shown on the organization's page</label>
  <label class="check"><input type="checkbox" name="allow_duplicate_badges" value="on" checked=${form.allow_duplicate_badges} /> Allow one person several live badges of this template</label>`;

const imageField = (current: VNode | null) => html`<fieldset class="stack"><legend>Image</legend>
    ${current ? html`<div class="template-current"><p class="small">Current image:</p>${current}</div>` : html`<p class="status warn" id="tpl-image-none">No image yet: saved like this, the template's badges have no picture of their own in the mail, the wallet or on their page. Choose one below (it can be added later too).</p>`}
    <label for="tpl-image">${current ? "Replace it with" : "Upload"} a PNG or SVG (at most ${IMAGE_MAX_BYTES / 1024 / 1024} MiB)</label>
    <input id="tpl-image" name="image" type="file" accept="image/png,image/svg+xml" data-preview="tpl-image-preview" data-max-bytes=${IMAGE_MAX_BYTES} data-chosen-hides=${current ? undefined : "tpl-image-none"} />
    <img id="tpl-image-preview" class="template-image" alt="Preview of the chosen image" width="120" height="120" hidden />
  </fieldset>`;

export const templateNewPage = (
  frame: Frame,
  member: ConsoleMember,
  data: { form: TemplateForm; error: string | null },
) =>
  consoleLayout(
    frame,
    member,
    "templates",
    html`<p class="eyebrow"><a href=${consolePath(member.organizationId, "templates")}>Badge templates</a></p><h1>New template</h1>`,
    problem(data.error),
    html`<section class="card" aria-label="New template">
      <form method="post" action=${consolePath(member.organizationId, "templates")} enctype="multipart/form-data" class="stack">${csrfField(frame.csrf)}
        ${fields(data.form, null)}
        ${imageField(null)}
        <button type="submit">Create template</button>
      </form></section>`,
  );

/**
 * Where the template's badge is issued from, and its id as an integrator needs it (the API, a
 * CSV file's `badge_template_id`): text to select without scripts, a copy button with them.
 */
const templateUse = (member: ConsoleMember, t: BadgeTemplateRecord): VNode =>
  html`<section class="card" aria-labelledby="use-h"><h2 id="use-h">Issue this badge</h2>
    ${
      !member.allowed("badges.issue")
        ? null
        : t.state === "active"
          ? html`<p class="actions"><a class="button" href=${`${consolePath(member.organizationId, "issue")}?template=${t.id}`}>Issue to one person</a>
            <a class="button secondary" href=${`${consolePath(member.organizationId, "imports")}?template=${t.id}`}>Issue from a CSV file</a></p>`
          : html`<p class="small">Only an active template issues badges: ${t.state === "draft" ? "publish it (State: Active) first." : "unarchive it first."}</p>`
    }
    <p class="small" id="tpl-id-label">Template id, for the API and the <code>badge_template_id</code> column of CSV files:</p>
    <div class="id-copy"><code id="tpl-id" class="raw">${t.id}</code><button type="button" class="secondary" data-copy="tpl-id" hidden>Copy id</button></div>
    <p><a href=${`${consolePath(member.organizationId, "templates")}/${t.id}/mail`}>Preview the mail</a> each person is sent with this badge.</p>
  </section>`;

/**
 * The pending-badge mail of a template's badge, as the mail sender renders it: the HTML part in a
 * sandboxed frame served with a policy of its own (`htmlPart`), the text part as text.
 */
export const templateMailPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    template: BadgeTemplateRecord;
    mail: MailMessage;
    recipient: { name: string; email: string };
    htmlPart: string;
  },
) => {
  const t = data.template;
  const path = `${consolePath(member.organizationId, "templates")}/${t.id}`;
  return consoleLayout(
    frame,
    member,
    "templates",
    html`<p class="eyebrow"><a href=${consolePath(member.organizationId, "templates")}>Badge templates</a> · <a href=${path}>${t.name}</a></p><h1>The badge mail</h1>`,
    html`<p class="muted">What each person issued a “${t.name}” badge receives, here for a sample recipient. A message written on the issue form replaces the template's own.</p>`,
    html`<section class="card" aria-labelledby="mail-head-h"><h2 id="mail-head-h">Envelope</h2>
      <dl class="facts">
        <div><dt>To</dt><dd>${`${data.recipient.name} <${data.mail.to}>`}</dd></div>
        <div><dt>Subject</dt><dd id="mail-subject">${data.mail.subject}</dd></div>
      </dl></section>`,
    html`<section class="card" aria-labelledby="mail-html-h"><h2 id="mail-html-h">As most mail programs show it</h2>
      <iframe class="mail-preview" sandbox="" src=${data.htmlPart} title="The mail as HTML" referrerpolicy="no-referrer"></iframe></section>`,
    html`<section class="card" aria-labelledby="mail-text-h"><h2 id="mail-text-h">As plain text</h2>
      <pre class="mail-text" id="mail-text">${data.mail.text}</pre></section>`,
  );
};

export const templateEditPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    template: BadgeTemplateRecord;
    publicUrl: string;
    form: TemplateForm;
    notice: string | null;
    error: string | null;
    /** The organization's other templates of the same name (case aside). */
    sameName: BadgeTemplateRecord[];
  },
) => {
  const t = data.template;
  const base = `${consolePath(member.organizationId, "templates")}/${t.id}`;
  const others = data.sameName.filter((o) => o.id !== t.id);
  return consoleLayout(
    frame,
    member,
    "templates",
    html`<p class="eyebrow"><a href=${consolePath(member.organizationId, "templates")}>Badge templates</a></p><h1>${t.name}</h1>`,
    html`<p class="small">${stateTag(t.state)} ${issuedLine(t.badges_count)}</p>`,
    templateUse(member, t),
    notice(data.notice),
    problem(data.error),
    others.length > 0
      ? html`<div class="status warn" role="status" id="tpl-same-name"><p>${others.length === 1 ? "Another template is" : `${others.length} other templates are`} also named “${t.name}”: ${others.map((o, i) => html`${i > 0 ? ", " : ""}<a href=${`${consolePath(member.organizationId, "templates")}/${o.id}`}>${o.name}</a> (${o.state})`)}.</p>
        <p>Whoever issues, imports or earns these badges cannot tell them apart by name: rename one of them.</p></div>`
      : null,
    html`<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">Edit</h2>
      <form method="post" action=${base} enctype="multipart/form-data" class="stack">${csrfField(frame.csrf)}
        ${fields(data.form, t.state)}
        ${imageField(thumbnail(data.publicUrl, t, 120))}
        <button type="submit">Save changes</button>
      </form></section>`,
    html`<section class="card" aria-labelledby="state-h"><h2 id="state-h">${t.state === "archived" ? "Unarchive" : "Archive"}</h2>
      ${
        t.state === "archived"
          ? html`<p>Unarchived, it issues badges again.</p>${postButton(frame, `${base}/unarchive`, "Unarchive this template")}`
          : html`<p>Archived, it issues no more badges; those it issued stay valid.</p>${postButton(frame, `${base}/archive`, "Archive this template")}`
      }</section>`,
    t.badges_count === 0
      ? html`<section class="card danger-zone" aria-labelledby="delete-h"><h2 id="delete-h">Delete</h2>
        <p>It has issued no badge, so it can be deleted for good.</p>
        ${postButton(frame, `${base}/delete`, "Delete this template", { cls: "danger" })}</section>`
      : null,
  );
};
