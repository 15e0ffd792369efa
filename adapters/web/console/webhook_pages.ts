import { EVENT_FAMILIES, EVENT_TYPES, type EventFamily, eventFamily } from "../../../core/events/mod.ts";
import type { DeliveryLogEntry, WebhookSecret, WebhookSettings } from "../../../core/webhooks/mod.ts";
import { html, type Node } from "../html.ts";
import { csrfField, type Frame } from "../layout.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, notice, postButton, problem, when } from "./console_layout.ts";

const FAMILY_LABEL: Record<EventFamily, string> = {
  badge: "Badges",
  badge_template: "Badge templates",
  pending_badge_notification: "Pending badge notifications",
  "user.account_merged": "Account merges",
  "user.connect_access.removed": "Connect access",
  "user.public_badges": "Public badges",
  employment: "Employment (workforce)",
};

const STATUS_CLASS: Record<string, string> = {
  succeeded: "tag ok",
  failed: "tag bad",
  pending: "tag",
  delivering: "tag",
};

/** A kind's name with break opportunities after its dots and underscores, for narrow screens. */
const kindName = (kind: string) =>
  html`<code>${kind.split(/(?<=[._])/).map((part, i) => (i === 0 ? part : [html`<wbr />`, part]))}</code>`;

const kindBoxes = (chosen: WebhookSettings["event_types"]) =>
  html`<fieldset class="checkboxes"><legend>Event kinds to receive</legend>
    <label class="check"><input type="checkbox" name="all_kinds" value="on" checked=${chosen === "all"} /> Every kind, including kinds Laurel adds later</label>
    <div class="kind-groups">${EVENT_FAMILIES.map((family) => {
      const kinds = EVENT_TYPES.filter((t) => eventFamily(t) === family);
      const legendId = `kinds-${family.replace(/\./g, "-")}`;
      return html`<fieldset class="kind-group" aria-labelledby=${legendId}><legend id=${legendId}>${FAMILY_LABEL[family]}</legend>
        ${kinds.map(
          (k) =>
            html`<label class="check"><input type="checkbox" name="event_types" value=${k} checked=${chosen === "all" || chosen.includes(k)} /> ${kindName(k)}</label>`,
        )}</fieldset>`;
    })}</div>
  </fieldset>`;

const attemptLine = (a: DeliveryLogEntry["attempts"][number]) =>
  html`<li>#${a.attempt_number} · ${a.status_code !== null ? html`HTTP ${a.status_code}` : (a.error ?? a.outcome)} · ${when(a.started_at)} · ${a.duration_ms} ms</li>`;

const logRow = (frame: Frame, member: ConsoleMember, e: DeliveryLogEntry, canWrite: boolean) => {
  const d = e.delivery;
  const finished = d.status === "succeeded" || d.status === "failed";
  return html`<li class="card delivery">
    <div class="card-head"><h3 class="card-title"><code>${d.event_type}</code></h3><span class=${STATUS_CLASS[d.status] ?? "tag"}>${d.status}</span></div>
    <dl class="facts">
      <div><dt>Event</dt><dd class="raw">${d.event_id}</dd></div>
      <div><dt>Created</dt><dd>${when(d.created_at)}</dd></div>
      <div><dt>Attempts</dt><dd>${e.attempts.length === 0 ? "none yet" : html`<ol class="plain attempts">${e.attempts.map(attemptLine)}</ol>`}</dd></div>
      ${d.next_attempt_at && !finished ? html`<div><dt>Next retry</dt><dd>${when(d.next_attempt_at)}</dd></div>` : null}
    </dl>
    ${
      canWrite && finished
        ? html`<div class="actions">${postButton(
            frame,
            `${consolePath(member.organizationId, "webhooks")}/redeliver`,
            "Redeliver",
            {
              fields: { event_id: d.event_id },
              ariaLabel: `Redeliver ${d.event_type} ${d.event_id}`,
            },
          )}</div>`
        : null
    }
  </li>`;
};

export interface WebhooksPageData {
  settings: WebhookSettings;
  /** Shown only right after "reveal" or "rotate", never on a plain visit. */
  secret: WebhookSecret | null;
  dataServices: boolean;
  log: { entries: DeliveryLogEntry[]; next: string | null; first: boolean };
  notice: string | null;
  error: string | null;
  form: { webhook_url: string } | null;
}

export const webhooksPage = (frame: Frame, member: ConsoleMember, data: WebhooksPageData) => {
  const canWrite = member.allowed("developers.write");
  const path = consolePath(member.organizationId, "webhooks");
  const url = data.form?.webhook_url ?? data.settings.webhook_url ?? "";
  const more: Node = data.log.next
    ? html`<p><a class="button secondary" href=${`${path}?after=${data.log.next}#deliveries`}>Older deliveries</a></p>`
    : null;
  return consoleLayout(
    frame,
    member,
    "webhooks",
    html`<p class="eyebrow">Developers</p><h1>Webhooks</h1>`,
    notice(data.notice),
    problem(data.error),
    data.dataServices
      ? null
      : html`<p class="status warn">Nothing is posted yet: none of your OAuth applications has data services enabled. Ask Laurel's operators to enable them on one.</p>`,
    html`<section class="card" aria-labelledby="settings-h"><h2 id="settings-h">Address and event kinds</h2>
      ${
        canWrite
          ? html`<form method="post" action=${path} class="stack">${csrfField(frame.csrf)}
            <label for="webhook-url">HTTPS address (leave empty to stop posting)</label>
            <input id="webhook-url" name="webhook_url" type="url" inputmode="url" maxlength="2048" placeholder="https://example.org/laurel-events" value=${url} />
            ${kindBoxes(data.settings.event_types)}
            <button type="submit">Save webhook settings</button>
          </form>`
          : html`<p>Address: <span class="raw">${data.settings.webhook_url ?? "none"}</span></p>`
      }
    </section>`,
    canWrite
      ? html`<section class="card" aria-labelledby="secret-h"><h2 id="secret-h">Signing secret</h2>
        <p class="small">Every delivery is signed (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). After a rotation the old secret keeps signing beside the new one for 24 hours.</p>
        ${
          data.secret
            ? html`<div class="status info" role="status">
              <label for="webhook-secret">Current secret</label>
              <div class="row"><input id="webhook-secret" type="text" class="raw" readonly value=${data.secret.secret} /><button type="button" class="secondary" data-copy="webhook-secret">Copy</button></div>
              ${data.secret.previous_secret ? html`<p class="small">The previous secret also signs until ${when(data.secret.previous_secret_expires_at)}.</p>` : null}
            </div>`
            : null
        }
        <div class="actions">
          ${postButton(frame, `${path}/secret`, "Reveal secret")}
          ${postButton(frame, `${path}/secret/rotate`, "Rotate secret", { cls: "danger" })}
        </div></section>`
      : null,
    canWrite
      ? html`<section class="card" aria-labelledby="test-h"><h2 id="test-h">Test and redeliver</h2>
        <p class="small">Records a test event and delivers it to your address like any other, signed, with retries; it appears in the log below.</p>
        ${postButton(frame, `${path}/test`, "Send a test event", { cls: "" })}
        <form method="post" action=${`${path}/redeliver_failed`} class="stack redeliver-failed">${csrfField(frame.csrf)}
          <label for="failed-since">Redeliver every failed delivery since (UTC)</label>
          <div class="row"><input id="failed-since" name="since" type="datetime-local" required /><button type="submit" class="secondary">Redeliver failed</button></div>
        </form></section>`
      : null,
    html`<section aria-labelledby="deliveries-h" id="deliveries"><h2 id="deliveries-h">Delivery log</h2>
      ${data.log.first ? null : html`<p><a href=${`${path}#deliveries`}>Newest deliveries</a></p>`}
      ${
        data.log.entries.length === 0
          ? html`<p class="card muted">No deliveries ${data.log.first ? "yet" : "older than these"}.</p>`
          : html`<ul class="plain stack-list">${data.log.entries.map((e) => logRow(frame, member, e, canWrite))}</ul>`
      }
      ${more}</section>`,
  );
};
