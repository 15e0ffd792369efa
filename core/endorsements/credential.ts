import { type Static, Type } from "typebox";
import { badgeClassUrl, OB_V3_CONTEXT, profileUrl, VC_V2_CONTEXT } from "../obi/mod.ts";
import { isoMillis, isoSeconds } from "../shared/mod.ts";
import type { EndorsementView } from "./records.ts";

export const endorsementUrl = (v3Base: string, id: string): string => `${v3Base}/endorsements/${id}`;

/** What an endorsement's subject is: the achievement's id (its hosted badge class) or the issuer profile's. */
export const endorsedSubjectId = (
  e: Pick<EndorsementView, "target_kind" | "target_id">,
  urls: { obiBase: string; v3Base: string },
): string =>
  e.target_kind === "badge_template" ? badgeClassUrl(urls.obiBase, e.target_id) : profileUrl(urls.v3Base, e.target_id);

const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/**
 * The OB 3.0 `EndorsementCredential` of an accepted endorsement, with the VC-JWT claims beside it
 * as the other credentials have them (docs/decisions.md). Its issuer is the endorser's OB 3.0
 * profile; `validFrom` is the acceptance, to the second, so the same endorsement always signs to
 * the same payload.
 */
export const endorsementCredentialPayload = (
  e: EndorsementView & { accepted_at: Date },
  urls: { obiBase: string; v3Base: string },
) => {
  const id = endorsementUrl(urls.v3Base, e.id);
  const issuerId = profileUrl(urls.v3Base, e.endorser_id);
  const subject = endorsedSubjectId(e, urls);
  return {
    "@context": [VC_V2_CONTEXT, OB_V3_CONTEXT],
    id,
    type: ["VerifiableCredential", "EndorsementCredential"],
    name: `${e.endorser_name} endorses ${e.endorsed_name}`,
    issuer: { id: issuerId, type: ["Profile"], name: e.endorser_name },
    validFrom: isoSeconds(e.accepted_at),
    credentialSubject: { id: subject, type: ["EndorsementSubject"], endorsementComment: e.comment },
    iss: issuerId,
    jti: id,
    sub: subject,
    nbf: seconds(e.accepted_at),
  };
};

/** An endorsement as the REST API shows it to either side. */
export const Endorsement = Type.Object({
  id: Type.String({ format: "uuid" }),
  endorser_organization_id: Type.String({ format: "uuid" }),
  endorser_name: Type.String(),
  endorsed_organization_id: Type.String({ format: "uuid" }),
  endorsed_name: Type.String(),
  target_kind: Type.Union([Type.Literal("badge_template"), Type.Literal("organization")]),
  target_id: Type.String({ format: "uuid" }),
  /** The template's name, or the endorsed organization's; null for a template deleted since. */
  target_name: Type.Union([Type.String(), Type.Null()]),
  comment: Type.String(),
  state: Type.Union([
    Type.Literal("pending"),
    Type.Literal("accepted"),
    Type.Literal("rejected"),
    Type.Literal("withdrawn"),
  ]),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
  accepted_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  /** The signed `EndorsementCredential` while accepted; null otherwise. */
  credential_url: Type.Union([Type.String({ format: "uri" }), Type.Null()]),
});
export type Endorsement = Static<typeof Endorsement>;

export const endorsementJson = (e: EndorsementView, v3Base: string): Endorsement => ({
  id: e.id,
  endorser_organization_id: e.endorser_id,
  endorser_name: e.endorser_name,
  endorsed_organization_id: e.endorsed_id,
  endorsed_name: e.endorsed_name,
  target_kind: e.target_kind,
  target_id: e.target_id,
  target_name: e.target_name,
  comment: e.comment,
  state: e.state,
  created_at: isoMillis(e.created_at),
  updated_at: isoMillis(e.updated_at),
  accepted_at: e.accepted_at ? isoMillis(e.accepted_at) : null,
  credential_url: e.state === "accepted" ? endorsementUrl(v3Base, e.id) : null,
});
