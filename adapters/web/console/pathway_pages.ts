import type { BadgeTemplateRecord } from "../../../core/badges/mod.ts";
import {
  MILESTONE_TEMPLATES_MAX,
  MILESTONES_MAX,
  type PathwayEarner,
  type PathwayRecord,
  type PathwayState,
} from "../../../core/pathways/mod.ts";
import type { PageRequest } from "../../../core/shared/mod.ts";
import { html } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { OnBehalfTemplates } from "./badge_pages.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, when } from "./console_layout.ts";
import { listStatus, pager } from "./console_paging.ts";

const STATE_LABEL: Record<PathwayState, string> = { draft: "Draft", published: "Published", archived: "Archived" };

/** A milestone row as typed: its name, the templates ticked, how many of them are required ("" for all). */
export interface MilestoneForm {
  name: string;
  templateIds: string[];
  required: string;
}

export interface PathwayForm {
  name: string;
  description: string;
  completion: string;
  milestones: MilestoneForm[];
  recommendNext: boolean;
}

/** Empty rows offered below the milestones typed, so one more can be added without a script. */
const SPARE_ROWS = 2;

export const emptyPathwayForm: PathwayForm = {
  name: "",
  description: "",
  completion: "",
  milestones: [],
  recommendNext: false,
};

export const pathwayForm = (p: PathwayRecord): PathwayForm => ({
  name: p.name,
  description: p.description,
  completion: p.completion_badge_template_id,
  milestones: p.milestones.map((m) => ({
    name: m.name,
    templateIds: [...m.badge_template_ids],
    required: String(m.required),
  })),
  recommendNext: p.recommend_next,
});

/** The rows the form shows: those typed, then spare ones, never more than a pathway may have. */
export const milestoneRows = (form: PathwayForm): MilestoneForm[] => {
  const rows = [...form.milestones];
  const shown = Math.min(MILESTONES_MAX, Math.max(3, rows.length + SPARE_ROWS));
  while (rows.length < shown) rows.push({ name: "", templateIds: [], required: "" });
  return rows.slice(0, MILESTONES_MAX);
};

export interface PathwayListRow {
  pathway: PathwayRecord;
  earners: number;
  completed: number;
}

const pathwaysPath = (member: ConsoleMember) => consolePath(member.organizationId, "pathways");

/** The organization's pathways: name, state, version, earners and completions. */
export const pathwaysPage = (
  frame: Frame,
  member: ConsoleMember,
  data: { rows: PathwayListRow[]; total: number; req: PageRequest; notice: string | null },
) =>
  consoleLayout(
    frame,
    member,
    "pathways",
    html`<h1>Pathways</h1>`,
    html`<p>A pathway is a goal of milestones, each a set of your badge templates of which an earner must hold a number. Earning every milestone earns the pathway's completion badge. Progress is kept from its publication on.</p>`,
    notice(data.notice),
    member.allowed("templates.write")
      ? html`<p><a class="button" href=${`${pathwaysPath(member)}/new`}>New pathway</a></p>`
      : null,
    listStatus({ total: data.total, page: data.req.page, pageSize: data.req.per }, "pathway", "pathways"),
    data.rows.length === 0
      ? html`<p class="muted">No pathways yet.</p>`
      : html`<div class="table-wrap card"><table class="pathway-table">
          <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Version</th><th scope="col">Earners</th><th scope="col">Completed</th></tr></thead>
          <tbody>${data.rows.map(
            (r) => html`<tr>
              <td><a href=${`${pathwaysPath(member)}/${r.pathway.id}`}>${r.pathway.name}</a></td>
              <td data-label="State"><span class="tag">${STATE_LABEL[r.pathway.state]}</span></td>
              <td data-label="Version">${r.pathway.version}</td>
              <td data-label="Earners">${r.pathway.state === "draft" ? "—" : html`<a href=${`${pathwaysPath(member)}/${r.pathway.id}/earners`} aria-label=${`${r.earners} earners of ${r.pathway.name}`}>${r.earners}</a>`}</td>
              <td data-label="Completed">${r.pathway.state === "draft" ? "—" : r.completed}</td>
            </tr>`,
          )}</tbody>
        </table></div>`,
    pager({ total: data.total, page: data.req.page, pageSize: data.req.per }, pathwaysPath(member), {}),
  );

const templateLabel = (t: BadgeTemplateRecord) => (t.state === "active" ? t.name : `${t.name} (${t.state})`);

const milestoneFieldset = (
  row: MilestoneForm,
  i: number,
  choices: BadgeTemplateRecord[],
  grantors: readonly OnBehalfTemplates[],
) => {
  const id = (f: string) => `m${i}-${f}`;
  return html`<fieldset class="stack milestone"><legend>Milestone ${i + 1}</legend>
    <label for=${id("name")}>Name</label>
    <input id=${id("name")} name=${`m${i}_name`} maxlength="200" value=${row.name} />
    <fieldset class="checkboxes"><legend>Its templates (at most ${MILESTONE_TEMPLATES_MAX})</legend>
      ${choices.map(
        (t) =>
          html`<label class="check"><input type="checkbox" name=${`m${i}_templates`} value=${t.id} checked=${row.templateIds.includes(t.id)} /> ${templateLabel(t)}</label>`,
      )}
      ${grantors.flatMap((g) =>
        g.templates.map(
          (t) =>
            html`<label class="check"><input type="checkbox" name=${`m${i}_templates`} value=${t.id} checked=${row.templateIds.includes(t.id)} /> ${t.name} (for ${g.grantor.name})</label>`,
        ),
      )}
    </fieldset>
    <label for=${id("required")}>How many of them are required</label>
    <input id=${id("required")} name=${`m${i}_required`} type="text" inputmode="numeric" pattern="[0-9]*" maxlength="3" aria-describedby=${id("required-help")} value=${row.required} />
    <p class="small" id=${id("required-help")}>Left empty: all of them.</p>
  </fieldset>`;
};

/**
 * The form creating a pathway (`pathway` null) or changing one. `templates` are the organization's
 * active templates and any the pathway names already (kept ticked when they were archived since);
 * `grantors`' active templates, which the organization issues on their behalf, may be milestones too.
 */
export const pathwayEditPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    pathway: PathwayRecord | null;
    templates: BadgeTemplateRecord[];
    grantors: readonly OnBehalfTemplates[];
    form: PathwayForm;
    error: string | null;
    notice: string | null;
  },
) => {
  const p = data.pathway;
  const may = member.allowed("templates.write");
  const editable = may && p?.state !== "archived";
  const base = pathwaysPath(member);
  const chosen = new Set([data.form.completion, ...data.form.milestones.flatMap((m) => m.templateIds)]);
  const choices = data.templates.filter((t) => t.state === "active" || chosen.has(t.id));
  const templateName = (id: string) =>
    data.templates.find((t) => t.id === id)?.name ??
    data.grantors.flatMap((g) => g.templates).find((t) => t.id === id)?.name ??
    id;
  const completionChoices = data.templates.filter((t) => t.state === "active" || t.id === data.form.completion);
  return consoleLayout(
    frame,
    member,
    "pathways",
    html`<p class="small"><a href=${base}>Pathways</a></p>`,
    html`<h1>${p ? p.name : "New pathway"}</h1>`,
    p
      ? html`<p><span class="tag">${STATE_LABEL[p.state]}</span> Version ${p.version} · created ${when(p.created_at)}${p.published_at ? html` · published ${when(p.published_at)}` : null}</p>`
      : null,
    editable && p?.state === "published"
      ? html`<p class="small">Its name and description change in place; new milestones or a new completion template make its version ${p.version + 1}, and earners keep the badges they hold.</p>`
      : null,
    notice(data.notice),
    problem(data.error),
    p && p.state !== "draft" ? html`<p><a href=${`${base}/${p.id}/earners`}>Earners' progress</a></p>` : null,
    editable
      ? html`<form method="post" action=${p ? `${base}/${p.id}` : base} class="stack card pathway-form">${csrfField(frame.csrf)}
          <label for="pathway-name">Name</label>
          <input id="pathway-name" name="name" required maxlength="200" value=${data.form.name} />
          <label for="pathway-description">Description</label>
          <textarea id="pathway-description" name="description" maxlength="2000" rows="3">${data.form.description}</textarea>
          <label for="pathway-completion">Completion badge (an active template)</label>
          <select id="pathway-completion" name="completion_badge_template_id" required>
            <option value="" selected=${data.form.completion === ""}>Choose a template</option>
            ${completionChoices.map((t) => html`<option value=${t.id} selected=${t.id === data.form.completion}>${templateLabel(t)}</option>`)}
          </select>
          <p class="small">Fill in as many milestones as the pathway has, in order; rows left empty are ignored. Save to get more empty rows.</p>
          ${milestoneRows(data.form).map((row, i) => milestoneFieldset(row, i, choices, data.grantors))}
          <label class="check"><input type="checkbox" name="recommend_next" value="on" checked=${data.form.recommendNext} aria-describedby="recommend-next-help" /> Recommend each earner's next milestone</label>
          <p class="small" id="recommend-next-help">When a badge an earner accepts makes another milestone their next one, its templates they do not hold are recommended to them (shown in their wallet, not mailed; once per template and person).</p>
          <button type="submit">${p ? "Save pathway" : "Create pathway"}</button>
        </form>`
      : p
        ? html`${p.description ? html`<p>${p.description}</p>` : null}
          <p>Completion badge: ${templateName(p.completion_badge_template_id)}</p>
          <p>${p.recommend_next ? "Recommends each earner's next milestone." : "Does not recommend earners' next milestones."}</p>
          <section aria-labelledby="milestones-h"><h2 id="milestones-h">Milestones</h2><ol>${p.milestones.map(
            (m) => html`<li>${m.name}: ${m.required} of ${m.badge_template_ids.map(templateName).join(", ")}</li>`,
          )}</ol></section>`
        : null,
    may && p && p.state !== "archived"
      ? html`<div class="actions">
          ${p.state === "draft" ? postButton(frame, `${base}/${p.id}/publish`, "Publish", { ariaLabel: `Publish ${p.name}` }) : null}
          ${postButton(frame, `${base}/${p.id}/archive`, "Archive", { ariaLabel: `Archive ${p.name}` })}
          ${p.state === "draft" ? postButton(frame, `${base}/${p.id}/delete`, "Delete", { cls: "danger", ariaLabel: `Delete ${p.name}` }) : null}
        </div>`
      : null,
  );
};

/** A pathway's earners' progress, as kept: milestones done, completion. */
export const pathwayEarnersPage = (
  frame: Frame,
  member: ConsoleMember,
  data: { pathway: PathwayRecord; earners: PathwayEarner[]; total: number; req: PageRequest },
) => {
  const p = data.pathway;
  const base = `${pathwaysPath(member)}/${p.id}`;
  return consoleLayout(
    frame,
    member,
    "pathways",
    html`<p class="small"><a href=${pathwaysPath(member)}>Pathways</a> › <a href=${base}>${p.name}</a></p>`,
    html`<h1>Earners of ${p.name}</h1>`,
    html`<p>Version ${p.version}: ${p.milestones.length} ${p.milestones.length === 1 ? "milestone" : "milestones"}. Latest change first.</p>`,
    listStatus({ total: data.total, page: data.req.page, pageSize: data.req.per }, "earner", "earners"),
    data.earners.length === 0
      ? html`<p class="muted">No earners yet.</p>`
      : html`<div class="table-wrap card"><table class="pathway-table">
          <thead><tr><th scope="col">Recipient</th><th scope="col">Milestones done</th><th scope="col">State</th><th scope="col">Last change</th></tr></thead>
          <tbody>${data.earners.map(
            (e) => html`<tr>
              <td>${e.recipient_email}</td>
              <td data-label="Milestones done"><span>${e.milestones_done} of ${e.milestones.length}</span>
                <ul class="plain small">${e.milestones.map((m) => html`<li>${m.done ? "✓" : "·"} ${m.name}: ${Math.min(m.held, m.required)} of ${m.required}</li>`)}</ul></td>
              <td data-label="State">${e.state === "completed" ? html`Completed ${when(e.completed_at)}` : "In progress"}</td>
              <td data-label="Last change">${when(e.updated_at)}</td>
            </tr>`,
          )}</tbody>
        </table></div>`,
    pager({ total: data.total, page: data.req.page, pageSize: data.req.per }, `${base}/earners`, {}),
  );
};
