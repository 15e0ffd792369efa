import {
  COLUMNS,
  IMPORT_LIMITS,
  type ImportKind,
  type ImportRecord,
  type ImportTemplate,
  importProgress,
  mailShortfall,
  type RowProblem,
} from "../../../core/imports/mod.ts";
import type { CsvReading } from "../../csv/mod.ts";
import { html, type Node } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { OnBehalfTemplates } from "./badge_pages.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, problem, when } from "./console_layout.ts";

const KIND_LABEL: Record<ImportKind, string> = { badges: "Badges", employees: "Employee records" };
const DONE_LABEL: Record<ImportKind, string> = { badges: "issued", employees: "written" };
const STATE_LABEL: Record<ImportRecord["state"], string> = {
  validating: "Checking",
  ready: "Checked, not started",
  running: "Running",
  finished: "Finished",
  failed: "Failed",
};

export const importPath = (organizationId: string, id?: string): string =>
  `${consolePath(organizationId, "imports")}${id ? `/${id}` : ""}`;

/** What the member may import: badges with `badges.issue`, employee records with `employees.write`. */
export const importKindsFor = (member: ConsoleMember): ImportKind[] => [
  ...(member.allowed("badges.issue") ? (["badges"] as const) : []),
  ...(member.allowed("employees.write") ? (["employees"] as const) : []),
];

const columnList = (kind: ImportKind): Node => html`<p class="small">
    Required columns: ${COLUMNS[kind].required.map((c, i) => html`${i > 0 ? ", " : ""}<code>${c}</code>`)}.
    Optional: ${COLUMNS[kind].optional.map((c, i) => html`${i > 0 ? ", " : ""}<code>${c}</code>`)}.
  </p>`;

const example = (member: ConsoleMember, kind: ImportKind): Node =>
  html`<p class="small">At most ${IMPORT_LIMITS[kind].rows.toLocaleString("en")} rows, UTF-8 or Windows-1252 text, separated by commas, semicolons or tabs, with a header row naming the columns; row 1 is the first line under it. <a href=${`${importPath(member.organizationId)}/examples/${kind}.csv`} download>Download an example file</a>.</p>`;

/** The picker's value for a file whose rows each name their template. */
export const PER_ROW = "per-row";

/** The form's choices: the organization's active templates and the one chosen (from a template page, or as sent). */
export interface TemplateChoice {
  templates: Array<{ id: string; name: string }>;
  chosen: string;
  /** Templates of the organizations this one issues for, offered after its own. */
  onBehalf?: OnBehalfTemplates[];
}

const badgeForm = (frame: Frame, member: ConsoleMember, choice: TemplateChoice): Node =>
  html`<section class="card" aria-labelledby="upload-badges-h"><h2 id="upload-badges-h">Issue badges from a CSV file</h2>
    <p class="small">Choose the badge, then upload a file of the people to receive it. Nothing is issued until you have seen the check of every row and pressed the button under it.</p>
    <form method="post" action=${importPath(member.organizationId)} enctype="multipart/form-data" class="stack">
      ${csrfField(frame.csrf)}
      <input type="hidden" name="kind" value="badges" />
      <label for="import-template">Badge template</label>
      <select id="import-template" name="badge_template_id" required aria-describedby="import-template-help">
        <option value="" selected=${choice.chosen === ""}>Choose a badge template</option>
        ${choice.templates.map((t) => html`<option value=${t.id} selected=${t.id === choice.chosen}>${t.name}</option>`)}
        ${(choice.onBehalf ?? []).map((g) => html`<optgroup label=${`On behalf of ${g.grantor.name}`}>${g.templates.map((t) => html`<option value=${t.id} selected=${t.id === choice.chosen}>${t.name} (for ${g.grantor.name})</option>`)}</optgroup>`)}
        <option value=${PER_ROW} selected=${choice.chosen === PER_ROW}>None: each row names its own in a badge_template_id column</option>
      </select>
      <p class="small" id="import-template-help">${
        choice.templates.length === 0 && (choice.onBehalf ?? []).length === 0
          ? html`No template is active yet: <a href=${consolePath(member.organizationId, "templates")}>publish one</a> to issue its badge.`
          : html`Every row receives this badge, unless it names another template in its own <code>badge_template_id</code> cell.`
      }</p>
      <label for="import-file">CSV file of recipients</label>
      <input id="import-file" name="file" type="file" accept=".csv,text/csv" required />
      <button type="submit">Check the file</button>
    </form>
    ${example(member, "badges")}
    <details class="small"><summary>Columns of a badge file</summary>${columnList("badges")}</details>
  </section>`;

const employeeForm = (frame: Frame, member: ConsoleMember): Node =>
  html`<section class="card" aria-labelledby="upload-employees-h"><h2 id="upload-employees-h">Write employee records from a CSV file</h2>
    <p class="small">One row per employee, matched by <code>external_id</code>: a new one is created, a known one updated. Nothing is written until you have seen the check and pressed the button under it.</p>
    <form method="post" action=${importPath(member.organizationId)} enctype="multipart/form-data" class="stack">
      ${csrfField(frame.csrf)}
      <input type="hidden" name="kind" value="employees" />
      <label for="employee-file">CSV file of employee records</label>
      <input id="employee-file" name="file" type="file" accept=".csv,text/csv" required />
      <button type="submit">Check the employee file</button>
    </form>
    ${example(member, "employees")}
    <details class="small"><summary>Columns of an employee file</summary>${columnList("employees")}</details>
  </section>`;

const ENCODING_WORDS: Record<CsvReading["encoding"], string> = {
  "utf-8": "UTF-8 text",
  "windows-1252": "Windows-1252 text (as Excel saves it on Windows), turned into UTF-8",
};
const SEPARATOR_WORDS: Record<CsvReading["delimiter"], [string, string]> = {
  ",": ["comma", "commas"],
  ";": ["semicolon", "semicolons"],
  "\t": ["tab", "tabs"],
};

/** How an upload was read, as the query of the page that follows it (`windows-1252.semicolon.bom`). */
export const readingQuery = (r: CsvReading): string =>
  `read=${r.encoding}.${SEPARATOR_WORDS[r.delimiter][0]}${r.bom ? ".bom" : ""}`;

/** The sentence saying how the file was read, from `readingQuery`'s value; null for anything else. */
export const readingSentence = (value: string): string | null => {
  const [encoding, separator, bom, ...more] = value.split(".");
  const words = Object.hasOwn(ENCODING_WORDS, encoding ?? "")
    ? ENCODING_WORDS[encoding as CsvReading["encoding"]]
    : null;
  const sep = Object.values(SEPARATOR_WORDS).find(([one]) => one === separator);
  if (!words || !sep || more.length > 0 || (bom !== undefined && bom !== "bom")) return null;
  return `The file was read as ${words}${bom ? " (its byte order mark skipped)" : ""}, with ${sep[1]} between the columns.`;
};

const rows = (n: number): string => `${n.toLocaleString("en")} ${n === 1 ? "row" : "rows"}`;

/**
 * A refused file's column problems under its message, each by its header name; the file's own
 * (`file`) are what the message above them says already.
 */
const fileProblems = (problems: Array<{ field: string; message: string }>): Node => {
  const columns = problems.filter((p) => p.field !== "file");
  return columns.length === 0
    ? null
    : html`<ul class="small">${columns.map((p) => html`<li><code>${p.field}</code> ${p.message}.</li>`)}</ul>`;
};

const counts = (r: ImportRecord): string => {
  const valid = r.row_count - r.invalid_count;
  return `${rows(r.row_count)}: ${valid} valid, ${r.invalid_count} with problems`;
};

const importRow = (member: ConsoleMember, r: ImportRecord) =>
  html`<li class="card">
    <div class="card-head"><h3 class="card-title"><a href=${importPath(member.organizationId, r.id)}>${KIND_LABEL[r.kind]}${r.file_name ? html` · <span class="raw">${r.file_name}</span>` : null}</a></h3><span class="tag">${STATE_LABEL[r.state]}</span></div>
    <p class="small">${counts(r)}; ${r.done_count} ${DONE_LABEL[r.kind]}, ${r.failed_count} failed</p>
    <p class="small">Uploaded ${when(r.created_at)}</p>
  </li>`;

export const importsPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    imports: ImportRecord[];
    kinds: ImportKind[];
    templates: TemplateChoice;
    error: string | null;
    problems: Array<{ field: string; message: string }>;
  },
) =>
  consoleLayout(
    frame,
    member,
    "imports",
    html`<h1>Imports</h1>`,
    problem(data.error),
    fileProblems(data.problems),
    data.kinds.includes("badges") ? badgeForm(frame, member, data.templates) : null,
    data.kinds.includes("employees") ? employeeForm(frame, member) : null,
    html`<section aria-labelledby="past-h"><h2 id="past-h">Past imports</h2>
      ${
        data.imports.length === 0
          ? html`<p class="muted">None yet.</p>`
          : html`<ul class="plain stack-list">${data.imports.map((r) => importRow(member, r))}</ul>`
      }</section>`,
  );

const problemsTable = (kind: ImportKind, problems: RowProblem[], total: number): Node =>
  problems.length === 0
    ? html`<p class="muted">No problems.</p>`
    : html`<div class="table-wrap"><table>
        <caption class="sr-only">Problems by row and column</caption>
        <thead><tr><th scope="col">Row</th><th scope="col">Column</th><th scope="col">Problem</th><th scope="col">${kind === "badges" ? "Recipient" : "External id"}</th></tr></thead>
        <tbody>${problems.map((p) => html`<tr><td>${p.row}</td><td><code>${p.field}</code></td><td>${p.message}</td><td class="raw">${p.key ?? ""}</td></tr>`)}</tbody>
      </table></div>
      ${total > problems.length ? html`<p class="small">The first ${problems.length} problems are shown; the result file lists every row.</p>` : null}`;

/** Said before an import whose notifications exceed the organization's hourly budget. */
const mailNotice = (templates: ImportTemplate[], perHour: number): Node => {
  const notifying = templates.reduce((n, t) => n + t.notifying, 0);
  const short = mailShortfall(notifying, perHour);
  if (short === 0) return null;
  const n = (x: number) => x.toLocaleString("en");
  return html`<p class="status warn" role="status">${n(notifying)} of these badges notify their recipients by mail, and this organization sends at most ${n(perHour)} notifications an hour: at least ${n(short)} would be issued without their mail. Upload them in files of at most ${n(perHour)} an hour apart, or send each notification later from its badge's page.</p>`;
};

/**
 * The same file seen before: a check never started is only named; after an import that ran, the
 * valid rows are what would be issued again (a badge given once is already among the problems).
 */
const repeatNotice = (member: ConsoleMember, r: ImportRecord, earlier: ImportRecord): Node => {
  const link = html`<a href=${importPath(member.organizationId, earlier.id)}>see it</a>`;
  if (earlier.state === "ready")
    return html`<p class="status info" role="status">You checked the same file on ${when(earlier.created_at)} without issuing it (${link}).</p>`;
  const again =
    r.state === "ready" && r.row_count > r.invalid_count
      ? " Anyone already holding a badge that is given once is listed below as a problem; the valid rows would be issued again."
      : "";
  return html`<p class="status warn" role="alert">This is the same file as an import uploaded ${when(earlier.created_at)} (${link}).${again}</p>`;
};

/**
 * One import: before it starts, the check of every row and the button to issue the valid ones;
 * then its progress (live with import_progress.js, else the page reloads itself) and result file.
 */
export const importPage = (
  frame: Frame,
  member: ConsoleMember,
  r: ImportRecord,
  data: {
    problems: RowProblem[];
    problemCount: number;
    /** What the valid rows of a badge import issue, by template. */
    templates: ImportTemplate[];
    /** The organization's notifications an hour (`MAIL_PER_ORGANIZATION_PER_HOUR`). */
    mailPerHour: number;
    repeatOf: ImportRecord | null;
    notice: string | null;
    /** How the uploaded file was read, said once after the upload. */
    reading: string | null;
    error: string | null;
  },
) => {
  const path = importPath(member.organizationId, r.id);
  const progress = importProgress(r);
  const valid = r.row_count - r.invalid_count;
  const running = r.state === "running";
  return consoleLayout(
    { ...frame, ...(running ? { refreshWithoutScript: 3, script: "import_progress.js" } : {}) },
    member,
    "imports",
    html`<p class="small"><a href=${importPath(member.organizationId)}>All imports</a></p>`,
    html`<h1>${KIND_LABEL[r.kind]} import${r.file_name ? html` · <span class="raw">${r.file_name}</span>` : null}</h1>`,
    notice(data.notice),
    problem(data.error),
    data.reading ? html`<p class="small" id="import-reading">${data.reading}</p>` : null,
    html`<dl class="facts">
      <dt>State</dt><dd>${STATE_LABEL[r.state]}</dd>
      <dt>Rows</dt><dd>${counts(r)}</dd>
      ${
        data.templates.length > 0
          ? html`<dt>${data.templates.length === 1 ? "Badge" : "Badges"}</dt><dd>${data.templates.map(
              (t, i) =>
                html`${i > 0 ? ", " : ""}${t.name ?? html`<em>a template this organization no longer has</em>`}${data.templates.length > 1 ? ` (${t.rows} ${t.rows === 1 ? "row" : "rows"})` : ""}`,
            )}</dd>`
          : null
      }
      <dt>Uploaded</dt><dd>${when(r.created_at)}</dd>
      ${r.started_at ? html`<dt>Started</dt><dd>${when(r.started_at)}</dd>` : null}
      ${r.finished_at ? html`<dt>Ended</dt><dd>${when(r.finished_at)}</dd>` : null}
    </dl>`,
    data.repeatOf ? repeatNotice(member, r, data.repeatOf) : null,
    r.state === "ready" ? mailNotice(data.templates, data.mailPerHour) : null,
    r.state === "ready"
      ? html`<section class="card" aria-labelledby="go-h"><h2 id="go-h">Nothing is issued yet</h2>
          ${
            valid > 0
              ? html`<form method="post" action=${`${path}/start`} class="stack">${csrfField(frame.csrf)}
                <button type="submit">${r.kind === "badges" ? `Issue the ${valid} valid ${valid === 1 ? "badge" : "badges"}` : `Write the ${valid} valid ${valid === 1 ? "record" : "records"}`}</button></form>
                ${r.invalid_count > 0 ? html`<p class="small">${r.invalid_count === 1 ? "The row with a problem will be skipped; fix it and upload it in a new file." : `The ${r.invalid_count} rows with problems will be skipped; fix them and upload them in a new file.`}</p>` : null}`
              : html`<p>No row can be ${DONE_LABEL[r.kind]}: each has a problem listed below. Fix the file${r.kind === "badges" ? " (or the template chosen)" : ""} and upload it again.</p>`
          }</section>`
      : html`<section class="card" aria-labelledby="progress-h"><h2 id="progress-h">Progress</h2>
          <progress class="import-progress" id="import-progress" max=${String(progress.max)} value=${String(progress.value)}
            data-status-url=${running ? `${path}/status` : undefined} aria-describedby="import-progress-text">${progress.value} of ${progress.max}</progress>
          <p id="import-progress-text" aria-live="polite">${r.done_count} ${DONE_LABEL[r.kind]}, ${r.failed_count} failed, ${r.invalid_count} invalid, of ${rows(r.row_count)}</p>
          ${running ? html`<p class="small">You may close this page: the import goes on, and this page shows where it is whenever you come back.</p>` : null}
          <p><a class="button" href=${`${path}/result`} download>Download the result file</a></p>
        </section>`,
    html`<section aria-labelledby="problems-h"><h2 id="problems-h">Problems by row and column (${data.problemCount})</h2>
      ${problemsTable(r.kind, data.problems, data.problemCount)}</section>`,
  );
};

/**
 * An example file of each kind: a header and two rows, the second using the optional columns. The
 * badge file names recipients only: its template is the one chosen beside the upload.
 */
export const exampleCsv = (kind: ImportKind): string =>
  kind === "badges"
    ? [
        "recipient_email,issued_to_first_name,issued_to_last_name,issued_at,issued_to_middle_name,expires_at,evidence_url,suppress_badge_notification_email",
        "ada@example.org,Ada,Lovelace,2026-06-01T09:00:00Z,,,,false",
        "grace@example.org,Grace,Hopper,2026-06-01T09:00:00Z,Brewster,2028-06-01T09:00:00Z,https://example.org/projects/compiler,true",
        "",
      ].join("\r\n")
    : [
        "external_id,email,first_name,last_name,position_title,department,team,country",
        "E-1001,ada@example.org,Ada,Lovelace,Analyst,Research,Engines,GB",
        "E-1002,grace@example.org,Grace,Hopper,Rear admiral,Navy,,US",
        "",
      ].join("\r\n");
