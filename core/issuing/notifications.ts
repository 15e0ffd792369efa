import { acceptBadgeUrl, badgeStandardShape, fullName, type ShapeUrls } from "../badges/mod.ts";
import { type PendingNotificationEventType, pendingBadgeNotificationEvent } from "../events/mod.ts";
import type { MailMessage, OutboxMail } from "../mail/mod.ts";
import { escapeHtml } from "../shared/mod.ts";
import { eventContext, type IssuingContext, type IssuingDeps } from "./context.ts";
import type { BadgeView, Earner } from "./ports.ts";

/** Which pending-badge notification an issue sends, from the account owning the address. */
export const notificationKind = (earner: Earner | null): PendingNotificationEventType => {
  if (earner === null) return "pending_badge_notification.no_user.sent";
  return earner.email_confirmed
    ? "pending_badge_notification.sent"
    : "pending_badge_notification.unconfirmed_email.sent";
};

const NEXT_STEP: Record<PendingNotificationEventType, string> = {
  "pending_badge_notification.sent": "Accept it to make it part of your record:",
  "pending_badge_notification.unconfirmed_email.sent":
    "Confirm this e-mail address on your account, then accept the badge:",
  "pending_badge_notification.no_user.sent": "Create an account with this e-mail address to accept it:",
};

/**
 * The pending-badge e-mail: who issued what to whom, and the link to accept it. The link carries
 * the badge's accept token: only with it does the accept page, signed out, name the recipient.
 */
export const pendingBadgeMessage = (
  view: BadgeView,
  kind: PendingNotificationEventType,
  urls: ShapeUrls,
  acceptToken: string,
): MailMessage => {
  const { badge, template, issuer } = view;
  const name = fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name);
  const link = `${acceptBadgeUrl(urls, badge.id)}?token=${encodeURIComponent(acceptToken)}`;
  const subject = `${issuer.name} sent you a badge: ${template.name}`;
  const intro = `Hello ${name}, ${issuer.name} has issued you the badge "${template.name}".`;
  const text = `${intro}\n\n${NEXT_STEP[kind]}\n${link}\n`;
  const html =
    `<p>${escapeHtml(intro)}</p>\n<p>${escapeHtml(NEXT_STEP[kind])}<br>` +
    `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>\n`;
  return { to: badge.recipient_email, subject, text, html };
};

/**
 * The pending-badge notification of a badge being issued, as an outbox mail written with the badge
 * (null when the issuer suppressed it). Its `pending_badge_notification.*` event is recorded when
 * the mail server accepts the message; the kind follows the account owning the address now.
 */
export const pendingBadgeMail = (
  deps: Pick<IssuingDeps, "urls">,
  ctx: IssuingContext,
  issued: { view: BadgeView; earner: Earner | null; acceptToken: string },
): OutboxMail | null => {
  const { view } = issued;
  if (view.badge.suppress_badge_notification_email) return null;
  const kind = notificationKind(issued.earner);
  const shape = badgeStandardShape(view.badge, view.template, view.issuer, deps.urls);
  const event = pendingBadgeNotificationEvent(
    kind,
    shape,
    view.badge.recipient_email,
    eventContext(ctx, view.badge.organization_id),
  );
  return {
    id: ctx.newId(),
    kind: "pending_badge_notification",
    organization_id: view.badge.organization_id,
    message: pendingBadgeMessage(view, kind, deps.urls, issued.acceptToken),
    sent_event: { event_type: event.event_type, detail: event.detail },
    created_at: ctx.now,
  };
};
