import { Type } from "typebox";
import type { OrganizationRef } from "../badges/mod.ts";
import { OB_V3_CONTEXT, VC_V2_CONTEXT } from "./context.ts";
import { issuerHomepage, type ObiUrls } from "./v2_documents.ts";

/**
 * The OB 3.0 issuer id of an organization: its own address beside the OB 2.0 issuer's, since
 * both standards ask for JSON-LD of the same media type and a request cannot say which it wants
 * (docs/decisions.md).
 */
export const profileUrl = (v3Base: string, organizationId: string): string => `${v3Base}/issuers/${organizationId}`;

export interface IssuerProfileDocument {
  "@context": [typeof VC_V2_CONTEXT, typeof OB_V3_CONTEXT];
  id: string;
  type: ["Profile"];
  name: string;
  url: string;
  description?: string;
  email?: string;
  image?: { id: string; type: "Image" };
  /** The organization's accepted endorsements, each a signed `EndorsementCredential` (compact JWS). */
  endorsementJwt?: string[];
}

/**
 * The OB 3.0 `Profile` a credential's `issuer.id` dereferences to. Its keys are found as OB 3.0
 * verifiers look for them: the key set at `/.well-known/jwks.json` of the id's host, which lists
 * each key under the `kid` the credentials' headers name.
 */
export const issuerProfileDocument = (
  org: OrganizationRef,
  urls: ObiUrls & { v3Base: string },
  endorsementJwt: readonly string[] = [],
): IssuerProfileDocument => ({
  "@context": [VC_V2_CONTEXT, OB_V3_CONTEXT],
  id: profileUrl(urls.v3Base, org.id),
  type: ["Profile"],
  name: org.name,
  url: issuerHomepage(org, urls),
  ...(org.description ? { description: org.description } : {}),
  ...(org.email ? { email: org.email } : {}),
  ...(org.image_url ? { image: { id: org.image_url, type: "Image" as const } } : {}),
  ...(endorsementJwt.length > 0 ? { endorsementJwt: [...endorsementJwt] } : {}),
});

/** The profile as the REST adapter documents it (OpenAPI). */
export const IssuerProfileDocumentSchema = Type.Object({
  "@context": Type.Array(Type.String()),
  id: Type.String({ format: "uri" }),
  type: Type.Array(Type.String()),
  name: Type.String(),
  url: Type.String({ format: "uri" }),
  description: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  image: Type.Optional(Type.Object({ id: Type.String({ format: "uri" }), type: Type.Literal("Image") })),
  /** The verification methods of its credentials' Data Integrity proofs (`withAssertionMethod`). */
  endorsementJwt: Type.Optional(Type.Array(Type.String())),
  assertionMethod: Type.Optional(Type.Array(Type.String({ format: "uri" }))),
});
