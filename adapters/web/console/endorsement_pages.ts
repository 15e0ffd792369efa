import type { EndorsementView } from "../../../core/endorsements/mod.ts";
import { COMMENT_MAX } from "../../../core/endorsements/mod.ts";
import { html } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, when } from "./console_layout.ts";

const STATE_LABEL: Record<EndorsementView["state"], string> = {
  pending: "Waiting for acceptance",
  accepted: "Published",
  rejected: "Rejected",
  withdrawn: "Withdrawn",
};

export interface EndorsementForm {
  target_kind: string;
  target_id: string;
  comment: string;
}

const row = (frame: Frame, member: ConsoleMember, e: EndorsementView, side: "given" | "received") => {
  const base = `${consolePath(member.organizationId, "endorsements")}/${e.id}`;
  const other = side === "given" ? e.endorsed_name : e.endorser_name;
  const may = member.allowed("profile.update");
  const live = e.state === "pending" || e.state === "accepted";
  const actions =
    !may || !live
      ? null
      : side === "given"
        ? postButton(frame, `${base}/withdraw`, "Withdraw", {
            cls: "danger",
            ariaLabel: `Withdraw the endorsement of ${other}`,
          })
        : html`${e.state === "pending" ? postButton(frame, `${base}/accept`, "Accept", { ariaLabel: `Accept the endorsement by ${other}` }) : null}
          ${postButton(frame, `${base}/reject`, "Reject", { cls: "danger", ariaLabel: `Reject the endorsement by ${other}` })}`;
  return html`<li class="card">
    <div class="card-head"><h3 class="card-title">${side === "given" ? `To ${other}` : `From ${other}`}</h3><span class="tag">${STATE_LABEL[e.state]}</span></div>
    <p class="small">${
      e.target_kind === "organization"
        ? `Endorses the organization ${e.target_name ?? ""}`
        : e.target_name
          ? `Endorses the badge template “${e.target_name}”`
          : "Endorses a badge template since deleted"
    } · ${when(e.created_at)}</p>
    <blockquote>${e.comment}</blockquote>
    ${actions ? html`<div class="actions">${actions}</div>` : null}
  </li>`;
};

const list = (frame: Frame, member: ConsoleMember, items: EndorsementView[], side: "given" | "received") =>
  items.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<ul class="plain stack-list">${items.map((e) => row(frame, member, e, side))}</ul>`;

/** Endorsements given and received, with the form to endorse another organization or one of its templates. */
export const endorsementsPage = (
  frame: Frame,
  member: ConsoleMember,
  data: {
    given: EndorsementView[];
    received: EndorsementView[];
    notice: string | null;
    error: string | null;
    form: EndorsementForm;
  },
) =>
  consoleLayout(
    frame,
    member,
    "endorsements",
    html`<h1>Endorsements</h1>`,
    html`<p>An endorsement vouches for another organization or one of its badge templates. Once that organization accepts it, it is published as a signed Open Badges credential: inside every badge of the template, or in the organization's issuer profile, and on their pages.</p>`,
    notice(data.notice),
    problem(data.error),
    html`<section aria-labelledby="received-h"><h2 id="received-h">Received</h2>${list(frame, member, data.received, "received")}</section>`,
    html`<section aria-labelledby="given-h"><h2 id="given-h">Given</h2>${list(frame, member, data.given, "given")}</section>`,
    member.allowed("profile.update")
      ? html`<section class="card" aria-labelledby="endorse-h"><h2 id="endorse-h">Endorse</h2>
        <form method="post" action=${consolePath(member.organizationId, "endorsements")} class="stack">${csrfField(frame.csrf)}
          <label for="endorse-kind">What you endorse</label>
          <select id="endorse-kind" name="target_kind">
            <option value="badge_template" selected=${data.form.target_kind !== "organization"}>A badge template</option>
            <option value="organization" selected=${data.form.target_kind === "organization"}>An organization</option>
          </select>
          <label for="endorse-id">Its id or address</label>
          <input id="endorse-id" name="target_id" required maxlength="500" aria-describedby="endorse-id-help" value=${data.form.target_id} />
          <p class="small" id="endorse-id-help">An organization's public page address, or a template's Open Badges address (its badge class, named in any of its badges' records), or the id at the end of either.</p>
          <label for="endorse-comment">What you say of it</label>
          <textarea id="endorse-comment" name="comment" required maxlength=${COMMENT_MAX} rows="4">${data.form.comment}</textarea>
          <button type="submit">Send endorsement</button>
        </form></section>`
      : null,
  );
