import type { VNode } from "preact";
import type { MemberAction } from "../../../core/members/mod.ts";
import { html, type Node } from "../html.ts";
import { csrfField, type Frame, layout } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";

/** The console's sections, in the order of its navigation, with what a member needs to see each. */
export type ConsoleSection =
  | "home"
  | "issue"
  | "badges"
  | "employees"
  | "profile"
  | "templates"
  | "members"
  | "oauth_applications"
  | "authorization_tokens"
  | "webhooks"
  | "audit"
  | "imports"
  | "endorsements"
  | "pathways"
  | "issuers";

interface SectionLink {
  section: ConsoleSection;
  label: string;
  path: string;
  action: MemberAction;
  group?: "Developers";
}

const SECTIONS: readonly SectionLink[] = [
  { section: "home", label: "Dashboard", path: "", action: "badges.read" },
  { section: "issue", label: "Issue", path: "/issue", action: "badges.issue" },
  { section: "badges", label: "Badges", path: "/badges", action: "badges.read" },
  { section: "employees", label: "Employees", path: "/employees", action: "employees.read" },
  { section: "profile", label: "Profile", path: "/profile", action: "profile.read" },
  { section: "templates", label: "Templates", path: "/templates", action: "templates.read" },
  { section: "pathways", label: "Pathways", path: "/pathways", action: "templates.read" },
  { section: "members", label: "Members", path: "/members", action: "members.read" },
  { section: "endorsements", label: "Endorsements", path: "/endorsements", action: "profile.read" },
  { section: "issuers", label: "Authorized issuers", path: "/issuers", action: "templates.read" },
  { section: "imports", label: "Imports", path: "/imports", action: "badges.issue" },
  {
    section: "oauth_applications",
    label: "OAuth applications",
    path: "/developers/oauth_applications",
    action: "developers.read",
    group: "Developers",
  },
  {
    section: "authorization_tokens",
    label: "Authorization tokens",
    path: "/developers/authorization_tokens",
    action: "developers.read",
    group: "Developers",
  },
  {
    section: "webhooks",
    label: "Webhooks",
    path: "/developers/webhooks",
    action: "developers.read",
    group: "Developers",
  },
  { section: "audit", label: "Audit log", path: "/audit", action: "audit.read" },
];

export const consolePath = (organizationId: string, section: ConsoleSection = "home"): string =>
  `/console/${organizationId}${SECTIONS.find((s) => s.section === section)?.path ?? ""}`;

/** The sections this member may open: a hidden link is only a courtesy, every route checks again. */
export const sectionsFor = (member: ConsoleMember): SectionLink[] => SECTIONS.filter((s) => member.allowed(s.action));

const ROLE_LABEL: Record<string, string> = { owner: "Owner", admin: "Admin", issuer: "Issuer", viewer: "Viewer" };
export const roleLabel = (role: string): string => ROLE_LABEL[role] ?? role;

const sectionNav = (member: ConsoleMember, current: ConsoleSection): VNode => {
  const link = (s: SectionLink) =>
    html`<li><a class="console-link" href=${consolePath(member.organizationId, s.section)} aria-current=${s.section === current ? "page" : undefined}>${s.label}</a></li>`;
  const sections = sectionsFor(member);
  const plain = sections.filter((s) => !s.group);
  const developers = sections.filter((s) => s.group === "Developers");
  const lists = (idSuffix: string) => html`<ul>${plain.map(link)}</ul>
    ${
      developers.length > 0
        ? html`<p class="console-nav-group" id=${`developers-nav${idSuffix}`}>Developers</p>
          <ul aria-labelledby=${`developers-nav${idSuffix}`}>${developers.map(link)}</ul>`
        : null
    }`;
  const here = sections.find((s) => s.section === current)?.label;
  // A phone gets one menu that opens (details/summary: no script, which the CSP would refuse
  // inline anyway); a wider screen the list beside the content. The stylesheet shows one of them;
  // the list comes first, so a selector or reader taking the first link finds the wide one.
  return html`<nav class="console-nav" aria-label="Organization">
    <div class="console-nav-full">${lists("")}</div>
    <details class="console-menu"><summary>Menu${here ? html`<span class="console-menu-here">: ${here}</span>` : null}</summary>${lists("-menu")}</details>
  </nav>`;
};

/** A console page: the organization's name and the member's role above, its sections beside the content. */
export const consoleLayout = (frame: Frame, member: ConsoleMember, current: ConsoleSection, ...body: Node[]): VNode =>
  layout(
    { ...frame, noindex: true, title: `${frame.title} · ${member.organizationName}` },
    html`<div class="console">
      <div class="console-head">
        <p class="eyebrow"><a class="console-crumb" href="/console">Console</a></p>
        <p class="console-org"><span class="console-org-name">${member.organizationName}</span>
          <span class="tag">${roleLabel(member.role)}</span></p>
      </div>
      ${sectionNav(member, current)}
      <div class="console-body">${body}</div>
    </div>`,
  );

export const notice = (text: string | null): Node => (text ? html`<p class="notice" role="status">${text}</p>` : null);

export const problem = (text: string | null): Node =>
  text ? html`<p class="status bad" role="alert">${text}</p>` : null;

/** A one-button form (delete, revoke, redeliver) posting hidden fields. */
export const postButton = (
  frame: Frame,
  action: string,
  label: string,
  options: { fields?: Record<string, string>; cls?: string; ariaLabel?: string } = {},
): VNode =>
  html`<form method="post" action=${action} class="inline">
    ${csrfField(frame.csrf)}${Object.entries(options.fields ?? {}).map(([k, v]) => html`<input type="hidden" name=${k} value=${v} />`)}
    <button type="submit" class=${options.cls ?? "secondary"} aria-label=${options.ariaLabel}>${label}</button>
  </form>`;

/** A secret shown once: a read-only field, a copy button (laurel.js), and the plain warning. */
export const secretOnce = (id: string, label: string, value: string, warning: string): VNode =>
  html`<div class="secret-once status warn" role="status">
    <label for=${id}>${label}</label>
    <div class="row"><input id=${id} type="text" class="raw" readonly value=${value} /><button type="button" class="secondary" data-copy=${id}>Copy</button></div>
    <p><strong>${warning}</strong></p>
  </div>`;

const TIME = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
});

/** A time as a `<time>` element, in UTC (the console serves members anywhere). */
export const when = (iso: string | Date | null | undefined, none = "—"): Node => {
  if (!iso) return none;
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return html`<time datetime=${d.toISOString()}>${TIME.format(d)} UTC</time>`;
};
