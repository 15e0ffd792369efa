import { isoDate, isoMillis } from "../shared/mod.ts";
import type { BadgeJson, BadgeStandardShape, BadgeTemplateJson } from "./output_schemas.ts";
import {
  acceptBadgeUrl,
  type BadgeRecord,
  type BadgeTemplateData,
  type BadgeTemplateRecord,
  badgeUrl,
  type OrganizationRef,
  organizationUrl,
  type ShapeUrls,
  templateImageUrl,
} from "./records.ts";

export const fullName = (first: string, middle: string | null, last: string): string =>
  [first, middle ?? "", last]
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .join(" ");

/**
 * The standard badge shape (docs/interface.md, Event details); `issuer` is the organization owning
 * the template, with the organization that issued the badge on its behalf (`authorizedIssuer`), if one did.
 */
export const badgeStandardShape = (
  badge: BadgeRecord,
  template: BadgeTemplateData,
  issuer: OrganizationRef,
  urls: ShapeUrls,
  authorizedIssuer?: OrganizationRef,
): BadgeStandardShape => ({
  id: badge.id,
  issued_to: fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name),
  issued_to_first_name: badge.issued_to_first_name,
  issued_to_middle_name: badge.issued_to_middle_name,
  issued_to_last_name: badge.issued_to_last_name,
  issued_at: isoMillis(badge.issued_at),
  issued_at_date: isoDate(badge.issued_at),
  expires_at: badge.expires_at ? isoMillis(badge.expires_at) : null,
  expires_at_date: badge.expires_at ? isoDate(badge.expires_at) : null,
  state: badge.state,
  public: badge.public,
  badge_url: badgeUrl(urls, badge.id),
  badge_template: {
    id: template.id,
    // Clients written for the interface read `image` (always null) beside `image_url`.
    image: null,
    image_url: templateImageUrl(urls, template),
    description: template.description,
    name: template.name,
    skills: [...template.skills],
  },
  issuer: {
    name: issuer.name,
    image_url: issuer.image_url,
    authorized_issuer: authorizedIssuer
      ? { id: authorizedIssuer.id, name: authorizedIssuer.name, image_url: authorizedIssuer.image_url }
      : null,
  },
});

export const badgeJson = (
  badge: BadgeRecord,
  template: BadgeTemplateData,
  issuer: OrganizationRef,
  urls: ShapeUrls,
  authorizedIssuer?: OrganizationRef,
): BadgeJson => ({
  ...badgeStandardShape(badge, template, issuer, urls, authorizedIssuer),
  recipient_email: badge.recipient_email,
  issuer_earner_id: badge.issuer_earner_id,
  locale: badge.locale,
  notification_message: badge.notification_message,
  evidence: badge.evidence.map((e) => ({ ...e })),
  revocation_reason: badge.revocation_reason,
  replaces_badge_id: badge.replaces_badge_id,
  replacement_badge_id: badge.replacement_badge_id,
  accept_badge_url: acceptBadgeUrl(urls, badge.id),
  state_updated_at: isoMillis(badge.state_updated_at),
  created_at: isoMillis(badge.created_at),
  updated_at: isoMillis(badge.updated_at),
  user: badge.user_id ? { id: badge.user_id } : null,
});

export const badgeTemplateJson = (
  template: BadgeTemplateRecord,
  owner: OrganizationRef,
  urls: ShapeUrls,
): BadgeTemplateJson => ({
  id: template.id,
  name: template.name,
  description: template.description,
  skills: [...template.skills],
  reporting_tags: [...template.reporting_tags],
  notification_message: template.notification_message,
  image_url: templateImageUrl(urls, template),
  url: template.url,
  vanity_slug: template.vanity_slug,
  state: template.state,
  public: template.public,
  criteria_url: template.criteria_url,
  global_activity_url: template.global_activity_url,
  alignments: template.alignments.map((a) => ({ ...a })),
  allow_duplicate_badges: template.allow_duplicate_badges,
  badges_count: template.badges_count,
  owner: { type: "Organization", id: owner.id, name: owner.name, url: organizationUrl(urls, owner.id) },
  created_at: isoMillis(template.created_at),
  updated_at: isoMillis(template.updated_at),
});
