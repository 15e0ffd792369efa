import type { EmployeeView } from "../../../core/workforce/mod.ts";
import { EMPLOYEE_STATES } from "../../../core/workforce/mod.ts";
import { html } from "../html.ts";
import type { Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, problem, when } from "./console_layout.ts";
import { listStatus, pager } from "./console_paging.ts";

export interface EmployeeFilters {
  name_or_email: string;
  employee_state: string;
  team: string;
  department: string;
  external_id: string;
}

const STATE_LABEL: Record<string, string> = {
  created: "Not invited",
  pending: "Invited",
  accepted: "Connected",
  rejected: "Declined",
};

const nameOf = (v: EmployeeView): string =>
  v.authorized ? `${v.record.first_name} ${v.record.last_name}`.trim() || v.record.email : v.record.email;

/** Without workforce authorization a record is its e-mail and external id, as over the API. */
const reducedNote = (authorized: boolean) =>
  authorized
    ? null
    : html`<p class="status warn">This organization is not authorized for workforce data: records show their e-mail and external id only. The operator can authorize it.</p>`;

/** `/console/<org>/employees`: the API's list and filters. */
export const employeesPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    employees: EmployeeView[];
    total: number;
    page: number;
    pageSize: number;
    authorized: boolean;
    filters: EmployeeFilters;
    error: string | null;
  },
) => {
  const path = consolePath(member.organizationId, "employees");
  const f = data.filters;
  return consoleLayout(
    frame,
    member,
    "employees",
    html`<h1>Employees</h1>`,
    html`<p class="muted"><a href=${`/console/${member.organizationId}/imports`}>Import from CSV</a></p>`,
    reducedNote(data.authorized),
    html`<form method="get" action=${path} class="card filters" role="search" aria-label="Filter employees">
      <div class="filter-grid">
        <div class="field"><label for="e-name">Name or e-mail</label><input id="e-name" name="name_or_email" type="search" maxlength="200" value=${f.name_or_email} /></div>
        ${
          data.authorized
            ? html`<div class="field"><label for="e-state">Connection</label>
              <select id="e-state" name="employee_state"><option value="">Any</option>${EMPLOYEE_STATES.map((s) => html`<option value=${s} selected=${s === f.employee_state}>${STATE_LABEL[s] ?? s}</option>`)}</select></div>`
            : null
        }
        <div class="field"><label for="e-team">Team</label><input id="e-team" name="team" maxlength="200" value=${f.team} /></div>
        <div class="field"><label for="e-department">Department</label><input id="e-department" name="department" maxlength="200" value=${f.department} /></div>
        <div class="field"><label for="e-external">External id</label><input id="e-external" name="external_id" maxlength="200" value=${f.external_id} /></div>
      </div>
      <div class="row"><button type="submit">Show employees</button> <a href=${path}>Clear filters</a></div>
    </form>`,
    problem(data.error),
    listStatus(data, "record", "records"),
    data.employees.length === 0
      ? html`<p class="card muted">No employee record matches.</p>`
      : html`<ul class="plain stack-list">${data.employees.map(
          (v) => html`<li class="card">
            <div class="card-head"><h2 class="card-title h3"><a href=${`${path}/${v.record.id}`}>${nameOf(v)}</a></h2>${data.authorized ? html`<span class="tag">${STATE_LABEL[v.record.employee_state] ?? v.record.employee_state}</span>` : null}</div>
            <p class="small"><span class="raw">${v.record.email}</span> · external id <span class="raw">${v.record.external_id}</span>${data.authorized && v.record.department ? ` · ${v.record.department}` : ""}</p>
          </li>`,
        )}</ul>`,
    pager(data, path, f),
  );
};

const FACTS: Array<[string, string]> = [
  ["position_title", "Position"],
  ["department", "Department"],
  ["team", "Team"],
  ["job_family", "Job family"],
  ["level", "Level"],
  ["manager_external_id", "Manager's external id"],
  ["country", "Country"],
  ["state_or_province", "State or province"],
];

/** `/console/<org>/employees/<id>`: one record. */
export const employeePage = (frame: Frame, member: ConsoleMember, view: EmployeeView) => {
  const r = view.record as unknown as Record<string, unknown> & EmployeeView["record"];
  const authorized = view.authorized === true;
  return consoleLayout(
    frame,
    member,
    "employees",
    html`<p class="small"><a href=${consolePath(member.organizationId, "employees")}>All employees</a></p>`,
    html`<h1>${nameOf(view)}</h1>`,
    reducedNote(authorized),
    html`<section class="card"><dl class="facts">
      <div><dt>E-mail</dt><dd class="raw">${r.email}</dd></div>
      <div><dt>External id</dt><dd class="raw">${r.external_id}</dd></div>
      ${
        authorized
          ? [
              html`<div><dt>Connection</dt><dd>${STATE_LABEL[r.employee_state] ?? r.employee_state} since ${when(r.employee_state_updated_at)}</dd></div>`,
              ...FACTS.filter(([k]) => typeof r[k] === "string" && r[k] !== "").map(
                ([k, label]) => html`<div><dt>${label}</dt><dd>${String(r[k])}</dd></div>`,
              ),
              html`<div><dt>Last invitation</dt><dd>${when(r.last_invitation_sent_at, "Never")}</dd></div>`,
              html`<div><dt>Record created</dt><dd>${when(r.created_at)}</dd></div>`,
            ]
          : null
      }
    </dl></section>`,
    authorized && view.held.length > 0
      ? html`<section class="card" aria-labelledby="held-h"><h2 id="held-h">Badges they share</h2>
        <p>${view.held.length} ${view.held.length === 1 ? "badge" : "badges"} from their connected account.</p></section>`
      : null,
  );
};
