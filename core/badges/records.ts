import type { BadgeState } from "./badge_state.ts";
import type { TemplateState } from "./template_state.ts";

/**
 * Plain rows as a store hands them to core: timestamps are `Date`, empty optional values `null`.
 * Shapes for the wire are built from these by `shapes.ts`, never by the adapter.
 */

export interface Alignment {
  name: string;
  url: string;
  description: string | null;
}

export interface UrlEvidence {
  type: "UrlEvidence";
  name: string;
  description: string | null;
  value: string;
}

/** The organization a template belongs to: the badge issuer and the OBI issuer profile. */
export interface OrganizationRef {
  id: string;
  name: string;
  /** The organization's own website, if it gave one (OBI issuer `url` falls back to its profile page). */
  website_url: string | null;
  image_url: string | null;
  description: string | null;
  /** Contact address published in the OBI issuer profile. */
  email: string | null;
}

export interface BadgeTemplateRecord {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  skills: string[];
  /** The organization's own labels, to select a collection of badges in its reports. */
  reporting_tags: string[];
  /** The issuer's words in the pending-badge e-mail of every badge of this template. */
  notification_message: string | null;
  /** An outside image address the client gave; null when the template has a stored `image`. */
  image_url: string | null;
  /** The template's image stored by Laurel (`<sha256>.<png|svg>`), served at `storedImageUrl`. */
  image: string | null;
  url: string | null;
  vanity_slug: string | null;
  state: TemplateState;
  public: boolean;
  criteria_url: string | null;
  global_activity_url: string | null;
  alignments: Alignment[];
  allow_duplicate_badges: boolean;
  badges_count: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * A template as badges and OBI documents need it: everything but the count of its badges, which
 * is a query of its own (kept off the badge lists and the hosted records, where nobody reads it).
 */
export type BadgeTemplateData = Omit<BadgeTemplateRecord, "badges_count">;

export interface BadgeRecord {
  id: string;
  /** The organization the badge belongs to: its template's owner, in whose records and lists it is. */
  organization_id: string;
  /**
   * The organization that issued it on the owner's behalf (an authorized issuer), which lists it
   * too; null when the owner issued it itself.
   */
  issued_by_organization_id: string | null;
  badge_template_id: string;
  state: BadgeState;
  public: boolean;
  issued_to_first_name: string;
  issued_to_middle_name: string | null;
  issued_to_last_name: string;
  /** Stored as given (trimmed); OBI hashing lowercases it. */
  recipient_email: string;
  issued_at: Date;
  expires_at: Date | null;
  evidence: UrlEvidence[];
  issuer_earner_id: string | null;
  locale: string | null;
  suppress_badge_notification_email: boolean;
  /** The issuer's words in this badge's e-mail, in place of its template's. */
  notification_message: string | null;
  revocation_reason: string | null;
  replaces_badge_id: string | null;
  replacement_badge_id: string | null;
  /** The earner account the badge is linked to (by recipient e-mail), if any. */
  user_id: string | null;
  /** Per-badge salt of the hashed OBI recipient identity, chosen at issue and never changed. */
  recipient_salt: string;
  /**
   * The recipient's subject identifier (a UUID; `urn:uuid:` in OB 3.0 `credentialSubject.id`),
   * chosen at issue by `recipientSubjectId` and never changed, even when the badge moves to another account.
   */
  subject_id: string;
  /**
   * Keyed digest of the token in the pending-badge mail's accept link (null: no mail was sent).
   * Whoever holds that link sees who the badge is for without signing in; nobody else does.
   */
  accept_token_digest: string | null;
  state_updated_at: Date;
  created_at: Date;
  updated_at: Date;
}

/**
 * Base addresses the shapes are built from; the app derives them from its configuration so core
 * never names a host. `publicBase` is the web face (badge pages, organization pages), without a
 * trailing slash.
 */
export interface ShapeUrls {
  publicBase: string;
}

export const badgeUrl = (urls: ShapeUrls, badgeId: string): string => `${urls.publicBase}/badges/${badgeId}`;
export const acceptBadgeUrl = (urls: ShapeUrls, badgeId: string): string =>
  `${urls.publicBase}/badges/${badgeId}/accept`;
export const organizationUrl = (urls: ShapeUrls, organizationId: string): string =>
  `${urls.publicBase}/organizations/${organizationId}`;
/** The stable address of a stored image: its name is its content's hash, so it never changes. */
export const storedImageUrl = (urls: ShapeUrls, name: string): string => `${urls.publicBase}/images/${name}`;
/** The address every shape, OBI document and page shows for a template's image. */
export const templateImageUrl = (urls: ShapeUrls, template: Pick<BadgeTemplateData, "image" | "image_url">) =>
  template.image ? storedImageUrl(urls, template.image) : template.image_url;
