import { acceptBadgeUrl, badgeStandardShape, fullName, type ShapeUrls, templateImageUrl } from "../badges/mod.ts";
import { type PendingNotificationEventType, pendingBadgeNotificationEvent } from "../events/mod.ts";
import type { MailContent, OutboxMail } from "../mail/mod.ts";
import { eventContext, type IssuingContext, type IssuingDeps } from "./context.ts";
import type { BadgeView, Earner } from "./ports.ts";

/** Which pending-badge notification an issue sends, from the account owning the address. */
export const notificationKind = (earner: Earner | null): PendingNotificationEventType => {
  if (earner === null) return "pending_badge_notification.no_user.sent";
  return earner.email_confirmed
    ? "pending_badge_notification.sent"
    : "pending_badge_notification.unconfirmed_email.sent";
};

const NEXT_STEP = {
  "pending_badge_notification.sent": "accept",
  "pending_badge_notification.unconfirmed_email.sent": "confirm_address",
  "pending_badge_notification.no_user.sent": "create_account",
} as const satisfies Record<PendingNotificationEventType, Extract<MailContent, { template: "pending_badge" }>["step"]>;

/**
 * What the pending-badge e-mail says: who issued what to whom, and the link to accept it. The link
 * carries the badge's accept token: only with it does the accept page, signed out, name the
 * recipient.
 */
export const pendingBadgeContent = (
  view: BadgeView,
  kind: PendingNotificationEventType,
  urls: ShapeUrls,
  acceptToken: string,
): MailContent => {
  const { badge, template, issuer } = view;
  return {
    template: "pending_badge",
    to: badge.recipient_email,
    step: NEXT_STEP[kind],
    recipient_name: fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name),
    issuer_name: issuer.name,
    issuer_image_url: issuer.image_url,
    badge_name: template.name,
    badge_description: template.description,
    badge_image_url: templateImageUrl(urls, template),
    accept_url: `${acceptBadgeUrl(urls, badge.id)}?token=${encodeURIComponent(acceptToken)}`,
    message: badge.notification_message ?? template.notification_message,
  };
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
    content: pendingBadgeContent(view, kind, deps.urls, issued.acceptToken),
    sent_event: { event_type: event.event_type, detail: event.detail },
    created_at: ctx.now,
  };
};
