import { resultOf } from "../../../core/errors/mod.ts";
import type { InvitationRecord, MemberView, Role } from "../../../core/members/mod.ts";
import { mayInvite, memberOffers, ROLES } from "../../../core/members/mod.ts";
import { html } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, roleLabel, when } from "./console_layout.ts";

const ROLE_HELP: Record<Role, string> = {
  owner: "everything, including members and ownership",
  admin: "everything but changing owners",
  issuer: "issue, revoke and replace badges; read templates and employees",
  viewer: "read only",
};

const roleOptions = (selected: Role, offered: readonly Role[]) =>
  offered.map((r) => html`<option value=${r} selected=${r === selected}>${roleLabel(r)}</option>`);

const memberRow = (frame: Frame, member: ConsoleMember, v: MemberView, owners: number) => {
  const m = v.membership;
  const name = `${v.first_name} ${v.last_name}`.trim() || (v.email ?? "A member");
  const base = `${consolePath(member.organizationId, "members")}/${m.id}`;
  const self = member.actor.kind === "member" && member.actor.accountId === m.user_id;
  // Core's own rules say what this member may do to that one: nothing is offered that would be refused.
  const offers = memberOffers(member.actor, member.organizationId, { accountId: m.user_id, role: m.role, owners });
  const canRole = member.allowed("members.change_role") && offers.roles.length > 0;
  const canRemove = member.allowed("members.remove") && offers.remove;
  return html`<li class="card">
    <div class="card-head"><h3 class="card-title">${name}${self ? html` <span class="small">(you)</span>` : null}</h3><span class="tag">${roleLabel(m.role)}</span></div>
    <p class="small raw">${v.email ?? ""}</p>
    <p class="small">Member since ${when(m.created_at)}</p>
    ${
      canRole || canRemove
        ? html`<div class="actions">
          ${
            canRole
              ? html`<form method="post" action=${`${base}/role`} class="row role-form">${csrfField(frame.csrf)}
                <label class="sr-only" for=${`role-${m.id}`}>Role of ${name}</label>
                <select id=${`role-${m.id}`} name="role">${roleOptions(m.role, [m.role, ...offers.roles])}</select>
                <button type="submit" class="secondary">Change role</button></form>`
              : null
          }
          ${canRemove ? postButton(frame, `${base}/remove`, self ? "Leave" : "Remove", { cls: "danger", ariaLabel: self ? `Leave ${member.organizationName}` : `Remove ${name}` }) : null}
        </div>`
        : null
    }
  </li>`;
};

const invitationRow = (frame: Frame, member: ConsoleMember, i: InvitationRecord) => {
  const base = `${consolePath(member.organizationId, "members")}/invitations/${i.id}`;
  // An owner's invitation is sent again or cancelled only with the right to make owners.
  const canManage =
    member.allowed("members.invite") && resultOf(() => mayInvite(member.actor, member.organizationId, i.role)).ok;
  return html`<li class="card">
    <div class="card-head"><h3 class="card-title raw">${i.email}</h3><span class="tag">${roleLabel(i.role)}</span></div>
    <p class="small">Invited by ${i.invited_by_name} · expires ${when(i.expires_at)}</p>
    ${
      canManage
        ? html`<div class="actions">
          ${postButton(frame, `${base}/resend`, "Resend", { ariaLabel: `Resend the invitation to ${i.email}` })}
          ${postButton(frame, `${base}/cancel`, "Cancel", { cls: "danger", ariaLabel: `Cancel the invitation to ${i.email}` })}
        </div>`
        : null
    }
  </li>`;
};

export const membersPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    members: MemberView[];
    invitations: InvitationRecord[];
    notice: string | null;
    error: string | null;
    form: { email: string; role: Role };
  },
) => {
  // Only an owner offers the owner role; core refuses it to anyone else anyway.
  const offered = ROLES.filter((r) => r !== "owner" || member.allowed("ownership.change"));
  // Counted on the page (up to 100 members): an offer is a courtesy, core judges the change itself.
  const owners = data.members.filter((v) => v.membership.role === "owner").length;
  return consoleLayout(
    frame,
    member,
    "members",
    html`<h1>Members</h1>`,
    notice(data.notice),
    problem(data.error),
    html`<ul class="plain stack-list">${data.members.map((v) => memberRow(frame, member, v, owners))}</ul>`,
    html`<section aria-labelledby="invitations-h"><h2 id="invitations-h">Pending invitations</h2>
      ${
        data.invitations.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<ul class="plain stack-list">${data.invitations.map((i) => invitationRow(frame, member, i))}</ul>`
      }</section>`,
    member.allowed("members.invite")
      ? html`<section class="card" aria-labelledby="invite-h"><h2 id="invite-h">Invite someone</h2>
        <p class="small">We e-mail them a link; they sign in with that address and accept. The link works for 7 days; inviting again replaces it.</p>
        <form method="post" action=${`${consolePath(member.organizationId, "members")}/invitations`} class="stack">${csrfField(frame.csrf)}
          <label for="invite-email">E-mail address</label><input id="invite-email" name="email" type="email" required maxlength="320" value=${data.form.email} />
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">${roleOptions(data.form.role, offered)}</select>
          <ul class="plain small">${offered.map((r) => html`<li><strong>${roleLabel(r)}</strong>: ${ROLE_HELP[r]}</li>`)}</ul>
          <button type="submit">Send invitation</button>
        </form></section>`
      : null,
  );
};
