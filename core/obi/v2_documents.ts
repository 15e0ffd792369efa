import {
  type BadgeRecord,
  type BadgeTemplateData,
  type OrganizationRef,
  organizationUrl,
  templateImageUrl,
} from "../badges/mod.ts";
import { isoMillis, originOf } from "../shared/mod.ts";
import { assertionUrl, badgeClassUrl, issuerUrl, OBI_V2_CONTEXT } from "./context.ts";
import { recipientIdentity } from "./recipient.ts";
import type {
  AssertionDocument,
  BadgeClassDocument,
  EmbeddedIssuer,
  IssuerDocument,
  RevokedAssertionDocument,
} from "./v2_schemas.ts";

/**
 * Addresses the documents are built from. `obiBase`: absolute prefix the OBI routes are served
 * under (`https://host/v1/obi/v2`). `publicBase`: the web face, for the issuer's `url`.
 */
export interface ObiUrls {
  obiBase: string;
  publicBase: string;
}

/**
 * Optional values are left out rather than sent as null: OB 2.0 validators type-check every
 * property present (`expires: null` is not a DateTime), unlike the REST shapes, which send null.
 */
export const assertionDocument = (
  badge: BadgeRecord,
  recipientSha256Hex: string,
  obiBase: string,
): AssertionDocument => ({
  "@context": OBI_V2_CONTEXT,
  type: "Assertion",
  id: assertionUrl(obiBase, badge.id),
  badge: badgeClassUrl(obiBase, badge.badge_template_id),
  issuedOn: isoMillis(badge.issued_at),
  ...(badge.expires_at ? { expires: isoMillis(badge.expires_at) } : {}),
  evidence: badge.evidence.map((e) => ({
    "@context": OBI_V2_CONTEXT,
    type: "Evidence",
    id: e.value,
    name: e.name,
    ...(e.description ? { description: e.description } : {}),
    genre: "UrlEvidence",
  })),
  recipient: {
    type: "email",
    identity: recipientIdentity(recipientSha256Hex),
    hashed: true,
    salt: badge.recipient_salt,
  },
  verification: { type: "hosted" },
});

/** The 410 body of a revoked assertion: what OB 2.0 verifiers read. */
export const revokedAssertionDocument = (
  badge: Pick<BadgeRecord, "id" | "revocation_reason">,
  obiBase: string,
): RevokedAssertionDocument => ({
  "@context": OBI_V2_CONTEXT,
  type: "Assertion",
  id: assertionUrl(obiBase, badge.id),
  revoked: true,
  revocationReason: badge.revocation_reason ?? "Revoked by the issuer",
});

/**
 * `scheme://host/...` -> `host`, the form `allowedOrigins` takes: a bare host name. An address
 * with a port or an IP literal has none (validators refuse both there), so the policy is left out
 * and a verifier compares the records' origin with the issuer's instead.
 */
const allowedOrigin = (absoluteUrl: string): string | null => {
  const host = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]+)/.exec(absoluteUrl)?.[1] ?? "";
  if (!/^[A-Za-z0-9.-]+$/.test(host) || /^[0-9.]+$/.test(host)) return null;
  return host.toLowerCase();
};

/**
 * The issuer's `url`: a verifier (Laurel's own among them) refuses an issuer whose `url` lies on
 * another origin than its id, since anyone can name someone else's website. So it is the
 * organization's page where that page shares the records' origin, else this profile itself; both
 * answer, as OB 2.0 validators fetch `url`. The organization's own website is on its page.
 */
export const issuerHomepage = (org: Pick<OrganizationRef, "id">, urls: ObiUrls): string => {
  const id = issuerUrl(urls.obiBase, org.id);
  const page = organizationUrl({ publicBase: urls.publicBase }, org.id);
  return originOf(page) === originOf(id) ? page : id;
};

/** The hosted-verification policy is stated rather than left to a validator's default. */
const profile = (org: OrganizationRef, urls: ObiUrls) => {
  const origin = allowedOrigin(urls.obiBase);
  return {
    "@context": OBI_V2_CONTEXT,
    id: issuerUrl(urls.obiBase, org.id),
    name: org.name,
    ...(org.description ? { description: org.description } : {}),
    ...(org.email ? { email: org.email } : {}),
    ...(org.image_url ? { image: org.image_url } : {}),
    url: issuerHomepage(org, urls),
    verification: { type: "VerificationObject" as const, ...(origin ? { allowedOrigins: origin } : {}) },
  };
};

/** The issuer document; OB 2.0 reads `Issuer` as an alias of `Profile`. */
export const issuerDocument = (org: OrganizationRef, urls: ObiUrls): IssuerDocument => ({
  ...profile(org, urls),
  type: "Issuer",
});

export interface BadgeClassOptions {
  /**
   * `url` (default): `issuer` is the issuer's address, which every OB 2.0 verifier resolves
   * and checks on its own (type, origin), and there is one source of truth for the profile.
   * `embedded`: the issuer's `Profile` object in place, for clients that read it there.
   */
  issuer?: "url" | "embedded";
  /** Image used when the template has none: OB 2.0 requires a BadgeClass image. */
  defaultImageUrl?: string;
}

/**
 * The badge class. `criteria.narrative` is the template description (templates carry no separate
 * criteria text); `criteria.id` is `criteria_url` when set.
 */
export const badgeClassDocument = (
  template: BadgeTemplateData,
  issuer: OrganizationRef,
  urls: ObiUrls,
  options: BadgeClassOptions = {},
): BadgeClassDocument => {
  const image = templateImageUrl(urls, template) ?? options.defaultImageUrl;
  const embedded: EmbeddedIssuer = { ...profile(issuer, urls), type: "Profile" };
  return {
    "@context": OBI_V2_CONTEXT,
    type: "BadgeClass",
    id: badgeClassUrl(urls.obiBase, template.id),
    name: template.name,
    description: template.description,
    criteria: {
      "@context": OBI_V2_CONTEXT,
      ...(template.criteria_url ? { id: template.criteria_url } : {}),
      narrative: template.description,
    },
    ...(image ? { image: { "@context": OBI_V2_CONTEXT, id: image } } : {}),
    issuer: options.issuer === "embedded" ? embedded : issuerUrl(urls.obiBase, issuer.id),
    alignment: template.alignments.map((a) => ({
      targetName: a.name,
      targetUrl: a.url,
      ...(a.description ? { targetDescription: a.description } : {}),
    })),
    tags: [...template.skills],
  };
};
