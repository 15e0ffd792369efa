import { acceptBadgeUrl, badgeStandardShape, fullName, type ShapeUrls } from "../badges/mod.ts";
import { type PendingNotificationEventType, pendingBadgeNotificationEvent } from "../events/mod.ts";
import { eventContext, type IssuingContext, type IssuingDeps } from "./context.ts";
import type { BadgeView, Earner } from "./ports.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends one message; rejects when the message could not be handed over. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * How many notifications an organization may still send: a credential that can issue badges must
 * not turn the notification mail into a relay for mail in bulk.
 */
export interface MailBudget {
  /** Takes one message from the organization's budget; false: spent for now, send nothing. */
  take(organizationId: string): Promise<boolean>;
}

/** Which pending-badge notification an issue sends (spec §6.3), from the account owning the address. */
export const notificationKind = (earner: Earner | null): PendingNotificationEventType => {
  if (earner === null) return "pending_badge_notification.no_user.sent";
  return earner.email_confirmed
    ? "pending_badge_notification.sent"
    : "pending_badge_notification.unconfirmed_email.sent";
};

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

const NEXT_STEP: Record<PendingNotificationEventType, string> = {
  "pending_badge_notification.sent": "Accept it to make it part of your record:",
  "pending_badge_notification.unconfirmed_email.sent":
    "Confirm this e-mail address on your account, then accept the badge:",
  "pending_badge_notification.no_user.sent": "Create an account with this e-mail address to accept it:",
};

/** The pending-badge e-mail: who issued what to whom, and the link to accept it. */
export const pendingBadgeMessage = (
  view: BadgeView,
  kind: PendingNotificationEventType,
  urls: ShapeUrls,
): MailMessage => {
  const { badge, template, issuer } = view;
  const name = fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name);
  const link = acceptBadgeUrl(urls, badge.id);
  const subject = `${issuer.name} sent you a badge: ${template.name}`;
  const intro = `Hello ${name}, ${issuer.name} has issued you the badge "${template.name}".`;
  const text = `${intro}\n\n${NEXT_STEP[kind]}\n${link}\n`;
  const html =
    `<p>${escapeHtml(intro)}</p>\n<p>${escapeHtml(NEXT_STEP[kind])}<br>` +
    `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>\n`;
  return { to: badge.recipient_email, subject, text, html };
};

/**
 * Sends the pending-badge notification of a badge just issued, unless the issuer suppressed it,
 * and then records its event (in a transaction of its own: the mail cannot roll back). Returns
 * the kind sent, or null when suppressed or over the organization's mail budget.
 */
export const notifyPendingBadge = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  issued: { view: BadgeView; earner: Earner | null },
): Promise<PendingNotificationEventType | null> => {
  const { view } = issued;
  if (view.badge.suppress_badge_notification_email) return null;
  if (deps.mailBudget && !(await deps.mailBudget.take(view.badge.organization_id))) return null;
  const kind = notificationKind(issued.earner);
  await deps.mailer.send(pendingBadgeMessage(view, kind, deps.urls));
  const shape = badgeStandardShape(view.badge, view.template, view.issuer, deps.urls);
  await deps.store.appendEvents([
    pendingBadgeNotificationEvent(
      kind,
      shape,
      view.badge.recipient_email,
      eventContext(ctx, view.badge.organization_id),
    ),
  ]);
  return kind;
};
