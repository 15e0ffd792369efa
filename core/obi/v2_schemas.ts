import { type Static, Type } from "typebox";

/** OBI v2 documents as served (assertion, badge class, issuer); used for OpenAPI and response checks. */
const Context = Type.Literal("https://w3id.org/openbadges/v2");
const Iri = Type.String({ format: "uri" });
const DateTime = Type.String({ format: "date-time" });

export const EvidenceDocumentSchema = Type.Object({
  "@context": Context,
  type: Type.Literal("Evidence"),
  id: Iri,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  genre: Type.Literal("UrlEvidence"),
});

export const AssertionDocumentSchema = Type.Object({
  "@context": Context,
  type: Type.Literal("Assertion"),
  id: Iri,
  badge: Iri,
  issuedOn: DateTime,
  expires: Type.Optional(DateTime),
  evidence: Type.Array(EvidenceDocumentSchema),
  recipient: Type.Object({
    type: Type.Literal("email"),
    identity: Type.String({ pattern: "^sha256\\$[0-9a-f]{64}$" }),
    hashed: Type.Literal(true),
    salt: Type.String(),
  }),
  verification: Type.Object({ type: Type.Literal("hosted") }),
});
export type AssertionDocument = Static<typeof AssertionDocumentSchema>;

export const RevokedAssertionDocumentSchema = Type.Object({
  "@context": Context,
  type: Type.Literal("Assertion"),
  id: Iri,
  revoked: Type.Literal(true),
  revocationReason: Type.String(),
});
export type RevokedAssertionDocument = Static<typeof RevokedAssertionDocumentSchema>;

const profileProperties = {
  "@context": Context,
  id: Iri,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  email: Type.Optional(Type.String({ format: "email" })),
  image: Type.Optional(Iri),
  url: Iri,
  verification: Type.Object({
    type: Type.Literal("VerificationObject"),
    allowedOrigins: Type.Optional(Type.String()),
  }),
};

export const IssuerDocumentSchema = Type.Object({ ...profileProperties, type: Type.Literal("Issuer") });
export type IssuerDocument = Static<typeof IssuerDocumentSchema>;

/** The issuer embedded in a badge class (`type: "Profile"`). */
export const EmbeddedIssuerSchema = Type.Object({ ...profileProperties, type: Type.Literal("Profile") });
export type EmbeddedIssuer = Static<typeof EmbeddedIssuerSchema>;

export const BadgeClassDocumentSchema = Type.Object({
  "@context": Context,
  type: Type.Literal("BadgeClass"),
  id: Iri,
  name: Type.String(),
  description: Type.String(),
  criteria: Type.Object({ "@context": Context, id: Type.Optional(Iri), narrative: Type.String() }),
  image: Type.Optional(Type.Object({ "@context": Context, id: Iri })),
  issuer: Type.Union([Iri, EmbeddedIssuerSchema]),
  alignment: Type.Array(
    Type.Object({ targetName: Type.String(), targetUrl: Iri, targetDescription: Type.Optional(Type.String()) }),
  ),
  tags: Type.Array(Type.String()),
});
export type BadgeClassDocument = Static<typeof BadgeClassDocumentSchema>;
