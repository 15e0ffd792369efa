import {
  acceptBadgeUrl,
  type BadgeTemplateData,
  badgeStandardShape,
  fullName,
  type OrganizationRef,
  type ShapeUrls,
  templateImageUrl,
} from "../badges/mod.ts";
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

/** What a pending-badge e-mail is made of, whether for a real badge or a preview of a template's. */
interface PendingBadgeParts {
  to: string;
  step: Extract<MailContent, { template: "pending_badge" }>["step"];
  recipientName: string;
  template: Pick<BadgeTemplateData, "name" | "description" | "image" | "image_url" | "notification_message">;
  issuer: Pick<OrganizationRef, "name" | "image_url">;
  acceptUrl: string;
  /** The badge's own words, in place of its template's. */
  message: string | null;
}

const pendingBadgeParts = (p: PendingBadgeParts, urls: ShapeUrls): MailContent => ({
  template: "pending_badge",
  to: p.to,
  step: p.step,
  recipient_name: p.recipientName,
  issuer_name: p.issuer.name,
  issuer_image_url: p.issuer.image_url,
  badge_name: p.template.name,
  badge_description: p.template.description,
  badge_image_url: templateImageUrl(urls, p.template),
  accept_url: p.acceptUrl,
  message: p.message ?? p.template.notification_message,
});

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
  return pendingBadgeParts(
    {
      to: badge.recipient_email,
      step: NEXT_STEP[kind],
      recipientName: fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name),
      template,
      issuer,
      acceptUrl: `${acceptBadgeUrl(urls, badge.id)}?token=${encodeURIComponent(acceptToken)}`,
      message: badge.notification_message,
    },
    urls,
  );
};

/** The sample recipient of a template's mail preview. */
export const PREVIEW_RECIPIENT = { name: "Sam Example", email: "sam@example.org" } as const;

/**
 * The pending-badge e-mail a template's badge would send, for the console to show before anything
 * is issued: the same content as a real notification, to a sample recipient who has an account
 * (the "accept" wording), with a link that leads nowhere (a preview badge id and token).
 */
export const previewBadgeContent = (
  template: PendingBadgeParts["template"],
  issuer: PendingBadgeParts["issuer"],
  urls: ShapeUrls,
): MailContent =>
  pendingBadgeParts(
    {
      to: PREVIEW_RECIPIENT.email,
      step: "accept",
      recipientName: PREVIEW_RECIPIENT.name,
      template,
      issuer,
      acceptUrl: `${acceptBadgeUrl(urls, "00000000-0000-0000-0000-000000000000")}?token=preview`,
      message: null,
    },
    urls,
  );

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
  const shape = badgeStandardShape(view.badge, view.template, view.issuer, deps.urls, view.authorizedIssuer);
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
