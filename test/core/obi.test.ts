import { createHash } from "node:crypto";
import t from "tap";
import { Value } from "typebox/value";
import {
  BADGE_STATES,
  type BadgeRecord,
  type BadgeState,
  type BadgeTemplateRecord,
  type OrganizationRef,
  recipientSubjectId,
} from "../../core/badges/mod.ts";
import {
  AssertionDocumentSchema,
  assertionDocument,
  BadgeClassDocumentSchema,
  badgeClassDocument,
  IssuerDocumentSchema,
  issuerDocument,
  issuerProfileDocument,
  OB_V3_CONTEXT,
  OBI_V2_CONTEXT,
  type ObiVisibility,
  obiTemplateVisibility,
  obiVisibility,
  openBadgeCredentialPayload,
  RevokedAssertionDocumentSchema,
  recipientHashInput,
  revokedAssertionDocument,
  VC_V2_CONTEXT,
} from "../../core/obi/mod.ts";

const obiBase = "https://laurel.example:8443/v1/obi/v2";
const urls = { obiBase, publicBase: "https://laurel.example" };
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

const org: OrganizationRef = {
  id: "11111111-1111-4111-8111-111111111111",
  name: "Acme",
  website_url: "https://acme.example",
  image_url: "https://acme.example/logo.png",
  description: "We make things",
  email: "badges@acme.example",
};
const template: BadgeTemplateRecord = {
  id: "7d3f2a52-8f0e-4a43-8d8e-3a0b6a3f1c11",
  organization_id: org.id,
  name: "Rust",
  description: "Knows Rust",
  skills: ["rust", "systems"],
  reporting_tags: [],
  notification_message: null,
  image_url: "https://cdn.example/rust.png",
  image: null,
  url: null,
  vanity_slug: null,
  state: "active",
  public: true,
  criteria_url: "https://acme.example/criteria",
  global_activity_url: null,
  alignments: [{ name: "ESCO", url: "https://esco.example/1", description: "Skill" }],
  allow_duplicate_badges: false,
  badges_count: 3,
  created_at: new Date("2024-01-01T00:00:00.000Z"),
  updated_at: new Date("2024-01-05T00:00:00.000Z"),
};
const badge: BadgeRecord = {
  id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
  organization_id: org.id,
  badge_template_id: template.id,
  state: "accepted",
  public: true,
  issued_to_first_name: "Ada",
  issued_to_middle_name: null,
  issued_to_last_name: "Lovelace",
  recipient_email: " Ada@Example.ORG",
  issued_at: new Date("2024-01-01T21:34:05.000Z"),
  expires_at: new Date("2026-01-01T00:00:00.000Z"),
  evidence: [
    { type: "UrlEvidence", name: "Repo", description: "Code", value: "https://git.example/x" },
    { type: "UrlEvidence", name: "Talk", description: null, value: "https://talks.example/y" },
  ],
  issuer_earner_id: null,
  locale: null,
  suppress_badge_notification_email: false,
  notification_message: null,
  revocation_reason: null,
  replaces_badge_id: null,
  replacement_badge_id: null,
  user_id: null,
  recipient_salt: "pepper",
  issued_by_organization_id: null,
  subject_id: "0b7c3e52-1d9a-4f60-9b2e-6c1d2e3f4a5b",
  accept_token_digest: null,
  state_updated_at: new Date("2024-01-02T00:00:00.000Z"),
  created_at: new Date("2024-01-02T00:00:00.000Z"),
  updated_at: new Date("2024-01-03T00:00:00.000Z"),
};
const hex = sha256(recipientHashInput(badge.recipient_email, badge.recipient_salt));

t.test("recipient hash input is the lowercased, trimmed e-mail then the salt", (t) => {
  t.equal(recipientHashInput(" Ada@Example.ORG ", "pepper"), "ada@example.orgpepper");
  t.end();
});

t.test("assertion", (t) => {
  const a = assertionDocument(badge, hex, obiBase);
  t.same(a, {
    "@context": OBI_V2_CONTEXT,
    type: "Assertion",
    id: `${obiBase}/badge_assertions/${badge.id}`,
    badge: `${obiBase}/badge_classes/${template.id}`,
    issuedOn: "2024-01-01T21:34:05.000Z",
    expires: "2026-01-01T00:00:00.000Z",
    evidence: [
      {
        "@context": OBI_V2_CONTEXT,
        type: "Evidence",
        id: "https://git.example/x",
        name: "Repo",
        description: "Code",
        genre: "UrlEvidence",
      },
      {
        "@context": OBI_V2_CONTEXT,
        type: "Evidence",
        id: "https://talks.example/y",
        name: "Talk",
        genre: "UrlEvidence",
      },
    ],
    recipient: { type: "email", identity: `sha256$${hex}`, hashed: true, salt: "pepper" },
    verification: { type: "hosted" },
  });
  // What a verifier does: hash the claimed e-mail with the published salt.
  t.equal(a.recipient.identity, `sha256$${sha256(`ada@example.org${a.recipient.salt}`)}`);
  t.ok(Value.Check(AssertionDocumentSchema, a));
  const noExpiry = assertionDocument({ ...badge, expires_at: null, evidence: [] }, hex, obiBase);
  t.notOk("expires" in noExpiry, "no expires key rather than null");
  t.same(noExpiry.evidence, []);
  t.ok(Value.Check(AssertionDocumentSchema, noExpiry));
  t.end();
});

t.test("badge class and issuer link each other with absolute ids on one origin", (t) => {
  const a = assertionDocument(badge, hex, obiBase);
  const bc = badgeClassDocument(template, org, urls);
  const iss = issuerDocument(org, urls);
  t.equal(a.badge, bc.id);
  t.equal(bc.issuer, iss.id);
  for (const id of [a.id, bc.id, iss.id]) {
    t.match(id, /^https:\/\/laurel\.example:8443\/v1\/obi\/v2\//, `${id} is absolute`);
  }
  t.equal(iss.id, `${obiBase}/issuers/${org.id}`);
  t.same(bc, {
    "@context": OBI_V2_CONTEXT,
    type: "BadgeClass",
    id: `${obiBase}/badge_classes/${template.id}`,
    name: "Rust",
    description: "Knows Rust",
    criteria: { "@context": OBI_V2_CONTEXT, id: "https://acme.example/criteria", narrative: "Knows Rust" },
    image: { "@context": OBI_V2_CONTEXT, id: "https://cdn.example/rust.png" },
    issuer: iss.id,
    alignment: [{ targetName: "ESCO", targetUrl: "https://esco.example/1", targetDescription: "Skill" }],
    tags: ["rust", "systems"],
  });
  t.ok(Value.Check(BadgeClassDocumentSchema, bc));
  t.same(iss, {
    "@context": OBI_V2_CONTEXT,
    type: "Issuer",
    id: `${obiBase}/issuers/${org.id}`,
    name: "Acme",
    description: "We make things",
    email: "badges@acme.example",
    image: "https://acme.example/logo.png",
    // The pages are on another origin than the records here: the profile's own address.
    url: `${obiBase}/issuers/${org.id}`,
    // A port is not allowed in allowedOrigins: left out, the validator compares origins.
    verification: { type: "VerificationObject" },
  });
  t.ok(Value.Check(IssuerDocumentSchema, iss));
  t.equal(
    issuerDocument(org, { obiBase, publicBase: "https://laurel.example:8443" }).url,
    `https://laurel.example:8443/organizations/${org.id}`,
    "pages on the records' origin: the organization's page, never its website on another origin",
  );
  t.end();
});

t.test("allowedOrigins is a bare host name, or absent when the address has a port or is an IP", (t) => {
  const verification = (base: string) =>
    issuerDocument(org, { obiBase: `${base}/v1/obi/v2`, publicBase: base }).verification;
  t.same(verification("https://Badges.Laurel.example"), {
    type: "VerificationObject",
    allowedOrigins: "badges.laurel.example",
  });
  t.same(verification("https://laurel.example:8443"), { type: "VerificationObject" });
  t.same(verification("http://127.0.0.1"), { type: "VerificationObject" });
  t.same(verification("http://[::1]:3000"), { type: "VerificationObject" });
  t.end();
});

t.test("badge class options and fallbacks", (t) => {
  const embedded = badgeClassDocument(template, org, urls, { issuer: "embedded" });
  t.match(embedded.issuer, {
    type: "Profile",
    id: `${obiBase}/issuers/${org.id}`,
    name: "Acme",
    email: "badges@acme.example",
  });
  t.ok(Value.Check(BadgeClassDocumentSchema, embedded));
  const bare = badgeClassDocument(
    {
      ...template,
      image_url: null,
      criteria_url: null,
      alignments: [{ name: "A", url: "https://a.example", description: null }],
    },
    { ...org, website_url: null, email: null, description: null, image_url: null },
    urls,
    { defaultImageUrl: "https://laurel.example/default-badge.png" },
  );
  t.same(bare.criteria, { "@context": OBI_V2_CONTEXT, narrative: "Knows Rust" });
  t.same(bare.image, { "@context": OBI_V2_CONTEXT, id: "https://laurel.example/default-badge.png" });
  t.same(bare.alignment, [{ targetName: "A", targetUrl: "https://a.example" }]);
  t.ok(Value.Check(BadgeClassDocumentSchema, bare));
  const plainIssuer = issuerDocument(
    { ...org, website_url: null, email: null, description: null, image_url: null },
    urls,
  );
  t.equal(plainIssuer.url, plainIssuer.id, "the profile's own address, which answers");
  t.notOk("email" in plainIssuer || "image" in plainIssuer || "description" in plainIssuer);
  t.ok(Value.Check(IssuerDocumentSchema, plainIssuer));
  t.end();
});

t.test("revoked assertion document", (t) => {
  const r = revokedAssertionDocument({ id: badge.id, revocation_reason: "Fraud" }, obiBase);
  t.same(r, {
    "@context": OBI_V2_CONTEXT,
    type: "Assertion",
    id: `${obiBase}/badge_assertions/${badge.id}`,
    revoked: true,
    revocationReason: "Fraud",
  });
  t.ok(Value.Check(RevokedAssertionDocumentSchema, r));
  t.notOk(Value.Check(AssertionDocumentSchema, r));
  t.end();
});

t.test("visibility of every badge state and privacy, and of every template state", (t) => {
  const expected: Record<BadgeState, ObiVisibility> = {
    pending: "not_found",
    accepted: "served",
    rejected: "not_found",
    revoked: "gone",
    replaced: "served",
  };
  for (const s of BADGE_STATES) {
    t.equal(obiVisibility({ state: s, public: true }), expected[s], `${s}, public`);
    t.equal(obiVisibility({ state: s, public: false }), "not_found", `${s}, private: hidden from everyone`);
  }
  t.equal(obiTemplateVisibility("draft"), "not_found");
  t.equal(obiTemplateVisibility("active"), "served");
  t.equal(obiTemplateVisibility("archived"), "served");
  t.end();
});

t.test("OB 3.0 credential payload", (t) => {
  const v3Base = "https://laurel.example:8443/v1/obi/v3";
  const p = openBadgeCredentialPayload(badge, template, org, hex, { ...urls, v3Base });
  t.same(p["@context"], [VC_V2_CONTEXT, OB_V3_CONTEXT]);
  t.same(p.type, ["VerifiableCredential", "OpenBadgeCredential"]);
  t.equal(p.id, `${v3Base}/credentials/${badge.id}`);
  t.equal(p.jti, p.id);
  t.equal(p.iss, p.issuer.id);
  t.same(p.issuer, {
    id: `${v3Base}/issuers/${org.id}`,
    type: ["Profile"],
    name: "Acme",
    url: `${obiBase}/issuers/${org.id}`,
  });
  t.equal(p.validFrom, "2024-01-01T21:34:05Z");
  t.equal(p.validUntil, "2026-01-01T00:00:00Z");
  t.equal(p.nbf, Date.parse(p.validFrom) / 1000);
  t.equal(p.exp, Date.parse("2026-01-01T00:00:00Z") / 1000);
  t.equal(p.credentialSubject.id, `urn:uuid:${badge.subject_id}`, "the recipient's subject, not its e-mail");
  t.equal(p.sub, p.credentialSubject.id);
  t.same(p.credentialSubject.identifier, [
    {
      type: "IdentityObject",
      identityHash: `sha256$${hex}`,
      identityType: "emailAddress",
      hashed: true,
      salt: "pepper",
    },
  ]);
  t.same(p.credentialSubject.achievement, {
    id: `${obiBase}/badge_classes/${template.id}`,
    type: ["Achievement"],
    name: "Rust",
    description: "Knows Rust",
    criteria: { id: "https://acme.example/criteria", narrative: "Knows Rust" },
    image: { id: "https://cdn.example/rust.png", type: "Image" },
    tag: ["rust", "systems"],
  });
  t.equal(p.evidence?.length, 2);
  const open = openBadgeCredentialPayload({ ...badge, expires_at: null, evidence: [] }, template, org, hex, {
    ...urls,
    v3Base,
  });
  t.notOk("validUntil" in open || "exp" in open || "evidence" in open);
  t.notOk("credentialStatus" in p, "no status index: no status entry");
  t.same(openBadgeCredentialPayload(badge, template, org, hex, { ...urls, v3Base }, 131_075).credentialStatus, {
    id: `${v3Base}/status_lists/${org.id}/1#3`,
    type: "BitstringStatusListEntry",
    statusPurpose: "revocation",
    statusListIndex: "3",
    statusListCredential: `${v3Base}/status_lists/${org.id}/1`,
  });
  t.end();
});

t.test("OB 3.0 issuer profile: the credentials' issuer id, with the OB 3.0 context", (t) => {
  const v3Base = "https://laurel.example:8443/v1/obi/v3";
  const profile = issuerProfileDocument(org, { ...urls, v3Base });
  t.same(profile["@context"], [VC_V2_CONTEXT, OB_V3_CONTEXT]);
  t.same(profile.type, ["Profile"]);
  t.equal(profile.id, openBadgeCredentialPayload(badge, template, org, hex, { ...urls, v3Base }).issuer.id);
  t.equal(profile.name, "Acme");
  const bare = issuerProfileDocument({ ...org, description: null, email: null, image_url: null }, { ...urls, v3Base });
  t.notOk("description" in bare || "email" in bare || "image" in bare, "absent values are left out");
  t.end();
});

t.test("a recipient's subject: its account's, else its address's earlier badges', else a new one", (t) => {
  const [a, b, c] = ["a", "b", "c"];
  t.equal(recipientSubjectId({ account: a, address: b, fresh: c }), a);
  t.equal(recipientSubjectId({ account: null, address: b, fresh: c }), b);
  t.equal(recipientSubjectId({ account: null, address: null, fresh: c }), c);
  t.end();
});
