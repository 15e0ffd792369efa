import { type BadgeRecord, type BadgeTemplateData, type OrganizationRef, templateImageUrl } from "../badges/mod.ts";
import { isoSeconds } from "../shared/mod.ts";
import { badgeClassUrl, OB_V3_CONTEXT, VC_V2_CONTEXT } from "./context.ts";
import { recipientIdentity } from "./recipient.ts";
import { type StatusListEntry, statusListEntry } from "./status_list.ts";
import { issuerHomepage, type ObiUrls } from "./v2_documents.ts";
import { profileUrl } from "./v3_profile.ts";

/**
 * Open Badges 3.0 (beside the OB 2.0 records). The VC-JWT payload is the credential itself with the
 * registered claims beside it (OB 3.0 §8.2): `iss` = issuer id, `jti` = credential id, `sub` =
 * `credentialSubject.id`, `nbf`/`exp` = validFrom/validUntil in seconds. The subject is the
 * recipient's `urn:uuid:` (`BadgeRecord.subject_id`), beside the hashed e-mail a verifier can
 * check an address against. `validFrom` is written to the second so it equals `nbf` exactly.
 */
export interface OpenBadgeCredentialPayload {
  "@context": [typeof VC_V2_CONTEXT, typeof OB_V3_CONTEXT];
  id: string;
  type: ["VerifiableCredential", "OpenBadgeCredential"];
  name: string;
  issuer: { id: string; type: ["Profile"]; name: string; url: string };
  validFrom: string;
  validUntil?: string;
  credentialSubject: {
    id: string;
    type: ["AchievementSubject"];
    identifier: [
      { type: "IdentityObject"; identityHash: string; identityType: "emailAddress"; hashed: true; salt: string },
    ];
    achievement: {
      id: string;
      type: ["Achievement"];
      name: string;
      description: string;
      criteria: { id?: string; narrative: string };
      image?: { id: string; type: "Image" };
      tag?: string[];
      /** The accepted endorsements of the achievement, each a signed `EndorsementCredential` (compact JWS). */
      endorsementJwt?: string[];
    };
    /** The organization that issued it on the issuer's behalf (an authorized issuer), as a `Profile`. */
    source?: { id: string; type: ["Profile"]; name: string; url: string };
  };
  evidence?: { id: string; type: ["Evidence"]; name: string; description?: string }[];
  credentialStatus?: StatusListEntry;
  iss: string;
  jti: string;
  sub: string;
  nbf: number;
  exp?: number;
}

export interface V3Urls extends ObiUrls {
  /** Absolute prefix of the v3 routes, e.g. `https://host/v1/obi/v3`; the credential id lives there. */
  v3Base: string;
}

export const credentialUrl = (v3Base: string, badgeId: string): string => `${v3Base}/credentials/${badgeId}`;

const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/** The `credentialSubject.id` (and JWT `sub`) of a badge's credential. */
export const subjectUrn = (subjectId: string): string => `urn:uuid:${subjectId}`;

/**
 * The issuer id is the organization's OB 3.0 profile (`profileUrl`), which OB 3.0 verifiers
 * dereference. The achievement id is the hosted OB 2.0 badge class address: it resolves to a
 * description of the same achievement. The assertion address is not used as the credential id
 * because a v2 document is served there. `statusIndex` is the badge's entry in its
 * organization's status lists. A badge issued on its organization's behalf by another
 * (`authorizedIssuer`) names that one as the subject's `source` (OB 3.0: "the organization that
 * assessed the achievement on behalf of the issuer"); the issuer stays the badge's organization.
 */
export const openBadgeCredentialPayload = (
  badge: BadgeRecord,
  template: BadgeTemplateData,
  issuer: OrganizationRef,
  recipientSha256Hex: string,
  urls: V3Urls,
  statusIndex?: number,
  endorsementJwt: readonly string[] = [],
  authorizedIssuer?: OrganizationRef,
): OpenBadgeCredentialPayload => {
  const id = credentialUrl(urls.v3Base, badge.id);
  const issuerId = profileUrl(urls.v3Base, issuer.id);
  const subject = subjectUrn(badge.subject_id);
  const image = templateImageUrl(urls, template);
  return {
    "@context": [VC_V2_CONTEXT, OB_V3_CONTEXT],
    id,
    type: ["VerifiableCredential", "OpenBadgeCredential"],
    name: template.name,
    issuer: {
      id: issuerId,
      type: ["Profile"],
      name: issuer.name,
      url: issuerHomepage(issuer, urls),
    },
    validFrom: isoSeconds(badge.issued_at),
    ...(badge.expires_at ? { validUntil: isoSeconds(badge.expires_at) } : {}),
    credentialSubject: {
      id: subject,
      type: ["AchievementSubject"],
      identifier: [
        {
          type: "IdentityObject",
          identityHash: recipientIdentity(recipientSha256Hex),
          identityType: "emailAddress",
          hashed: true,
          salt: badge.recipient_salt,
        },
      ],
      achievement: {
        id: badgeClassUrl(urls.obiBase, template.id),
        type: ["Achievement"],
        name: template.name,
        description: template.description,
        criteria: {
          ...(template.criteria_url ? { id: template.criteria_url } : {}),
          narrative: template.description,
        },
        ...(image ? { image: { id: image, type: "Image" as const } } : {}),
        ...(template.skills.length > 0 ? { tag: [...template.skills] } : {}),
        ...(endorsementJwt.length > 0 ? { endorsementJwt: [...endorsementJwt] } : {}),
      },
      ...(authorizedIssuer
        ? {
            source: {
              id: profileUrl(urls.v3Base, authorizedIssuer.id),
              type: ["Profile"] as ["Profile"],
              name: authorizedIssuer.name,
              url: issuerHomepage(authorizedIssuer, urls),
            },
          }
        : {}),
    },
    ...(badge.evidence.length > 0
      ? {
          evidence: badge.evidence.map((e) => ({
            id: e.value,
            type: ["Evidence"] as ["Evidence"],
            name: e.name,
            ...(e.description ? { description: e.description } : {}),
          })),
        }
      : {}),
    ...(statusIndex !== undefined ? { credentialStatus: statusListEntry(urls.v3Base, issuer.id, statusIndex) } : {}),
    iss: issuerId,
    jti: id,
    sub: subject,
    nbf: seconds(badge.issued_at),
    ...(badge.expires_at ? { exp: seconds(badge.expires_at) } : {}),
  };
};
