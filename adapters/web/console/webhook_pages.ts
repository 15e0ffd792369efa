import { EVENT_FAMILIES, EVENT_TYPES, type EventFamily, eventFamily } from "../../../core/events/mod.ts";
import {
  type DeliveryLogEntry,
  deliveryOutlook,
  type NotDeliveredReason,
  type WebhookSecret,
  type WebhookSettings,
} from "../../../core/webhooks/mod.ts";
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
  endorsement: "Endorsements (Laurel's own, beyond the interface)",
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

/** The kind boxes; with every kind chosen, each box is ticked too, ready to be narrowed. */
const kindBoxes = (chosen: WebhookSettings["event_types"]) =>
  html`<fieldset class="checkboxes"><legend>Event kinds to receive</legend>
    <p class="small">Untick “Every kind” to choose kinds one by one. With no kind chosen, Laurel sends nothing but test events.</p>
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

/**
 * Settings never saved: no address and no kind. Their form offers every kind ticked: a receiver
 * reads the kinds it knows and ignores the rest, while an address saved with none gets nothing.
 */
const isFresh = (settings: WebhookSettings): boolean =>
  settings.webhook_url === null && settings.event_types !== "all" && settings.event_types.length === 0;

/** Why nothing is sent, and what the member does about it. */
const BLOCKER_TEXT: Record<NotDeliveredReason, (applications: string) => Node> = {
  no_webhook_url: () => html`<strong>There is no address.</strong> Enter your receiver's HTTPS address below and save.`,
  not_subscribed: () =>
    html`<strong>No event kind is chosen.</strong> Tick “Every kind”, or the kinds you want, below and save.`,
  no_data_services: (applications) =>
    html`<strong>None of your <a href=${applications}>OAuth applications</a> has data services enabled.</strong> Laurel posts an organization's events only while one has: ask Laurel's operators to enable data services on one of your applications (create one first if you have none).`,
};

/** What the settings send now, always shown: on with its kinds, or off with every reason and what to do. */
const outlookBox = (member: ConsoleMember, data: WebhooksPageData) => {
  // A webhook not set up yet has every kind ticked in its form: saving an address saves them.
  const outlook = deliveryOutlook({
    webhookUrl: data.settings.webhook_url,
    subscribedEventTypes: isFresh(data.settings) ? "all" : data.settings.event_types,
    hasDataServicesApplication: data.dataServices,
  });
  const kinds =
    outlook.kinds === "all"
      ? "every kind of event, including kinds Laurel adds later"
      : `${outlook.kinds.length === 1 ? "one kind" : `${outlook.kinds.length} kinds`} of event (${outlook.kinds.join(", ")})`;
  if (outlook.blockers.length === 0)
    return html`<section class="status ok outlook" aria-labelledby="outlook-h"><h2 id="outlook-h">What Laurel sends</h2>
      <p>Every new event of ${kinds} is posted to <span class="raw">${data.settings.webhook_url}</span>, signed, and retried for up to 25 days.</p></section>`;
  const applications = consolePath(member.organizationId, "oauth_applications");
  return html`<section class="status warn outlook" aria-labelledby="outlook-h"><h2 id="outlook-h">Nothing is sent now</h2>
    <ul>${outlook.blockers.map((b) => html`<li>${BLOCKER_TEXT[b](applications)}</li>`)}</ul>
    <p class="small">Events still happen and are kept: once this is fixed, new events are posted, and “Redeliver” sends a past one.</p></section>`;
};

/** The latest delivery that did not arrive, why, and what to do; null when the newest one arrived. */
const lastProblem = (entries: DeliveryLogEntry[]): Node => {
  const latest = entries.find((e) => e.attempts.length > 0);
  if (!latest) return null;
  const attempt = latest.attempts.reduce((a, b) => (b.attempt_number > a.attempt_number ? b : a));
  if (attempt.outcome === "succeeded") return null;
  const why: Record<string, Node> = {
    blocked: html`Laurel refused to connect: the address leads to a private, loopback or link-local network, where Laurel does not post. Use a public HTTPS address (Laurel's operators can allow a network with <code>WEBHOOK_ALLOWED_NETWORKS</code>).`,
    connection_error: html`Laurel could not connect to the address (no such host, connection refused, or a TLS certificate it does not trust). Check the address and that your receiver is up with a valid certificate.`,
    timeout: html`Your receiver did not answer in time. Answer 200 at once and do the work afterwards.`,
    http_error: html`Your receiver answered HTTP ${attempt.status_code ?? "?"}. Laurel counts only <code>200</code> as delivered: answer 200 (not 201, 204 or a redirect).`,
  };
  return html`<div class="status bad" role="status">
    <p><strong>The latest delivery did not arrive</strong> (<code>${latest.delivery.event_type}</code>, ${when(attempt.started_at)}).</p>
    <p>${why[attempt.outcome] ?? attempt.error ?? attempt.outcome}</p>
    ${latest.delivery.status === "failed" ? null : html`<p class="small">Laurel keeps retrying it.</p>`}
  </div>`;
};

export interface WebhookForm {
  webhook_url: string;
  event_types: WebhookSettings["event_types"];
}

export interface WebhooksPageData {
  settings: WebhookSettings;
  /** Shown only right after "reveal" or "rotate", never on a plain visit. */
  secret: WebhookSecret | null;
  dataServices: boolean;
  log: { entries: DeliveryLogEntry[]; next: string | null; first: boolean };
  notice: string | null;
  error: string | null;
  /** The settings form as sent, when it was refused. */
  form: WebhookForm | null;
  /** The redelivery form's time as sent, when it was refused. */
  since: string;
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
    outlookBox(member, data),
    data.log.first ? lastProblem(data.log.entries) : null,
    html`<section class="card" aria-labelledby="settings-h"><h2 id="settings-h">Address and event kinds</h2>
      ${
        canWrite
          ? html`<form method="post" action=${path} class="stack">${csrfField(frame.csrf)}
            <label for="webhook-url">HTTPS address (leave empty to stop posting)</label>
            <input id="webhook-url" name="webhook_url" type="url" inputmode="url" maxlength="2048" placeholder="https://example.org/laurel-events" value=${url} />
            ${kindBoxes(data.form?.event_types ?? (isFresh(data.settings) ? "all" : data.settings.event_types))}
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
          <div class="row"><input id="failed-since" name="since" type="datetime-local" required value=${data.since} /><button type="submit" class="secondary">Redeliver failed</button></div>
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
