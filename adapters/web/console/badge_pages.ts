import type { VNode } from "preact";
import { BADGE_STATES, badgeUrl, fullName, type ShapeUrls } from "../../../core/badges/mod.ts";
import { badgePageVisible } from "../../../core/earners/mod.ts";
import type { EventRecord } from "../../../core/events/mod.ts";
import {
  acceptanceRate,
  type BadgeView,
  type Dashboard,
  type DeliveryStatus,
  percent,
  type TemplateView,
} from "../../../core/issuing/mod.ts";
import { html, type Node, safeUrl } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, when } from "./console_layout.ts";
import { listStatus, pager } from "./console_paging.ts";
import { eventLink, eventWords } from "./event_words.ts";

/** What the issue form holds: what was typed, kept when it is refused. */
export interface IssueForm {
  badge_template_id: string;
  issued_to_first_name: string;
  issued_to_middle_name: string;
  issued_to_last_name: string;
  recipient_email: string;
  issued_at: string;
  expires_at: string;
  evidence: string;
  /** This badge's own message in its mail (the template's when empty). */
  notification_message: string;
  suppress: boolean;
}

/** A refusal's field errors by form field (`evidence.2.value` is the evidence box's). */
export type FieldMessages = Record<string, string>;

const STATE_LABEL: Record<string, string> = {
  pending: "Pending",
  accepted: "Accepted",
  rejected: "Rejected",
  revoked: "Revoked",
  replaced: "Replaced",
};

const stateTag = (state: string): VNode =>
  html`<span class=${`tag state-${state}${state === "revoked" || state === "rejected" ? " bad" : ""}`}>${STATE_LABEL[state] ?? state}</span>`;

const importLink = (member: ConsoleMember): VNode =>
  html`<a href=${`/console/${member.organizationId}/imports`}>Import from CSV</a>`;

/** Dates are typed as text: a date alone is what most people mean, and `datetime-local` insists on a time. */
const DATE_HINT = "A date, such as 2026-12-01, or a date and time, such as 2026-12-01 09:30.";

/** A labelled input with its error beside it (linked for screen readers). */
const input = (
  id: string,
  name: string,
  label: string,
  value: string,
  errors: FieldMessages,
  attrs: Record<string, unknown> = {},
  hint: string | null = null,
): Node => {
  const error = errors[name];
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${hint ? html`<p class="small muted" id=${`${id}-hint`}>${hint}</p>` : null}
    ${attrs.textarea ? html`<textarea id=${id} name=${name} rows="3" aria-invalid=${error ? "true" : undefined} aria-describedby=${described}>${value}</textarea>` : html`<input id=${id} name=${name} value=${value} aria-invalid=${error ? "true" : undefined} aria-describedby=${described} ...${attrs} />`}
    ${error ? html`<p class="field-error" id=${`${id}-error`}>${error}</p>` : null}
  </div>`;
};

/** `/console/<org>/issue`: one badge, the API's fields, the API's checks. */
/** A grantor's active templates this organization may issue on its behalf. */
export interface OnBehalfTemplates {
  grantor: { id: string; name: string };
  templates: Array<{ id: string; name: string }>;
}

export const issuePage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    templates: TemplateView[];
    /** Draft templates: shown as such, never offered, so that one missing is explained. */
    drafts: TemplateView[];
    /** Templates of the organizations this one issues for, offered after its own. */
    onBehalf?: OnBehalfTemplates[];
    form: IssueForm;
    error: string | null;
    fields: FieldMessages;
  },
) => {
  const f = data.form;
  const errors = data.fields;
  const templateError = errors.badge_template_id;
  const templatePath = (id: string) => `${consolePath(member.organizationId, "templates")}/${id}`;
  const drafts =
    data.drafts.length === 0
      ? null
      : html`<div class="status info" id="issue-drafts"><p>${data.drafts.length === 1 ? "A draft template issues nothing until it is published:" : "Draft templates issue nothing until they are published:"}</p>
        <ul>${data.drafts.map(
          (d) =>
            html`<li>${member.allowed("templates.write") ? html`<a href=${templatePath(d.template.id)}>${d.template.name}</a>` : d.template.name} (draft: publish it first${member.allowed("templates.write") ? ", on its page, State: Active" : ", or ask an admin to"})</li>`,
        )}</ul></div>`;
  return consoleLayout(
    frame,
    member,
    "issue",
    html`<h1>Issue a badge</h1>`,
    html`<p class="muted">To one person. For many at once, ${importLink(member)}.</p>`,
    problem(data.error),
    data.templates.length === 0 && (data.onBehalf ?? []).length === 0
      ? html`<div class="card"><p class="muted">No active template yet: a template must be active to issue its badge.</p>${drafts}</div>`
      : html`<form method="post" action=${consolePath(member.organizationId, "issue")} class="stack card issue-form" novalidate>
        ${csrfField(frame.csrf)}
        <div class="field">
          <label for="issue-template">Badge template</label>
          <select id="issue-template" name="badge_template_id" aria-invalid=${templateError ? "true" : undefined} aria-describedby=${templateError ? "issue-template-error" : undefined}>
            ${data.templates.map((t) => html`<option value=${t.template.id} selected=${t.template.id === f.badge_template_id}>${t.template.name}</option>`)}
            ${(data.onBehalf ?? []).map((g) => html`<optgroup label=${`On behalf of ${g.grantor.name}`}>${g.templates.map((t) => html`<option value=${t.id} selected=${t.id === f.badge_template_id}>${t.name} (for ${g.grantor.name})</option>`)}</optgroup>`)}
            ${data.drafts.length > 0 ? html`<optgroup label="Drafts (publish one first)">${data.drafts.map((d) => html`<option value=${d.template.id} disabled>${d.template.name} (draft: publish it first)</option>`)}</optgroup>` : null}
          </select>
          ${drafts}
          ${templateError ? html`<p class="field-error" id="issue-template-error">${templateError}</p>` : null}
        </div>
        <fieldset class="checkboxes"><legend>Recipient</legend>
          ${input("issue-first", "issued_to_first_name", "First name", f.issued_to_first_name, errors, { required: true, maxlength: 255, autocomplete: "off" })}
          ${input("issue-middle", "issued_to_middle_name", "Middle name (optional)", f.issued_to_middle_name, errors, { maxlength: 255, autocomplete: "off" })}
          ${input("issue-last", "issued_to_last_name", "Last name", f.issued_to_last_name, errors, { required: true, maxlength: 255, autocomplete: "off" })}
          ${input("issue-email", "recipient_email", "E-mail address", f.recipient_email, errors, { type: "email", required: true, maxlength: 254, autocomplete: "off" })}
        </fieldset>
        ${input("issue-issued-at", "issued_at", "Issued at (UTC)", f.issued_at, errors, { required: true, autocomplete: "off" }, DATE_HINT)}
        ${input("issue-expires-at", "expires_at", "Expires at (UTC, optional)", f.expires_at, errors, { autocomplete: "off" }, DATE_HINT)}
        ${input("issue-evidence", "evidence", "Evidence links (optional)", f.evidence, errors, { textarea: true }, "One https:// address a line; a name before it with a bar, as in: Final project | https://example.org/work")}
        ${input("issue-message", "notification_message", "A message in the recipient's mail (optional)", f.notification_message, errors, { textarea: true, maxlength: 2000 }, "Shown in the badge mail as your words, instead of the template's message; empty: the template's.")}
        <label class="check"><input type="checkbox" name="suppress_badge_notification_email" value="true" checked=${f.suppress} /> Do not e-mail the recipient</label>
        <p class="small">The mail the recipient gets: each template's page under <a href=${consolePath(member.organizationId, "templates")}>Templates</a> previews it (Preview the mail).</p>
        <button type="submit">Issue badge</button>
      </form>`,
  );
};

/** The list's filter form values, as received (they come back in the form and the page links). */
export interface BadgeFilters {
  state: string;
  badge_template_id: string;
  query: string;
  issued_at_min: string;
  issued_at_max: string;
  sort: string;
  /** Badges a page: "" (50) or "100". */
  per: string;
}

export const BADGE_SORTS: Array<{ value: string; label: string }> = [
  { value: "", label: "Newest issued first" },
  { value: "issued_at", label: "Oldest issued first" },
  { value: "-updated_at", label: "Recently changed first" },
  { value: "updated_at", label: "Least recently changed first" },
  { value: "issued_to_last_name", label: "Last name, A to Z" },
  { value: "-issued_to_last_name", label: "Last name, Z to A" },
];

/** The page sizes offered; the first is the API's page size. */
export const BADGE_PAGE_SIZES = ["50", "100"] as const;

/** The list's filters (not its sort, page size or page), as the bulk form carries them for "every badge the filter matches". */
export const BADGE_FILTER_KEYS = ["state", "badge_template_id", "query", "issued_at_min", "issued_at_max"] as const;

/** What a bulk action did, read back from the redirect after it (numbers only). */
export interface BulkSummary {
  action: "revoke" | "resend";
  done: number;
  skipped: number;
  unsent: number;
}

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString("en-GB")} ${n === 1 ? one : many}`;

export const bulkSummaryText = (b: BulkSummary): string =>
  b.action === "revoke"
    ? `Revoked ${plural(b.done, "badge", "badges")}.${b.skipped ? ` ${plural(b.skipped, "badge was", "badges were")} passed over: only pending or accepted badges can be revoked.` : ""}`
    : `Notifications queued for ${plural(b.done, "badge", "badges")}.${b.skipped ? ` ${plural(b.skipped, "badge was", "badges were")} passed over: only pending badges are notified.` : ""}${b.unsent ? ` ${plural(b.unsent, "notification was", "notifications were")} not sent: the organization's mail budget is spent for now; try again later.` : ""}`;

/** A sortable column: its sort key, ascending first unless `descFirst`. */
const SORTABLE: Record<string, { key: string; descFirst: boolean }> = {
  recipient: { key: "issued_to_last_name", descFirst: false },
  issued: { key: "issued_at", descFirst: true },
  changed: { key: "updated_at", descFirst: true },
};

/** The list's query string with `changes` applied (empty values dropped, back to page 1). */
const listQuery = (f: BadgeFilters, changes: Partial<BadgeFilters>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...changes })) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "";
};

/** A column heading that sorts the list by it, and says how it is sorted now. */
const sortHeading = (
  path: string,
  f: BadgeFilters,
  column: keyof typeof SORTABLE,
  label: string,
  cls: string | undefined = undefined,
): Node => {
  const { key, descFirst } = SORTABLE[column] as { key: string; descFirst: boolean };
  const current = f.sort === "" ? "-issued_at" : f.sort;
  const now = current === key ? "ascending" : current === `-${key}` ? "descending" : null;
  const next = now === "ascending" ? `-${key}` : now === "descending" ? key : descFirst ? `-${key}` : key;
  // The default order is sent as no sort at all, as the form sends it.
  const sort = next === "-issued_at" ? "" : next;
  return html`<th scope="col" class=${cls} aria-sort=${now ?? undefined}><a href=${`${path}${listQuery(f, { sort })}`}>${label}${now === "ascending" ? html`<span aria-hidden="true"> ▲</span>` : now === "descending" ? html`<span aria-hidden="true"> ▼</span>` : null}</a></th>`;
};

/** `/console/<org>/badges`: the API's list, its filters and sort as a form, a compact table with bulk actions. */
export const badgesPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    badges: BadgeView[];
    total: number;
    page: number;
    pageSize: number;
    templates: TemplateView[];
    filters: BadgeFilters;
    error: string | null;
    notice: string | null;
    /** The most badges a bulk action touches. */
    bulkLimit: number;
  },
) => {
  const path = consolePath(member.organizationId, "badges");
  const f = data.filters;
  const mayRevoke = member.allowed("badges.revoke");
  const mayResend = member.allowed("badges.issue");
  const bulk = (mayRevoke || mayResend) && data.badges.length > 0;
  const filtered = BADGE_FILTER_KEYS.some((k) => f[k] !== "");
  const name = (v: BadgeView) =>
    fullName(v.badge.issued_to_first_name, v.badge.issued_to_middle_name, v.badge.issued_to_last_name);
  return consoleLayout(
    frame,
    member,
    "badges",
    html`<h1>Badges</h1>`,
    notice(data.notice),
    html`<p class="muted">${member.allowed("badges.issue") ? html`<a href=${consolePath(member.organizationId, "issue")}>Issue one</a> · ${importLink(member)} · ` : null}<a href=${`${consolePath(member.organizationId)}/figures`}>Figures</a></p>`,
    html`<form method="get" action=${path} class="card filters" role="search" aria-label="Filter badges">
      <div class="filter-grid">
        <div class="field"><label for="f-query">Recipient or template</label><input id="f-query" name="query" type="search" maxlength="200" value=${f.query} /></div>
        <div class="field"><label for="f-state">State</label>
          <select id="f-state" name="state"><option value="">Any</option>${BADGE_STATES.map((s) => html`<option value=${s} selected=${s === f.state}>${STATE_LABEL[s]}</option>`)}</select></div>
        <div class="field"><label for="f-template">Template</label>
          <select id="f-template" name="badge_template_id"><option value="">Any</option>${data.templates.map((t) => html`<option value=${t.template.id} selected=${t.template.id === f.badge_template_id}>${t.template.name}</option>`)}</select></div>
        <div class="field"><label for="f-from">Issued from</label><input id="f-from" name="issued_at_min" type="date" value=${f.issued_at_min} /></div>
        <div class="field"><label for="f-to">Issued until</label><input id="f-to" name="issued_at_max" type="date" value=${f.issued_at_max} /></div>
        <div class="field"><label for="f-sort">Order</label>
          <select id="f-sort" name="sort">${BADGE_SORTS.map((s) => html`<option value=${s.value} selected=${s.value === f.sort}>${s.label}</option>`)}</select></div>
        <div class="field"><label for="f-per">Badges a page</label>
          <select id="f-per" name="per">${BADGE_PAGE_SIZES.map((n) => html`<option value=${n === "50" ? "" : n} selected=${(f.per || "50") === n}>${n}</option>`)}</select></div>
      </div>
      <div class="row"><button type="submit">Show badges</button> <a href=${path}>Clear filters</a></div>
    </form>`,
    problem(data.error),
    listStatus(data, "badge", "badges"),
    data.badges.length === 0
      ? html`<p class="card muted">No badge matches.</p>`
      : html`<form method="post" action=${`${path}/bulk/${mayResend ? "resend" : "revoke"}`} class="bulk-form" id="bulk-form">${csrfField(frame.csrf)}
        ${BADGE_FILTER_KEYS.map((k) => (f[k] ? html`<input type="hidden" name=${`filter_${k}`} value=${f[k]} />` : null))}
        ${(["sort", "per"] as const).map((k) => (f[k] ? html`<input type="hidden" name=${`view_${k}`} value=${f[k]} />` : null))}
        <div class="table-wrap card"><table class="badge-table">
          <caption class="sr-only">Badges, ${BADGE_SORTS.find((s) => s.value === f.sort)?.label.toLowerCase() ?? "sorted"}</caption>
          <thead><tr>
            ${bulk ? html`<th scope="col" class="pick"><span class="sr-only">Select</span></th>` : null}
            ${sortHeading(path, f, "recipient", "Recipient")}
            <th scope="col">Template</th>
            <th scope="col" class="col-state">State</th>
            ${sortHeading(path, f, "issued", "Issued")}
            ${sortHeading(path, f, "changed", "Changed", "col-changed")}
          </tr></thead>
          <tbody>${data.badges.map(
            (v) => html`<tr data-badge=${v.badge.id}>
              ${bulk ? html`<td class="pick"><input type="checkbox" name="id" value=${v.badge.id} aria-label=${`Select the badge of ${name(v)}, ${v.template.name}`} /></td>` : null}
              <td class="recipient"><a href=${`${path}/${v.badge.id}`}>${name(v)}</a><br /><span class="raw small">${v.badge.recipient_email}</span><span class="state-inline"> ${stateTag(v.badge.state)}</span></td>
              <td>${v.template.name}</td>
              <td class="col-state">${stateTag(v.badge.state)}</td>
              <td class="nowrap">${when(v.badge.issued_at)}</td>
              <td class="nowrap col-changed">${when(v.badge.updated_at)}</td>
            </tr>`,
          )}</tbody>
        </table></div>
        ${
          bulk
            ? html`<div class="card bulk-actions" role="group" aria-labelledby="bulk-h"><h2 id="bulk-h" class="h3">With these badges</h2>
              <fieldset class="radios"><legend class="small">Which badges</legend>
                <label class="check"><input type="radio" name="scope" value="selection" checked /> The badges selected above</label>
                <label class="check"><input type="radio" name="scope" value="filter" /> Every badge ${filtered ? "the filter matches" : "of the organization"} (${plural(data.total, "badge", "badges")}${data.total > data.bulkLimit ? `; the ${data.bulkLimit.toLocaleString("en-GB")} most recently issued` : ""})</label>
              </fieldset>
              <p class="small muted">You are asked to confirm first. At most ${data.bulkLimit.toLocaleString("en-GB")} badges at once.</p>
              <div class="row bulk-buttons">
                ${mayResend ? html`<button type="submit" class="secondary" formaction=${`${path}/bulk/resend`}>Resend notifications…</button>` : null}
              </div>
              ${
                mayRevoke
                  ? html`<div class="field bulk-revoke"><label for="bulk-reason">Reason for revoking</label>
                    <textarea id="bulk-reason" name="reason" rows="2" maxlength="1000"></textarea>
                    <div class="row"><button type="submit" class="danger" formaction=${`${path}/bulk/revoke`}>Revoke…</button></div></div>`
                  : null
              }
            </div>`
            : null
        }
      </form>`,
    pager(data, path, f),
  );
};

const deliveryText = (d: DeliveryStatus): Node => {
  switch (d.kind) {
    case "queued":
      return html`<p><span class="tag">Waiting to send</span> to <span class="raw">${d.mail.to}</span> since ${when(d.mail.created_at)}${d.mail.attempts > 0 ? html`, ${d.mail.attempts} failed ${d.mail.attempts === 1 ? "attempt" : "attempts"} (${d.mail.last_error ?? ""})` : null}</p>`;
    case "failed":
      return html`<p><span class="tag bad">Not delivered</span> to <span class="raw">${d.mail.to}</span>: ${d.mail.last_error ?? "refused"} (gave up ${when(d.mail.failed_at)})</p>`;
    case "sent":
      return html`<p><span class="tag state-accepted">Sent</span> to <span class="raw">${d.to}</span> ${when(d.at)}</p>`;
    default:
      return html`<p class="muted">No notification was sent.</p>`;
  }
};

/** `/console/<org>/badges/<id>`: the badge, its events, its notification, and what the role may do. */
export const badgePage = (
  frame: Frame,
  member: ConsoleMember,
  urls: ShapeUrls,
  data: {
    view: BadgeView;
    events: EventRecord[];
    delivery: DeliveryStatus;
    notice: string | null;
    error: string | null;
    reason: string;
    /** The replacement's issue time: the default, or as sent (the form's `datetime-local`, UTC). */
    now: string;
    /** The replacement's address as sent, when it was refused. */
    recipientEmail: string;
  },
) => {
  const { badge, template, issuer, authorizedIssuer } = data.view;
  const base = `${consolePath(member.organizationId, "badges")}/${badge.id}`;
  const name = fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name);
  // A badge this organization issued on another's behalf is that one's to change.
  const own = badge.organization_id === member.organizationId;
  const live = own && (badge.state === "pending" || badge.state === "accepted");
  const reasonError = data.error !== null;
  return consoleLayout(
    frame,
    member,
    "badges",
    html`<p class="small"><a href=${consolePath(member.organizationId, "badges")}>All badges</a></p>`,
    html`<div class="card-head"><h1>${name}</h1>${stateTag(badge.state)}</div>`,
    notice(data.notice),
    problem(data.error),
    html`<section class="card" aria-labelledby="badge-h"><h2 id="badge-h">${template.name}</h2>
      <dl class="facts">
        <div><dt>Recipient</dt><dd class="raw">${badge.recipient_email}</dd></div>
        <div><dt>Issued</dt><dd>${when(badge.issued_at)}</dd></div>
        ${authorizedIssuer ? html`<div><dt>Issuer</dt><dd>${authorizedIssuer.name}, on behalf of ${issuer.name}</dd></div>` : null}
        <div><dt>Expires</dt><dd>${when(badge.expires_at, "Never")}</dd></div>
        ${badge.revocation_reason ? html`<div><dt>Revocation reason</dt><dd>${badge.revocation_reason}</dd></div>` : null}
        ${badge.replacement_badge_id ? html`<div><dt>Replaced by</dt><dd><a href=${`${consolePath(member.organizationId, "badges")}/${badge.replacement_badge_id}`}>the new badge</a></dd></div>` : null}
        ${badge.replaces_badge_id ? html`<div><dt>Replaces</dt><dd><a href=${`${consolePath(member.organizationId, "badges")}/${badge.replaces_badge_id}`}>the earlier badge</a></dd></div>` : null}
        ${badge.evidence.length > 0 ? html`<div><dt>Evidence</dt><dd><ul class="plain">${badge.evidence.map((e) => html`<li>${safeUrl(e.value) ? html`<a href=${safeUrl(e.value)} rel="nofollow noopener">${e.name}</a>` : e.name}</li>`)}</ul></dd></div>` : null}
        <div><dt>Public page</dt><dd>${badgePageVisible(badge, null) ? html`<a href=${badgeUrl(urls, badge.id)}>The badge's page</a>` : badge.state === "pending" ? "Once the recipient accepts it" : "None (not public)"}</dd></div>
        <div><dt>Id</dt><dd class="raw">${badge.id}</dd></div>
      </dl></section>`,
    html`<section class="card" aria-labelledby="delivery-h"><h2 id="delivery-h">Notification</h2>
      ${deliveryText(data.delivery)}
      ${own && badge.state === "pending" && member.allowed("badges.issue") ? postButton(frame, `${base}/resend`, "Resend the notification", { ariaLabel: `Resend the notification to ${badge.recipient_email}` }) : null}
    </section>`,
    live && (member.allowed("badges.revoke") || member.allowed("badges.replace"))
      ? html`<section class="card" aria-labelledby="actions-h"><h2 id="actions-h">Change</h2>
        ${
          member.allowed("badges.revoke")
            ? html`<form method="post" action=${`${base}/revoke`} class="stack">${csrfField(frame.csrf)}
              <label for="revoke-reason">Reason for revoking</label>
              <textarea id="revoke-reason" name="reason" rows="2" required maxlength="1000" aria-invalid=${reasonError ? "true" : undefined}>${data.reason}</textarea>
              <button type="submit" class="danger">Revoke badge</button></form>`
            : null
        }
        ${
          member.allowed("badges.replace")
            ? html`<form method="post" action=${`${base}/replace`} class="stack replace-form">${csrfField(frame.csrf)}
              <p class="small">Replacing issues a new badge of the same template; this one becomes replaced.</p>
              <label for="replace-issued-at">New badge issued at (UTC)</label>
              <p class="small muted" id="replace-issued-at-hint">${DATE_HINT}</p>
              <input id="replace-issued-at" name="issued_at" required autocomplete="off" aria-describedby="replace-issued-at-hint" value=${data.now} />
              <label for="replace-email">Recipient e-mail (empty: the same)</label>
              <input id="replace-email" name="recipient_email" type="email" maxlength="254" autocomplete="off" value=${data.recipientEmail} />
              <button type="submit" class="secondary">Replace badge</button></form>`
            : null
        }
      </section>`
      : null,
    own
      ? null
      : html`<p class="small muted">This badge is ${issuer.name}'s: only they revoke, replace or delete it.</p>`,
    own && member.allowed("badges.delete")
      ? html`<section class="card danger-zone" aria-labelledby="delete-h"><h2 id="delete-h">Delete</h2>
        <p class="small">The badge and its public page disappear for good; its events stay.</p>
        ${postButton(frame, `${base}/delete`, "Delete badge", { cls: "danger" })}</section>`
      : null,
    html`<section aria-labelledby="events-h"><h2 id="events-h">Events</h2>
      ${
        data.events.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<ol class="plain stack-list audit">${data.events.map(
              (
                e,
              ) => html`<li class="card"><div class="card-head"><h3 class="card-title">${eventWords(e)}</h3>${when(e.occurred_at)}</div>
                <p class="small">Kind <code>${e.event_type}</code>, as the events feed and webhooks name it</p></li>`,
            )}</ol>`
      }</section>`,
  );
};

const COUNT_LABELS: Array<[keyof Dashboard["counts"], string]> = [
  ["issued", "Issued"],
  ["pending", "Pending"],
  ["accepted", "Accepted"],
  ["rejected", "Rejected"],
  ["revoked", "Revoked"],
];

const weekLabel = (week: string): string =>
  new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" }).format(
    new Date(`${week}T00:00:00Z`),
  );

/** The chart as SVG drawn on the server: two bars a week, its title and description read out, the table below says the same. */
const weekChart = (weeks: Dashboard["weeks"]): VNode => {
  const width = 640;
  const height = 220;
  const top = 12;
  const bottom = 28;
  const left = 36;
  const max = Math.max(1, ...weeks.flatMap((w) => [w.issued, w.accepted]));
  const slot = (width - left) / weeks.length;
  const bar = Math.max(2, slot / 2 - 4);
  const y = (n: number) => top + (height - top - bottom) * (1 - n / max);
  const total = weeks.reduce((s, w) => s + w.issued, 0);
  const accepted = weeks.reduce((s, w) => s + w.accepted, 0);
  return html`<svg class="chart" viewBox=${`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title chart-desc" focusable="false">
    <title id="chart-title">Badges issued and accepted per week, last ${weeks.length} weeks</title>
    <desc id="chart-desc">${total} issued and ${accepted} accepted from the week of ${weekLabel(weeks[0]?.week ?? "")} to the week of ${weekLabel(weeks[weeks.length - 1]?.week ?? "")}; the table below gives each week.</desc>
    <line class="chart-axis" x1=${left} y1=${height - bottom} x2=${width} y2=${height - bottom} />
    <text class="chart-label" x=${left - 6} y=${y(max) + 4} text-anchor="end">${max}</text>
    <text class="chart-label" x=${left - 6} y=${height - bottom + 4} text-anchor="end">0</text>
    ${weeks.map((w, i) => {
      const x = left + i * slot + 2;
      return html`<g>
        <rect class="chart-issued" x=${x} y=${y(w.issued)} width=${bar} height=${height - bottom - y(w.issued)}><title>${`Week of ${weekLabel(w.week)}: ${w.issued} issued`}</title></rect>
        <rect class="chart-accepted" x=${x + bar + 2} y=${y(w.accepted)} width=${bar} height=${height - bottom - y(w.accepted)}><title>${`Week of ${weekLabel(w.week)}: ${w.accepted} accepted`}</title></rect>
        ${i % 2 === 0 ? html`<text class="chart-label" x=${x + bar} y=${height - 8} text-anchor="middle">${weekLabel(w.week)}</text>` : null}
      </g>`;
    })}
  </svg>`;
};

/** `/console/<org>`: the counts, the weeks, the latest events. */
export const dashboardPage = (
  frame: Frame,
  member: ConsoleMember,
  data: { dashboard: Dashboard; events: EventRecord[] },
) => {
  const { counts, weeks } = data.dashboard;
  const badges = consolePath(member.organizationId, "badges");
  const figures = `${consolePath(member.organizationId)}/figures`;
  return consoleLayout(
    frame,
    member,
    "home",
    html`<h1>${member.organizationName}</h1>`,
    html`<section aria-labelledby="counts-h"><h2 id="counts-h" class="sr-only">Badges by state</h2>
      <ul class="plain counts">${COUNT_LABELS.map(
        ([key, label]) =>
          html`<li class="card count" data-count=${key}><a href=${key === "issued" ? badges : `${badges}?state=${key}`}><span class="count-n">${counts[key].toLocaleString("en-GB")}</span> <span class="count-label">${label}</span></a></li>`,
      )}
      <li class="card count" data-count="rate"><a href=${figures}><span class="count-n">${percent(acceptanceRate({ ...counts, median_seconds_to_accept: null })) || "—"}</span> <span class="count-label">Acceptance rate</span></a></li>
      </ul></section>`,
    html`<p class="figures-link"><a href=${figures}>Figures: acceptance rate, median time to accept, per template and per week (CSV too)</a></p>`,
    html`<section class="card" aria-labelledby="weeks-h"><h2 id="weeks-h">Issued and accepted per week</h2>
      <p class="legend small"><span class="key key-issued" aria-hidden="true"></span> Issued <span class="key key-accepted" aria-hidden="true"></span> Accepted (and still accepted), by the week of acceptance</p>
      ${weekChart(weeks)}
      <div class="table-wrap"><table class="weeks">
        <caption class="sr-only">Badges issued and accepted per week</caption>
        <thead><tr><th scope="col">Week of</th><th scope="col">Issued</th><th scope="col">Accepted</th></tr></thead>
        <tbody>${weeks.map((w) => html`<tr data-week=${w.week}><th scope="row"><time datetime=${w.week}>${weekLabel(w.week)}</time></th><td>${w.issued}</td><td>${w.accepted}</td></tr>`)}</tbody>
      </table></div></section>`,
    html`<section aria-labelledby="latest-h"><h2 id="latest-h">Latest events</h2>
      ${
        data.events.length === 0
          ? html`<p class="muted">Nothing yet.</p>`
          : html`<ol class="plain stack-list audit">${data.events.map((e) => {
              const found = eventLink(e, member.organizationId);
              const link = found && member.allowed(found.action) ? found : null;
              return html`<li class="card" data-event=${e.event_type}><div class="card-head"><h3 class="card-title">${eventWords(e)}</h3>${when(e.occurred_at)}</div>
                ${link ? html`<p class="small"><a href=${link.href}>${link.label}</a></p>` : null}</li>`;
            })}</ol>`
      }</section>`,
  );
};
