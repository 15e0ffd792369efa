export const OBI_V2_CONTEXT = "https://w3id.org/openbadges/v2" as const;

export const VC_V2_CONTEXT = "https://www.w3.org/ns/credentials/v2" as const;
export const OB_V3_CONTEXT = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json" as const;
/** The context of a Multikey verification method document. */
export const MULTIKEY_CONTEXT = "https://w3id.org/security/multikey/v1" as const;
/** Defines `assertionMethod`, by which an issuer profile lists its Data Integrity keys. */
export const SECURITY_V2_CONTEXT = "https://w3id.org/security/v2" as const;

/**
 * Where each record is served; every document `id` is one of these, so ids resolve.
 * `obiBase` is absolute and has no trailing slash, e.g. `https://badges.example.org/v1/obi/v2`.
 */
export const assertionUrl = (obiBase: string, badgeId: string): string => `${obiBase}/badge_assertions/${badgeId}`;
export const badgeClassUrl = (obiBase: string, templateId: string): string => `${obiBase}/badge_classes/${templateId}`;
export const issuerUrl = (obiBase: string, organizationId: string): string => `${obiBase}/issuers/${organizationId}`;
