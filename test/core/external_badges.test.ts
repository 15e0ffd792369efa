import { createHash, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { base64url, exportJWK, SignJWT } from "jose";
import t, { type Test } from "tap";
import { Value } from "typebox/value";
import { joseJwsCheck } from "../../adapters/crypto/mod.ts";
import { isCoreError } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import {
  addExternalBadge,
  type DueExternalBadge,
  didWebDocumentUrl,
  type EmployeeRecord,
  type Employer,
  type ExternalBadgeContext,
  type ExternalBadgeDetails,
  type ExternalBadgeReason,
  type ExternalBadgeRecord,
  ExternalBadgeSchema,
  type ExternalBadgeStore,
  type ExternalBadgeTx,
  type ExternalDocuments,
  employeeExternalBadges,
  externalBadgeShape,
  type Fetched,
  MAX_EXTERNAL_BADGES,
  newEmployeeRecord,
  REVERIFY_INTERVAL_MS,
  readExternalBadgeInput,
  recheckExternalBadge,
  recordVerification,
  removeExternalBadge,
  reverifyDue,
  type Verification,
  type VerifyDeps,
  verifyOb2,
  verifyOb3,
} from "../../core/workforce/mod.ts";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const EARLIER = new Date("2026-02-27T08:00:00.000Z");
const ANN = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const BOB = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const ORIGIN = "https://issuer.example";
const ASSERTION = `${ORIGIN}/assertions/1`;
const CLASS = `${ORIGIN}/classes/1`;
const PROFILE = `${ORIGIN}/issuer`;
const KID = `${ORIGIN}/keys/1`;
const CREDENTIAL_ID = `${ORIGIN}/credentials/1`;
const SALT = "c0ffee";

const sha256Hex = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");
/** How an issuer hashes a recipient: sha256 of the lowercased address and the salt. */
const hashOf = (email: string, salt = SALT): string => `sha256$${sha256Hex(email.toLowerCase() + salt)}`;

const json = (body: unknown, status = 200): Fetched => ({ outcome: "answered", status, json: body });
const NOT_JSON = (status: number): Fetched => ({ outcome: "not_json", status });
const UNREACHABLE: Fetched = { outcome: "unreachable", status: null };
const BLOCKED: Fetched = { outcome: "blocked_address", status: null };

/** The web as the verifier sees it: what each address answers, 404 for any other. */
const web = (docs: Map<string, Fetched>): ExternalDocuments => ({
  getJson: async (url) => docs.get(url) ?? json({ error: "not found" }, 404),
});
const deps = (docs: Map<string, Fetched>): VerifyDeps => ({ documents: web(docs), jws: joseJwsCheck(), sha256Hex });

// ---- Open Badges 2.0: a hosted assertion, its badge class and issuer profile ----

const PROFILE_DOC = {
  "@context": "https://w3id.org/openbadges/v2",
  type: "Profile",
  id: PROFILE,
  name: "Other Academy",
  url: ORIGIN,
};
const CLASS_DOC = {
  "@context": "https://w3id.org/openbadges/v2",
  type: "BadgeClass",
  id: CLASS,
  name: "Rope Access Level 1",
  description: "Works safely at height on ropes.",
  image: `${ORIGIN}/images/1.png`,
  criteria: { id: `${ORIGIN}/criteria/1`, narrative: "Pass the practical." },
  issuer: PROFILE,
};
const assertion = (fields: Record<string, unknown> = {}) => ({
  "@context": "https://w3id.org/openbadges/v2",
  type: "Assertion",
  id: ASSERTION,
  recipient: { type: "email", hashed: true, salt: SALT, identity: hashOf("ann@example.org") },
  badge: CLASS,
  issuedOn: "2026-01-15T10:00:00Z",
  verification: { type: "hosted" },
  ...fields,
});
/** The issuer's three documents, with `changes` laid over them. */
const ob2Web = (changes: Array<[string, Fetched]> = []) =>
  new Map<string, Fetched>([
    [ASSERTION, json(assertion())],
    [CLASS, json(CLASS_DOC)],
    [PROFILE, json(PROFILE_DOC)],
    ...changes,
  ]);
const withAssertion = (fields: Record<string, unknown>): Array<[string, Fetched]> => [
  [ASSERTION, json(assertion(fields))],
];

const OB2_DETAILS: ExternalBadgeDetails = {
  name: "Rope Access Level 1",
  description: "Works safely at height on ropes.",
  image_url: `${ORIGIN}/images/1.png`,
  criteria_url: `${ORIGIN}/criteria/1`,
  issuer_name: "Other Academy",
  issuer_url: ORIGIN,
  issuer_origin: ORIGIN,
  issued_at: new Date("2026-01-15T10:00:00Z"),
  expires_at: null,
  credential_id: ASSERTION,
};

// The account confirmed its address with capitals: issuers hash the lowercased address.
const ACCOUNT = ["Ann@Example.ORG"];

const checkVerification = (
  t: Test,
  name: string,
  v: Verification,
  reason: ExternalBadgeReason | null,
  details: Partial<ExternalBadgeDetails> | null,
) => {
  t.same([v.status, v.reason], [reason === null ? "validated" : "unvalidated", reason], `${name}: outcome`);
  if (details === null) t.equal(v.details, null, `${name}: nothing read`);
  // Only a validated badge has a verified issuer origin.
  else t.has(v.details, reason === null ? details : { ...details, issuer_origin: null }, `${name}: details`);
  if (details !== null && reason !== null) t.equal(v.details?.issuer_origin, null, `${name}: no verified origin`);
};

t.test("OB 2.0 hosted assertions: one row per outcome", async (t) => {
  const EMBEDDED_CLASS = {
    type: "BadgeClass",
    name: "Knots",
    description: "Ties them.",
    image: { type: "Image", id: `${ORIGIN}/images/knots.png` },
    criteria: `${ORIGIN}/criteria/knots`,
    issuer: { type: "Issuer", id: PROFILE, name: "Embedded Academy", url: `${ORIGIN}/academy` },
  };
  const rows: Array<
    [
      string,
      Array<[string, Fetched]>,
      readonly string[],
      ExternalBadgeReason | null,
      Partial<ExternalBadgeDetails> | null,
    ]
  > = [
    ["hashed recipient, the confirmed address in other case", [], ACCOUNT, null, OB2_DETAILS],
    [
      "hashed recipient written in capitals",
      withAssertion({
        recipient: { type: "email", hashed: true, salt: SALT, identity: hashOf("ann@example.org").toUpperCase() },
      }),
      ACCOUNT,
      null,
      OB2_DETAILS,
    ],
    [
      "unhashed recipient",
      withAssertion({ recipient: { type: "email", hashed: false, identity: " ANN@example.org" } }),
      ACCOUNT,
      null,
      OB2_DETAILS,
    ],
    ["one of several confirmed addresses", [], ["bob@example.org", "ann@example.org"], null, OB2_DETAILS],
    [
      "badge class and issuer embedded, the assertion's own image and expiry",
      withAssertion({ badge: EMBEDDED_CLASS, image: `${ORIGIN}/baked/1.png`, expires: "2027-01-01T00:00:00Z" }),
      ACCOUNT,
      null,
      {
        name: "Knots",
        description: "Ties them.",
        image_url: `${ORIGIN}/baked/1.png`,
        criteria_url: `${ORIGIN}/criteria/knots`,
        issuer_name: "Embedded Academy",
        issuer_url: `${ORIGIN}/academy`,
        issuer_origin: ORIGIN,
        expires_at: new Date("2027-01-01T00:00:00Z"),
      },
    ],
    [
      "embedded badge class without a type, its image an object, its issuer by address",
      withAssertion({ badge: { ...EMBEDDED_CLASS, type: undefined, issuer: PROFILE } }),
      ACCOUNT,
      null,
      { name: "Knots", image_url: `${ORIGIN}/images/knots.png`, issuer_name: "Other Academy" },
    ],
    ["issuer profile typed Issuer", [[PROFILE, json({ ...PROFILE_DOC, type: "Issuer" })]], ACCOUNT, null, {}],
    ["no answer", [[ASSERTION, UNREACHABLE]], ACCOUNT, "unreachable", null],
    ["a 5xx", [[ASSERTION, json({ error: "down" }, 503)]], ACCOUNT, "unreachable", null],
    ["a private address", [[ASSERTION, BLOCKED]], ACCOUNT, "blocked_address", null],
    ["404", [[ASSERTION, json({ error: "no" }, 404)]], ACCOUNT, "not_found", null],
    ["another 4xx, not JSON", [[ASSERTION, NOT_JSON(403)]], ACCOUNT, "not_found", null],
    ["410 Gone", [[ASSERTION, NOT_JSON(410)]], ACCOUNT, "revoked", null],
    ["revoked: true", withAssertion({ revoked: true, revocationReason: "cheated" }), ACCOUNT, "revoked", OB2_DETAILS],
    ["not an object", [[ASSERTION, json(["Assertion"])]], ACCOUNT, "malformed", null],
    ["not JSON", [[ASSERTION, NOT_JSON(200)]], ACCOUNT, "malformed", null],
    ["not an assertion", withAssertion({ type: "BadgeClass" }), ACCOUNT, "malformed", null],
    ["issuedOn unreadable", withAssertion({ issuedOn: "the fifteenth" }), ACCOUNT, "malformed", null],
    ["expires of the wrong type", withAssertion({ expires: true }), ACCOUNT, "malformed", null],
    [
      "no recipient identity",
      withAssertion({ recipient: { type: "email", hashed: true, salt: SALT } }),
      ACCOUNT,
      "malformed",
      null,
    ],
    [
      "its id another address",
      withAssertion({ id: `${ORIGIN}/assertions/2` }),
      ACCOUNT,
      "id_mismatch",
      { name: "Rope Access Level 1" },
    ],
    ["hashed for someone else", [], ["bob@example.org"], "recipient_mismatch", OB2_DETAILS],
    ["an account with no confirmed address", [], [], "recipient_mismatch", OB2_DETAILS],
    [
      "hashed without its salt",
      withAssertion({
        recipient: { type: "email", hashed: true, salt: SALT, identity: hashOf("ann@example.org", "") },
      }),
      ACCOUNT,
      "recipient_mismatch",
      {},
    ],
    [
      "unhashed, someone else",
      withAssertion({ recipient: { type: "email", hashed: false, identity: "bob@example.org" } }),
      ACCOUNT,
      "recipient_mismatch",
      {},
    ],
    [
      "expired",
      withAssertion({ expires: "2026-02-01T00:00:00Z" }),
      ACCOUNT,
      "expired",
      { expires_at: new Date("2026-02-01T00:00:00Z") },
    ],
    ["expires this very moment", withAssertion({ expires: NOW.toISOString() }), ACCOUNT, "expired", {}],
    [
      "issued tomorrow",
      withAssertion({ issuedOn: "2026-03-02T00:00:00Z" }),
      ACCOUNT,
      "not_yet_valid",
      { issued_at: new Date("2026-03-02T00:00:00Z") },
    ],
    ["badge class 404", [[CLASS, json({}, 404)]], ACCOUNT, "badge_class_unresolved", null],
    ["badge class address serves a profile", [[CLASS, json(PROFILE_DOC)]], ACCOUNT, "badge_class_unresolved", null],
    ["badge class not an address", withAssertion({ badge: "urn:uuid:1" }), ACCOUNT, "badge_class_unresolved", null],
    [
      "embedded badge class of another type",
      withAssertion({ badge: { ...EMBEDDED_CLASS, type: "Profile" } }),
      ACCOUNT,
      "badge_class_unresolved",
      null,
    ],
    ["issuer unreachable", [[PROFILE, UNREACHABLE]], ACCOUNT, "issuer_unresolved", null],
    ["issuer address serves a badge class", [[PROFILE, json(CLASS_DOC)]], ACCOUNT, "issuer_unresolved", null],
    [
      "embedded issuer of another type",
      withAssertion({ badge: { ...EMBEDDED_CLASS, issuer: { type: "BadgeClass", name: "x" } } }),
      ACCOUNT,
      "issuer_unresolved",
      null,
    ],
  ];
  for (const [name, changes, emails, reason, details] of rows) {
    checkVerification(t, name, await verifyOb2(deps(ob2Web(changes)), ASSERTION, emails, NOW), reason, details);
  }
});

t.test("OB 2.0: an assertion is hosted on its issuer's origin", async (t) => {
  // Anyone can serve a document naming a real issuer's badge class; only the issuer's host vouches for it.
  const FORGED = "https://forger.example/assertions/1";
  const rows: Array<[string, string, Record<string, unknown>, ExternalBadgeReason | null]> = [
    ["the issuer's host", ASSERTION, {}, null],
    ["another host, the issuer's badge class by address", FORGED, {}, "id_mismatch"],
    [
      "another host, an embedded issuer claiming the issuer's id",
      FORGED,
      { badge: { ...CLASS_DOC, issuer: PROFILE_DOC } },
      "id_mismatch",
    ],
    ["the issuer's host name under another port", "https://issuer.example:8443/assertions/1", {}, "id_mismatch"],
    ["the issuer's host as user info", "https://issuer.example@forger.example/a/1", {}, "id_mismatch"],
    [
      "another host with its own embedded issuer",
      FORGED,
      { badge: { ...CLASS_DOC, issuer: { ...PROFILE_DOC, id: "https://forger.example/issuer", url: undefined } } },
      null,
    ],
    [
      "another host with its own embedded issuer claiming a university's address",
      FORGED,
      {
        badge: {
          ...CLASS_DOC,
          issuer: { ...PROFILE_DOC, id: "https://forger.example/issuer", url: "https://www.harvard.edu" },
        },
      },
      "id_mismatch",
    ],
    [
      "the issuer's host, its profile's url on another site",
      ASSERTION,
      { badge: { ...CLASS_DOC, issuer: { ...PROFILE_DOC, url: "https://www.harvard.edu/" } } },
      "id_mismatch",
    ],
  ];
  for (const [name, url, fields, reason] of rows) {
    const docs = ob2Web([[url, json(assertion({ id: url, ...fields }))]]);
    const v = await verifyOb2(deps(docs), url, ACCOUNT, NOW);
    t.same([v.status, v.reason], [reason === null ? "validated" : "unvalidated", reason], name);
  }
});

// ---- Open Badges 3.0: a VC-JWT signed with the key the issuer serves at its own origin ----

const issuerKey = generateKeyPairSync("ed25519");
const strangerKey = generateKeyPairSync("ed25519");
const servedKey = async (key: KeyObject, kid: string) => ({ ...(await exportJWK(key)), kid, alg: "EdDSA" });

const claims = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  "@context": ["https://www.w3.org/ns/credentials/v2", "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"],
  id: CREDENTIAL_ID,
  type: ["VerifiableCredential", "OpenBadgeCredential"],
  issuer: { id: PROFILE, type: ["Profile"], name: "Other Academy", url: ORIGIN },
  validFrom: "2026-01-15T10:00:00Z",
  credentialSubject: {
    type: ["AchievementSubject"],
    identifier: [
      {
        type: "IdentityObject",
        identityHash: hashOf("ann@example.org"),
        identityType: "emailAddress",
        hashed: true,
        salt: SALT,
      },
    ],
    achievement: {
      id: `${ORIGIN}/achievements/1`,
      type: ["Achievement"],
      name: "Confined Space Entry",
      description: "Enters and works in confined spaces safely.",
      image: { id: `${ORIGIN}/images/2.png`, type: "Image" },
      criteria: { id: `${ORIGIN}/criteria/2`, narrative: "Pass the assessment." },
    },
  },
  iss: PROFILE,
  jti: CREDENTIAL_ID,
  ...over,
});

const sign = (
  payload: Record<string, unknown>,
  { kid = KID as string | null, key = issuerKey.privateKey as KeyObject | Uint8Array, alg = "EdDSA" } = {},
): Promise<string> =>
  new SignJWT(payload).setProtectedHeader({ alg, typ: "vc+jwt", ...(kid ? { kid } : {}) }).sign(key);

/** An unsecured JWS (`alg: none`, no signature): jose will not make one, so it is spelled out. */
const unsecured = (payload: Record<string, unknown>): string =>
  `${base64url.encode(JSON.stringify({ alg: "none", typ: "vc+jwt", kid: KID }))}.${base64url.encode(JSON.stringify(payload))}.`;

const OB3_DETAILS: ExternalBadgeDetails = {
  name: "Confined Space Entry",
  description: "Enters and works in confined spaces safely.",
  image_url: `${ORIGIN}/images/2.png`,
  criteria_url: `${ORIGIN}/criteria/2`,
  issuer_name: "Other Academy",
  issuer_url: ORIGIN,
  issuer_origin: ORIGIN,
  issued_at: new Date("2026-01-15T10:00:00Z"),
  expires_at: null,
  credential_id: CREDENTIAL_ID,
};

t.test("OB 3.0 VC-JWTs: one row per outcome", async (t) => {
  const issuerJwk = await servedKey(issuerKey.publicKey, KID);
  const secret = randomBytes(32);
  const { credentialSubject: subject } = claims() as { credentialSubject: Record<string, unknown> };
  const rows: Array<
    [string, string, Array<[string, Fetched]>, ExternalBadgeReason | null, Partial<ExternalBadgeDetails> | null]
  > = [
    ["signed with the issuer's key", await sign(claims()), [], null, OB3_DETAILS],
    [
      "the key in a JWK set",
      await sign(claims()),
      [[KID, json({ keys: [await servedKey(strangerKey.publicKey, `${ORIGIN}/keys/0`), issuerJwk] })]],
      null,
      OB3_DETAILS,
    ],
    [
      "the credential under a vc claim, its dates from nbf and exp",
      await sign({
        vc: claims({ validFrom: undefined, iss: undefined, jti: undefined }),
        iss: PROFILE,
        nbf: 1_768_471_200,
        exp: 1_800_000_000,
      }),
      [],
      null,
      { ...OB3_DETAILS, expires_at: new Date(1_800_000_000_000) },
    ],
    [
      "the credential id answers 404: nothing says it is revoked",
      await sign(claims()),
      [[CREDENTIAL_ID, json({}, 404)]],
      null,
      {},
    ],
    ["not a JWS", "not a credential", [], "malformed", null],
    [
      "JSON but not an object payload",
      `${base64url.encode('{"alg":"EdDSA"}')}.${base64url.encode("[1]")}.c2ln`,
      [],
      "malformed",
      null,
    ],
    ["not an OpenBadgeCredential", await sign(claims({ type: ["VerifiableCredential"] })), [], "malformed", null],
    [
      "no achievement",
      await sign(claims({ credentialSubject: { ...subject, achievement: undefined } })),
      [],
      "malformed",
      null,
    ],
    ["validFrom unreadable", await sign(claims({ validFrom: "soon" })), [], "malformed", null],
    [
      "kid on another origin than the issuer, serving the issuer's very key",
      await sign(claims(), { kid: "https://keys.example/1" }),
      [["https://keys.example/1", json({ ...issuerJwk, kid: "https://keys.example/1" })]],
      "key_unresolved",
      OB3_DETAILS,
    ],
    [
      "an issuer on another origin than the kid",
      await sign(claims({ issuer: { id: "https://other.example/issuer", name: "Other Academy" } })),
      [],
      "key_unresolved",
      { issuer_url: null, issuer_origin: null },
    ],
    ["kid does not answer", await sign(claims()), [[KID, UNREACHABLE]], "key_unresolved", OB3_DETAILS],
    ["kid answers 404", await sign(claims()), [[KID, json({}, 404)]], "key_unresolved", OB3_DETAILS],
    ["no kid", await sign(claims(), { kid: null }), [], "key_unresolved", OB3_DETAILS],
    [
      "a JWK set without that kid",
      await sign(claims()),
      [
        [
          KID,
          json({
            keys: [
              await servedKey(strangerKey.publicKey, `${ORIGIN}/keys/0`),
              await servedKey(strangerKey.publicKey, `${ORIGIN}/keys/2`),
            ],
          }),
        ],
      ],
      "key_unresolved",
      {},
    ],
    [
      "signed by another key",
      await sign(claims(), { key: strangerKey.privateKey }),
      [],
      "signature_invalid",
      OB3_DETAILS,
    ],
    ["alg none", unsecured(claims()), [], "signature_invalid", OB3_DETAILS],
    [
      // The served key would check this HMAC: only the refusal of HS256 stops it.
      "HS256 with the secret the kid serves",
      await sign(claims(), { key: new Uint8Array(secret), alg: "HS256" }),
      [[KID, json({ kty: "oct", k: base64url.encode(secret), kid: KID })]],
      "signature_invalid",
      OB3_DETAILS,
    ],
    [
      "hashed for someone else",
      await sign(
        claims({
          credentialSubject: {
            ...subject,
            identifier: [{ type: "IdentityObject", identityHash: hashOf("bob@example.org"), hashed: true, salt: SALT }],
          },
        }),
      ),
      [],
      "recipient_mismatch",
      OB3_DETAILS,
    ],
    [
      "no identifier",
      await sign(claims({ credentialSubject: { ...subject, identifier: undefined } })),
      [],
      "recipient_mismatch",
      {},
    ],
    [
      "validUntil past",
      await sign(claims({ validUntil: "2026-02-01T00:00:00Z" })),
      [],
      "expired",
      { expires_at: new Date("2026-02-01T00:00:00Z") },
    ],
    ["exp past", await sign(claims({ exp: Math.floor(EARLIER.getTime() / 1000) })), [], "expired", {}],
    ["validFrom tomorrow", await sign(claims({ validFrom: "2026-03-02T00:00:00Z" })), [], "not_yet_valid", {}],
    [
      "the credential id answers 410 with JSON",
      await sign(claims()),
      [[CREDENTIAL_ID, json({ error: "revoked" }, 410)]],
      "revoked",
      OB3_DETAILS,
    ],
    [
      "the credential id answers 410 with a page",
      await sign(claims()),
      [[CREDENTIAL_ID, NOT_JSON(410)]],
      "revoked",
      OB3_DETAILS,
    ],
    [
      "the credential id serves it revoked",
      await sign(claims()),
      [[CREDENTIAL_ID, json({ ...claims(), revoked: true })]],
      "revoked",
      OB3_DETAILS,
    ],
  ];
  for (const [name, jwt, changes, reason, details] of rows) {
    const docs = new Map<string, Fetched>([[KID, json(issuerJwk)], ...changes]);
    checkVerification(t, name, await verifyOb3(deps(docs), jwt, ACCOUNT, NOW), reason, details);
  }
});

t.test("OB 3.0: the verified issuer is the key's origin; its name and address are claims", async (t) => {
  // A self-signed credential: the signer's key is on its own origin, whatever the issuer says it is.
  const issuerJwk = await servedKey(issuerKey.publicKey, KID);
  const HARVARD = "https://www.harvard.edu";
  const named = { id: PROFILE, type: ["Profile"], name: "Harvard University" };
  const rows: Array<[string, Record<string, unknown>, ExternalBadgeReason | null, Partial<ExternalBadgeDetails>]> = [
    [
      "a famous name and that issuer's address",
      { issuer: { ...named, url: HARVARD } },
      "id_mismatch",
      { issuer_name: "Harvard University", issuer_url: HARVARD, issuer_origin: null },
    ],
    [
      "a credential id on the famous issuer's site",
      { issuer: named, id: `${HARVARD}/credentials/1`, jti: `${HARVARD}/credentials/1` },
      "id_mismatch",
      { issuer_origin: null },
    ],
    [
      "the famous issuer's host name under another scheme",
      { issuer: { ...named, url: "http://issuer.example/" } },
      "id_mismatch",
      { issuer_origin: null },
    ],
    [
      "a famous name alone",
      { issuer: named },
      null,
      { issuer_name: "Harvard University", issuer_url: null, issuer_origin: ORIGIN },
    ],
    [
      "an address on the signer's own origin",
      { issuer: { ...named, url: `${ORIGIN}/about` }, id: "urn:uuid:5a1e", jti: undefined },
      null,
      { issuer_url: `${ORIGIN}/about`, issuer_origin: ORIGIN, credential_id: "urn:uuid:5a1e" },
    ],
  ];
  for (const [name, over, reason, details] of rows) {
    const docs = new Map<string, Fetched>([[KID, json(issuerJwk)]]);
    const v = await verifyOb3(deps(docs), await sign(claims(over)), ACCOUNT, NOW);
    checkVerification(t, name, v, reason, details);
  }

  // What employers are shown: the verified origin, and the name only as the badge's claim.
  const docs = new Map<string, Fetched>([[KID, json(issuerJwk)]]);
  const v = await verifyOb3(deps(docs), await sign(claims({ issuer: named })), ACCOUNT, NOW);
  const shape = externalBadgeShape(
    stored(ANN, { details: v.details as ExternalBadgeDetails, source: "open_badges_v3", url: null }),
  );
  t.ok(Value.Check(ExternalBadgeSchema, shape), "the listing's schema");
  t.match(shape, { issuer_origin: ORIGIN, claimed_issuer_name: "Harvard University", claimed_issuer_url: null });
  t.notOk("issuer" in shape, "no issuer object that reads as verified");
  const unvalidated = externalBadgeShape(
    stored(ANN, { details: OB2_DETAILS, verification_status: "unvalidated", verification_reason: "unreachable" }),
  );
  t.equal(unvalidated.issuer_origin, null, "an unvalidated badge shows no verified origin, whatever was stored");
});

t.test("what the earner's form holds", async (t) => {
  const verify = { jws: joseJwsCheck(), sha256Hex };
  const withId = await sign(claims());
  const withJti = await sign(claims({ id: undefined, jti: "urn:uuid:7" }));
  const anonymous = await sign(claims({ id: undefined, jti: undefined }));
  const wrapped = `${withId.slice(0, 40)}\n  ${withId.slice(40)}\n`;
  const long = await sign(claims({ padding: "x".repeat(12_000) }));
  const v2 = (url: string) => ({ source: "open_badges_v2", url });
  const v3 = (jwt: string) => ({ source: "open_badges_v3", jwt });
  // [name, form, the field named in the refusal, else what was read]
  const rows: Array<[string, { url?: string; credential?: string }, string | { input: object; sourceKey: string }]> = [
    ["both", { url: ASSERTION, credential: withId }, "credential"],
    ["neither", {}, "url"],
    ["blanks only", { url: "  ", credential: " \n" }, "url"],
    ["ftp", { url: "ftp://issuer.example/a.json" }, "url"],
    ["javascript", { url: "javascript:alert(1)" }, "url"],
    ["no host", { url: "https:///a" }, "url"],
    ["too long", { url: `${ORIGIN}/${"a".repeat(2048)}` }, "url"],
    ["not a JWS", { credential: "eyJhbGciOiJFZERTQSJ9.e30" }, "credential"],
    ["three parts, not JSON", { credential: "abc.def.ghi" }, "credential"],
    ["unsecured, no signature", { credential: unsecured(claims()) }, "credential"],
    ["longer than a badge", { credential: long }, "credential"],
    ["an address", { url: `  ${ASSERTION} ` }, { input: v2(ASSERTION), sourceKey: ASSERTION }],
    [
      "an http address",
      { url: "http://issuer.example/a" },
      { input: v2("http://issuer.example/a"), sourceKey: "http://issuer.example/a" },
    ],
    ["a credential with an id", { credential: withId }, { input: v3(withId), sourceKey: CREDENTIAL_ID }],
    ["pasted over lines", { credential: wrapped }, { input: v3(withId), sourceKey: CREDENTIAL_ID }],
    ["a credential with only a jti", { credential: withJti }, { input: v3(withJti), sourceKey: "urn:uuid:7" }],
    [
      "a credential without an id",
      { credential: anonymous },
      { input: v3(anonymous), sourceKey: `sha256:${sha256Hex(anonymous)}` },
    ],
  ];
  for (const [name, form, expected] of rows) {
    try {
      t.same(readExternalBadgeInput(verify, form), expected, name);
    } catch (e) {
      t.ok(isCoreError(e), `${name}: a core error`);
      t.same(isCoreError(e) ? [e.code, e.errors.map((f) => f.field)] : e, ["validation_failed", [expected]], name);
    }
  }
});

// ---- The use cases, over an in-memory store ----

const ORGS = Array.from({ length: 8 }, (_, i) => `0000000${i}-0000-4000-8000-000000000000`);
const employers: Employer[] = ORGS.map((id, i) => ({ id, name: `Employer ${i}`, bio: "", industry: "" }));
let n = 0;
const newId = () => `00000000-0000-7000-8000-${String(++n).padStart(12, "0")}`;
const ctxAt = (now: Date): ExternalBadgeContext => ({
  now,
  newId,
  newEventId: newId,
  urls: { publicBase: "https://laurel.test" },
});
const ctx = ctxAt(NOW);

const employee = (organization: string, over: Partial<EmployeeRecord>): EmployeeRecord => ({
  ...newEmployeeRecord(
    { email: "ann@example.org", first_name: "Ann", last_name: "A", external_id: organization },
    { id: newId(), organization_id: organization, now: EARLIER, newId },
  ),
  ...over,
});

const stored = (userId: string, over: Partial<ExternalBadgeRecord> = {}): ExternalBadgeRecord => {
  const id = newId();
  return {
    id,
    user_id: userId,
    source: "open_badges_v2",
    url: `${ORIGIN}/assertions/${id}`,
    credential: null,
    source_key: `${ORIGIN}/assertions/${id}`,
    details: OB2_DETAILS,
    verification_status: "validated",
    verification_reason: null,
    verified_at: EARLIER,
    next_verification_at: new Date(EARLIER.getTime() + REVERIFY_INTERVAL_MS),
    created_at: EARLIER,
    ...over,
  };
};

/**
 * The external badges, employee records and events of a database, in memory; a transaction that
 * throws leaves them as they were.
 */
const memory = (
  records: EmployeeRecord[],
  badges: ExternalBadgeRecord[] = [],
  emails: Record<string, string[]> = {},
) => {
  let rows = new Map(badges.map((b) => [b.id, b] as const));
  let events: EventRecord[] = [];
  const tx: ExternalBadgeTx = {
    lockForAccount: async (userId, keys) =>
      records.filter((r) => r.user_id === userId || (r.user_id === null && keys.includes(r.email_key))),
    employers: async (ids) => employers.filter((e) => ids.includes(e.id)),
    heldBadges: async () => [],
    appendEvents: async (e) => void events.push(...e),
    countForUser: async (userId) => [...rows.values()].filter((r) => r.user_id === userId).length,
    insert: async (record) => {
      const same = [...rows.values()].some((r) => r.user_id === record.user_id && r.source_key === record.source_key);
      if (same) return "duplicate";
      rows.set(record.id, record);
      return "inserted";
    },
    lock: async (id) => rows.get(id) ?? null,
    delete: async (id) => void rows.delete(id),
    saveVerification: async (record) => void rows.set(record.id, record),
  };
  const newestFirst = (userId: string) =>
    [...rows.values()]
      .filter((r) => r.user_id === userId)
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.id.localeCompare(a.id));
  const store: ExternalBadgeStore = {
    async transaction(work) {
      const [savedRows, savedEvents] = [new Map(rows), [...events]];
      try {
        return await work(tx);
      } catch (e) {
        [rows, events] = [savedRows, savedEvents];
        throw e;
      }
    },
    listForUser: async (userId) => newestFirst(userId),
    pageForUser: async (userId, page) => {
      const all = newestFirst(userId);
      return { items: all.slice(page.offset, page.offset + page.per), total: all.length };
    },
    claimDue: async (now, limit, leaseUntil) => {
      const due = [...rows.values()].filter((r) => r.next_verification_at.getTime() <= now.getTime()).slice(0, limit);
      for (const r of due) rows.set(r.id, { ...r, next_verification_at: leaseUntil });
      return due.map(
        (r): DueExternalBadge => ({ record: rows.get(r.id) as ExternalBadgeRecord, emails: emails[r.user_id] ?? [] }),
      );
    },
  };
  return { store, rows: () => rows, events: () => events };
};

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e) => (isCoreError(e) ? `${e.code} ${e.errors.map((f) => f.field).join(",")}`.trim() : String(e)),
  );

/** Each event's organization and kind, once its external badge is checked to be the stored one in its wire shape. */
const told = (t: Test, events: EventRecord[], badge: ExternalBadgeRecord) => {
  for (const e of events) {
    t.ok(Value.Check(ExternalBadgeSchema, e.detail.external_badge), `${e.event_type}: an ExternalBadgeSchema`);
    t.same(e.detail.external_badge, externalBadgeShape(badge), `${e.event_type}: the badge as stored`);
  }
  return events.map((e) => `${e.organization_id} ${e.event_type}`).sort();
};

t.test("adding tells each employer connected to the earner, once", async (t) => {
  // One employer per row: its record's connection, and whether it hears of the new badge.
  const rows: Array<[string, EmployeeRecord["employee_state"], string | null, boolean]> = [
    ["accepted", "accepted", ANN, true],
    ["another accepted employer", "accepted", ANN, true],
    ["pending", "pending", ANN, false],
    ["rejected (or disconnected)", "rejected", ANN, false],
    ["associated, not prompted", "created", ANN, false],
    ["accepted by another account", "accepted", BOB, false],
    ["not associated", "created", null, false],
  ];
  const records = rows.map(([, state, user], i) =>
    employee(ORGS[i] as string, { employee_state: state, user_id: user }),
  );
  const m = memory(records);
  const badge = await addExternalBadge(
    { store: m.store, verify: deps(ob2Web()) },
    ctx,
    { userId: ANN, confirmedEmails: ACCOUNT },
    { url: ASSERTION },
  );
  t.match(badge, {
    user_id: ANN,
    source: "open_badges_v2",
    url: ASSERTION,
    source_key: ASSERTION,
    verification_status: "validated",
    verification_reason: null,
  });
  t.same(badge.details, OB2_DETAILS);
  t.same([...m.rows().values()], [badge], "stored");
  t.same(
    told(t, m.events(), badge),
    rows.flatMap(([, , , hears], i) => (hears ? [`${ORGS[i]} employment.external_badges.added`] : [])),
    rows.map(([name, , , hears]) => `${name}: ${hears ? "told" : "not told"}`).join("; "),
  );
  for (const e of m.events()) {
    const record = records.find((r) => r.organization_id === e.organization_id);
    t.equal((e.detail.employment as { id: string }).id, record?.id, "the employment of that employer");
  }
});

/** `verify` with each address it fetches appended to `fetches`. */
const recording = (verify: VerifyDeps, fetches: string[]): VerifyDeps => ({
  ...verify,
  documents: {
    getJson: (url) => {
      fetches.push(url);
      return verify.documents.getJson(url);
    },
  },
});

t.test("adding: what is stored, what is refused", async (t) => {
  const v3 = await sign(claims());
  const accepted = () => [employee(ORGS[0] as string, { employee_state: "accepted", user_id: ANN })];
  const full = Array.from({ length: MAX_EXTERNAL_BADGES }, () => stored(ANN));
  const served: Array<[string, Fetched]> = [[KID, json(await servedKey(issuerKey.publicKey, KID))]];
  const gone: Array<[string, Fetched]> = [[ASSERTION, UNREACHABLE]];
  // [name, badges already held, what the web answers, form, the refusal and its field, else the stored status and reason]
  const rows: Array<
    [string, ExternalBadgeRecord[], Array<[string, Fetched]>, { url?: string; credential?: string }, string]
  > = [
    ["an OB 2.0 address", [], served, { url: ASSERTION }, "validated -"],
    ["an OB 3.0 credential", [], served, { credential: v3 }, "validated -"],
    ["an address that does not answer: stored unvalidated", [], gone, { url: ASSERTION }, "unvalidated unreachable"],
    [
      "the same address again",
      [stored(ANN, { source_key: ASSERTION })],
      served,
      { url: ASSERTION },
      "validation_failed url",
    ],
    [
      "the same credential again",
      [stored(ANN, { source: "open_badges_v3", url: null, source_key: CREDENTIAL_ID })],
      served,
      { credential: v3 },
      "validation_failed credential",
    ],
    [
      "another account's same address",
      [stored(BOB, { source_key: ASSERTION })],
      served,
      { url: ASSERTION },
      "validated -",
    ],
    [`badge ${MAX_EXTERNAL_BADGES}`, full.slice(1), served, { url: ASSERTION }, "validated -"],
    [`badge ${MAX_EXTERNAL_BADGES + 1}`, full, served, { url: ASSERTION }, "validation_failed url"],
    ["not a badge address", [], served, { url: "ftp://issuer.example/1" }, "validation_failed url"],
  ];
  for (const [name, held, changes, form, expected] of rows) {
    const m = memory(accepted(), held);
    const fetches: string[] = [];
    const counted = recording(deps(ob2Web(changes)), fetches);
    const outcome = await addExternalBadge(
      { store: m.store, verify: counted },
      ctx,
      { userId: ANN, confirmedEmails: ACCOUNT },
      form,
    ).then(
      (b) => `${b.verification_status} ${b.verification_reason ?? "-"}`,
      (e) => (isCoreError(e) ? `${e.code} ${e.errors.map((f) => f.field).join(",")}` : String(e)),
    );
    t.equal(outcome, expected, name);
    if (expected.startsWith("validation_failed")) {
      t.same([...m.rows().values()], held, `${name}: nothing stored`);
      t.same(m.events(), [], `${name}: nobody told`);
      t.same(fetches, [], `${name}: refused before fetching anything`);
    } else {
      t.equal(m.rows().size, held.length + 1, `${name}: stored`);
      t.same(
        m.events().map((e) => e.event_type),
        ["employment.external_badges.added"],
        `${name}: told`,
      );
    }
  }
  const m = memory([], []);
  const placeholder = await addExternalBadge(
    { store: m.store, verify: deps(ob2Web(gone)) },
    ctx,
    { userId: ANN, confirmedEmails: ACCOUNT },
    { url: ASSERTION },
  );
  t.match(
    placeholder.details,
    { name: "Badge at issuer.example", issuer_name: "Unknown issuer", issued_at: null },
    "nothing read: named by its host",
  );
});

t.test("the verifications earners start are counted per account and per host; past either, none", async (t) => {
  const CAT = "cccccccc-cccc-4ccc-8ccc-cccccccccccc";
  const windows = new Map<string, number>();
  const counter = {
    hit: async (key: string, windowMs: number) => {
      windows.set(key, (windows.get(key) ?? 0) + 1);
      return { hits: windows.get(key) as number, ttlMs: windowMs / 2 };
    },
  };
  const budget = { counter, limits: { perAccountPerHour: 2, perHostPerHour: 3 } };
  const m = memory([], []);
  const fetches: string[] = [];
  const counted = recording(deps(ob2Web([[KID, json(await servedKey(issuerKey.publicKey, KID))]])), fetches);
  const run = { store: m.store, verify: counted, budget };
  const owner = (userId: string) => ({ userId, confirmedEmails: ACCOUNT });
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => "done",
      (e) => (isCoreError(e) ? `${e.code}: ${e.message}` : String(e)),
    );
  const assertion = (n: number) => `${ORIGIN}/assertions/n${n}`;
  const rows: Array<[string, () => Promise<unknown>, RegExp]> = [
    ["Ann's first", () => addExternalBadge(run, ctx, owner(ANN), { url: assertion(1) }), /^done$/],
    [
      "Ann's second, a credential",
      async () => addExternalBadge(run, ctx, owner(ANN), { credential: await sign(claims()) }),
      /^done$/,
    ],
    [
      "Ann's third",
      () => addExternalBadge(run, ctx, owner(ANN), { url: assertion(3) }),
      /^rate_limited: You have had 2 badges from other issuers checked in the last hour.*try again in 30 minutes$/,
    ],
    [
      "Ann checks one again",
      async () => recheckExternalBadge(run, ctx, owner(ANN), [...m.rows().keys()][0] as string),
      /^rate_limited: You have had 2 badges/,
    ],
    ["Bob's first, the host's third", () => addExternalBadge(run, ctx, owner(BOB), { url: assertion(4) }), /^done$/],
    [
      "Bob's second, the host's fourth",
      () => addExternalBadge(run, ctx, owner(BOB), { url: assertion(5) }),
      /^rate_limited: Laurel has checked as many badges at issuer\.example as it may this hour/,
    ],
    [
      "Bob's third, to another host",
      () => addExternalBadge(run, ctx, owner(BOB), { url: "https://other.example/assertions/1" }),
      /^rate_limited: You have had 2 badges/,
    ],
    [
      "another account, to that host, named with capitals and a port",
      () => addExternalBadge(run, ctx, owner(CAT), { url: "https://Other.Example:8443/assertions/1" }),
      /^done$/,
    ],
  ];
  for (const [name, action, expected] of rows) {
    const before = fetches.length;
    const got = await outcome(action());
    t.match(got, expected, name);
    if (got !== "done") t.equal(fetches.length, before, `${name}: nothing fetched`);
  }
  t.same(
    [...windows.keys()].sort(),
    [
      `external-fetch:account:${ANN}`,
      `external-fetch:account:${BOB}`,
      `external-fetch:account:${CAT}`,
      "external-fetch:host:issuer.example",
      "external-fetch:host:other.example",
    ],
    "keys: the account, and the host name without port or case",
  );
  t.equal(m.rows().size, 4, "only what passed was stored");
});

t.test("removing and rechecking: only the owner's badges", async (t) => {
  const ann = stored(ANN);
  const bob = stored(BOB);
  const m = memory([employee(ORGS[0] as string, { employee_state: "accepted", user_id: ANN })], [ann, bob]);
  const owner = { userId: ANN, confirmedEmails: ACCOUNT };
  const verifyDeps = { store: m.store, verify: deps(new Map()) };
  t.equal(await codeOf(removeExternalBadge(m.store, ctx, ANN, bob.id)), "not_found", "another user's");
  t.equal(await codeOf(removeExternalBadge(m.store, ctx, ANN, newId())), "not_found", "unknown");
  t.equal(await codeOf(recheckExternalBadge(verifyDeps, ctx, owner, bob.id)), "not_found", "recheck another user's");
  t.same([...m.rows().keys()], [ann.id, bob.id], "nothing removed");
  t.same(m.events(), [], "nobody told");

  const rechecked = await recheckExternalBadge(verifyDeps, ctx, owner, ann.id);
  t.match(rechecked, {
    verification_status: "unvalidated",
    verification_reason: "not_found",
    verified_at: NOW,
    details: OB2_DETAILS,
  });
  await removeExternalBadge(m.store, ctx, ANN, ann.id);
  t.same([...m.rows().keys()], [bob.id], "removed");
  t.same(
    told(t, m.events(), rechecked),
    [
      `${ORGS[0]} employment.external_badges.verification_status_changed`,
      `${ORGS[0]} employment.external_badges.removed`,
    ].sort(),
  );
});

t.test("a verification is stored; a change of status is told", async (t) => {
  const validated: Verification = { status: "validated", reason: null, details: { ...OB2_DETAILS, name: "Renamed" } };
  const revoked: Verification = { status: "unvalidated", reason: "revoked", details: OB2_DETAILS };
  const unreachable: Verification = { status: "unvalidated", reason: "unreachable", details: null };
  const notFound: Verification = { status: "unvalidated", reason: "not_found", details: null };
  const rows: Array<[string, Partial<ExternalBadgeRecord>, Verification, boolean]> = [
    ["validated again", {}, validated, false],
    ["validated, now revoked", {}, revoked, true],
    ["validated, now unreachable", {}, unreachable, true],
    [
      "unvalidated, now validated",
      { verification_status: "unvalidated", verification_reason: "unreachable" },
      validated,
      true,
    ],
    [
      "unvalidated for another reason",
      { verification_status: "unvalidated", verification_reason: "unreachable" },
      notFound,
      false,
    ],
  ];
  const later = ctxAt(new Date(NOW.getTime() + 60_000));
  for (const [name, before, verification, changed] of rows) {
    const badge = stored(ANN, before);
    const m = memory([employee(ORGS[0] as string, { employee_state: "accepted", user_id: ANN })], [badge]);
    const after = await recordVerification(m.store, later, badge.id, verification);
    t.same(m.rows().get(badge.id), after, `${name}: stored`);
    t.match(
      after,
      {
        verification_status: verification.status,
        verification_reason: verification.reason,
        verified_at: later.now,
        next_verification_at: new Date(later.now.getTime() + REVERIFY_INTERVAL_MS),
        details: verification.details ?? badge.details,
        created_at: badge.created_at,
      },
      `${name}: the new verification, details kept when nothing was read`,
    );
    t.same(
      told(t, m.events(), after as ExternalBadgeRecord),
      changed ? [`${ORGS[0]} employment.external_badges.verification_status_changed`] : [],
      `${name}: ${changed ? "told" : "not told"}`,
    );
  }
  const m = memory([], []);
  t.equal(await recordVerification(m.store, ctx, newId(), validated), null, "removed meanwhile: nothing stored");
  t.same(m.rows().size, 0);
});

t.test("the daily re-verification verifies what is due and stores each result", async (t) => {
  const revokedUrl = `${ORIGIN}/assertions/revoked`;
  const due = (over: Partial<ExternalBadgeRecord>) =>
    stored(ANN, { next_verification_at: NOW, source_key: over.url as string, ...over });
  const still = due({ url: ASSERTION });
  const gone = due({ url: revokedUrl });
  const bobs = stored(BOB, {
    url: ASSERTION,
    source_key: ASSERTION,
    next_verification_at: new Date(NOW.getTime() - 1),
  });
  const notDue = stored(ANN, { url: revokedUrl, next_verification_at: new Date(NOW.getTime() + 1) });
  const m = memory(
    [employee(ORGS[0] as string, { employee_state: "accepted", user_id: ANN })],
    [still, gone, bobs, notDue],
    { [ANN]: ["ann@example.org"], [BOB]: ["bob@example.org"] },
  );
  const verify = deps(ob2Web([[revokedUrl, NOT_JSON(410)]]));
  const count = await reverifyDue({ store: m.store, verify }, ctx, { batch: 10, leaseMs: 600_000, concurrency: 2 });
  t.equal(count, 3, "the three due");
  const status = (id: string) => {
    const r = m.rows().get(id) as ExternalBadgeRecord;
    return [r.verification_status, r.verification_reason, r.verified_at, r.next_verification_at];
  };
  const next = new Date(NOW.getTime() + REVERIFY_INTERVAL_MS);
  t.same(status(still.id), ["validated", null, NOW, next], "still valid");
  t.same(status(gone.id), ["unvalidated", "revoked", NOW, next], "revoked since");
  t.same(status(bobs.id), ["unvalidated", "recipient_mismatch", NOW, next], "checked against its owner's addresses");
  t.same(status(notDue.id), ["validated", null, EARLIER, notDue.next_verification_at], "not due: untouched");
  t.same(told(t, m.events(), m.rows().get(gone.id) as ExternalBadgeRecord), [
    `${ORGS[0]} employment.external_badges.verification_status_changed`,
  ]);

  const again = await reverifyDue({ store: m.store, verify }, ctx, { batch: 10, leaseMs: 600_000, concurrency: 2 });
  t.equal(again, 0, "nothing due once verified");
  const batch = memory([], [due({ url: ASSERTION }), due({ url: revokedUrl })], { [ANN]: ["ann@example.org"] });
  t.equal(
    await reverifyDue({ store: batch.store, verify }, ctx, { batch: 1, leaseMs: 600_000, concurrency: 4 }),
    1,
    "a batch at most",
  );
  t.same(
    [...batch.rows().values()].map((r) => r.verified_at),
    [NOW, EARLIER],
  );
});

t.test("an employer sees external badges only once the connection is accepted", async (t) => {
  const badges = [stored(ANN, { created_at: EARLIER }), stored(ANN, { created_at: NOW }), stored(BOB)];
  const m = memory([], badges);
  const page = { page: 1, per: 10, offset: 0 };
  const rows: Array<[string, Partial<EmployeeRecord>, number]> = [
    ["accepted", { employee_state: "accepted", user_id: ANN }, 2],
    ["pending", { employee_state: "pending", user_id: ANN }, 0],
    ["rejected", { employee_state: "rejected", user_id: ANN }, 0],
    ["associated, not prompted", { employee_state: "created", user_id: ANN }, 0],
    ["not associated", { employee_state: "created", user_id: null }, 0],
  ];
  for (const [name, connection, count] of rows) {
    const found = await employeeExternalBadges(m.store, employee(ORGS[0] as string, connection), page, true);
    t.equal(found.total, count, name);
    t.equal(found.items.length, count, name);
    for (const item of found.items)
      t.ok(Value.Check(ExternalBadgeSchema, item), `${name}: ${item.name} in its wire shape`);
  }
  const accepted = await employeeExternalBadges(
    m.store,
    employee(ORGS[0] as string, { employee_state: "accepted", user_id: ANN }),
    page,
    true,
  );
  t.same(
    accepted.items.map((b) => b.id),
    [badges[1]?.id, badges[0]?.id],
    "newest first",
  );
  t.equal(await codeOf(employeeExternalBadges(m.store, null, page, true)), "not_found", "no record");
  const record = employee(ORGS[0] as string, { employee_state: "accepted", user_id: ANN });
  t.equal(
    await codeOf(employeeExternalBadges(m.store, record, page, false)),
    "forbidden",
    "an organization not authorized for workforce data is refused",
  );
  t.equal(
    await codeOf(employeeExternalBadges(m.store, null, page, false)),
    "forbidden",
    "refused before saying whether the employee exists",
  );
});

t.test("OB 3.0 with a did:web issuer: the key from the DID's own document, for assertions", async (t) => {
  const DID = "did:web:issuer.example";
  const DOC_URL = "https://issuer.example/.well-known/did.json";
  const METHOD = `${DID}#key-1`;
  const jwk = await exportJWK(issuerKey.publicKey);
  const doc = (over: Record<string, unknown> = {}) => ({
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: DID,
    verificationMethod: [{ id: METHOD, type: "JsonWebKey", controller: DID, publicKeyJwk: jwk }],
    assertionMethod: [METHOD],
    ...over,
  });
  const issuer = { id: DID, type: ["Profile"], name: "Other Academy", url: ORIGIN };
  const payload = claims({ issuer, iss: DID });
  const rows: Array<[string, () => Promise<string>, Record<string, unknown> | null, ExternalBadgeReason | null]> = [
    ["its key, named in full", () => sign(payload, { kid: METHOD }), doc(), null],
    ["its key, named by its fragment", () => sign(payload, { kid: "#key-1" }), doc(), null],
    [
      "a relative id in the document",
      () => sign(payload, { kid: METHOD }),
      doc({
        verificationMethod: [{ id: "#key-1", type: "JsonWebKey", controller: DID, publicKeyJwk: jwk }],
        assertionMethod: ["#key-1"],
      }),
      null,
    ],
    ["another DID's key", () => sign(payload, { kid: "did:web:elsewhere.example#key-1" }), doc(), "key_unresolved"],
    ["a key on a web address", () => sign(payload, { kid: KID }), doc(), "key_unresolved"],
    ["no document", () => sign(payload, { kid: METHOD }), null, "key_unresolved"],
    [
      "a document of another DID",
      () => sign(payload, { kid: METHOD }),
      doc({ id: "did:web:elsewhere.example" }),
      "key_unresolved",
    ],
    ["a key not for assertions", () => sign(payload, { kid: METHOD }), doc({ assertionMethod: [] }), "key_unresolved"],
    [
      "signed by another key",
      () => sign(payload, { kid: METHOD, key: strangerKey.privateKey }),
      doc(),
      "signature_invalid",
    ],
    [
      "an issuer address on another domain",
      () => sign(claims({ issuer: { ...issuer, url: "https://www.harvard.edu" }, iss: DID }), { kid: METHOD }),
      doc(),
      "id_mismatch",
    ],
  ];
  for (const [name, jwt, served, reason] of rows) {
    const docs = new Map<string, Fetched>(served ? [[DOC_URL, json(served)]] : []);
    const v = await verifyOb3(deps(docs), await jwt(), ACCOUNT, NOW);
    checkVerification(t, name, v, reason, reason === null ? { issuer_origin: DID } : {});
  }
  t.same(
    [
      "did:web:issuer.example",
      "did:web:issuer.example%3A8443",
      "did:web:issuer.example:users:ada",
      "did:web:issuer.example/../x",
      "did:web:",
      "did:key:z6Mk",
    ].map(didWebDocumentUrl),
    [
      DOC_URL,
      "https://issuer.example:8443/.well-known/did.json",
      "https://issuer.example/users/ada/did.json",
      null,
      null,
      null,
    ],
    "where a did:web DID's document is",
  );
});
