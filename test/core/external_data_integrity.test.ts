import { createHash } from "node:crypto";
import t from "tap";
import { joseJwsCheck } from "../../adapters/crypto/mod.ts";
import { isCoreError } from "../../core/errors/mod.ts";
import {
  type DataIntegrityCheck,
  type DataIntegrityFailure,
  type ExternalBadgeReason,
  type Fetched,
  fetchHostOf,
  readExternalBadgeInput,
  type VerifyDeps,
  verifyOb3Json,
} from "../../core/workforce/mod.ts";

/**
 * The rules around a JSON credential's Data Integrity proof, over a port that answers what the
 * test says: whose key may sign for which issuer, what the claims must say after the proof holds,
 * and what is refused before anything is fetched.
 */

const NOW = new Date("2026-03-01T12:00:00.000Z");
const DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const ORIGIN = "https://issuer.example";
const CONTEXTS = ["https://www.w3.org/ns/credentials/v2", "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"];
const SALT = "c0ffee";
const sha256Hex = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

const credential = (issuer: string, method: string, over: Record<string, unknown> = {}): Doc => ({
  "@context": CONTEXTS,
  id: "urn:uuid:0b4c1a6e-2b7e-4a43-9d0e-2f9a3c1d5e70",
  type: ["VerifiableCredential", "OpenBadgeCredential"],
  issuer: { id: issuer, type: ["Profile"], name: "Key Academy" },
  validFrom: "2026-01-15T10:00:00Z",
  credentialSubject: {
    type: ["AchievementSubject"],
    identifier: [
      {
        type: "IdentityObject",
        identityHash: `sha256$${sha256Hex(`ann@example.org${SALT}`)}`,
        identityType: "emailAddress",
        hashed: true,
        salt: SALT,
      },
    ],
    achievement: { id: "urn:uuid:1", type: ["Achievement"], name: "Forklift", criteria: { narrative: "Pass." } },
  },
  proof: { type: "DataIntegrityProof", cryptosuite: "eddsa-rdfc-2022", verificationMethod: method },
  ...over,
});

/** A port whose answer is given; `calls` counts what reached it. */
const port = (answer: { controller: string } | DataIntegrityFailure) => {
  const calls: unknown[] = [];
  const check: DataIntegrityCheck = {
    contexts: CONTEXTS,
    verify: async (doc) => {
      calls.push(doc);
      return typeof answer === "string" ? { ok: false, error: answer } : { ok: true, value: answer };
    },
  };
  return { check, calls };
};

const depsWith = (check: DataIntegrityCheck, docs = new Map<string, Fetched>()): VerifyDeps => ({
  documents: { getJson: async (url) => docs.get(url) ?? { outcome: "answered", status: 404, json: {} } },
  jws: joseJwsCheck(),
  dataIntegrity: check,
  sha256Hex,
});

const cases: [string, Doc, { controller: string } | DataIntegrityFailure, ExternalBadgeReason | null, boolean][] = [
  ["a did:key issuer's own key", credential(DID, `${DID}#${DID.slice(8)}`), { controller: DID }, null, true],
  [
    "another did:key's key",
    credential(
      DID,
      "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH#z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
    ),
    { controller: DID },
    "key_unresolved",
    false,
  ],
  [
    "an https issuer's key on its origin",
    credential(`${ORIGIN}/issuer`, `${ORIGIN}/keys/1`),
    { controller: `${ORIGIN}/issuer` },
    null,
    true,
  ],
  [
    "an https key elsewhere",
    credential(`${ORIGIN}/issuer`, "https://keys.example/1"),
    { controller: `${ORIGIN}/issuer` },
    "key_unresolved",
    false,
  ],
  [
    "a key controlled by someone else",
    credential(`${ORIGIN}/issuer`, `${ORIGIN}/keys/1`),
    { controller: `${ORIGIN}/other` },
    "key_unresolved",
    true,
  ],
  [
    "a proof that does not hold",
    credential(DID, `${DID}#${DID.slice(8)}`),
    "signature_invalid",
    "signature_invalid",
    true,
  ],
  [
    "a key on a blocked address",
    credential(`${ORIGIN}/issuer`, `${ORIGIN}/keys/1`),
    "blocked_address",
    "blocked_address",
    true,
  ],
  [
    "a did:key issuer claiming a web address",
    credential(DID, `${DID}#${DID.slice(8)}`, { issuer: { id: DID, url: "https://famous.example" } }),
    { controller: DID },
    "id_mismatch",
    false,
  ],
  [
    "an expired one",
    credential(DID, `${DID}#${DID.slice(8)}`, { validUntil: "2026-02-01T00:00:00Z" }),
    { controller: DID },
    "expired",
    true,
  ],
  [
    "someone else's",
    credential(DID, `${DID}#${DID.slice(8)}`, {
      credentialSubject: { ...credential(DID, "").credentialSubject, identifier: [] },
    }),
    { controller: DID },
    "recipient_mismatch",
    true,
  ],
];

for (const [name, doc, answer, reason, reachesPort] of cases) {
  t.test(name, async (t) => {
    const { check, calls } = port(answer);
    const v = await verifyOb3Json(depsWith(check), doc, ["ann@example.org"], NOW);
    t.equal(v.reason, reason);
    t.equal(v.status, reason === null ? "validated" : "unvalidated");
    t.equal(calls.length, reachesPort ? 1 : 0, reachesPort ? "the proof is checked" : "refused before any fetch");
    if (reason === null) t.equal(v.details?.issuer_origin, doc.issuer.id.startsWith("did:") ? DID : ORIGIN);
  });
}

t.test("an https credential id answering 410 is revoked", async (t) => {
  const id = `${ORIGIN}/credentials/1`;
  const docs = new Map<string, Fetched>([[id, { outcome: "not_json", status: 410 }]]);
  const doc = credential(`${ORIGIN}/issuer`, `${ORIGIN}/keys/1`, { id });
  const v = await verifyOb3Json(
    depsWith(port({ controller: `${ORIGIN}/issuer` }).check, docs),
    doc,
    ["ann@example.org"],
    NOW,
  );
  t.equal(v.reason, "revoked");
});

t.test("JSON read: refused before anything is fetched, with the reason", async (t) => {
  const verify = depsWith(port({ controller: DID }).check);
  const read = (doc: unknown) => readExternalBadgeInput(verify, { credential: JSON.stringify(doc, null, 2) });
  const refusal = (doc: unknown): string => {
    try {
      read(doc);
      return "accepted";
    } catch (err) {
      return isCoreError(err) && err.code === "validation_failed" ? err.message : String(err);
    }
  };
  const good = credential(DID, `${DID}#${DID.slice(8)}`);
  const { input, sourceKey } = read(good);
  t.equal(sourceKey, good.id, "the credential's id makes it the same badge");
  t.ok("json" in input && input.text === JSON.stringify(good), "kept as compact JSON");
  t.equal(fetchHostOf(verify.jws, input), null, "a did:key needs no fetch");
  t.equal(fetchHostOf(verify.jws, read(credential(`${ORIGIN}/i`, `${ORIGIN}/k`)).input), "issuer.example");
  t.equal(read({ ...good, proof: [good.proof] }).sourceKey, good.id, "one proof in an array");
  t.match(refusal({ ...good, proof: undefined }), /no proof/);
  t.match(refusal({ ...good, proof: [good.proof, good.proof] }), /exactly one proof/);
  t.match(refusal({ ...good, proof: { ...good.proof, cryptosuite: "eddsa-jcs-2022" } }), /eddsa-jcs-2022/);
  t.match(refusal({ ...good, proof: { ...good.proof, verificationMethod: "did:web:x.example#1" } }), /did:key.*https/);
  t.match(refusal({ ...good, proof: { ...good.proof, verificationMethod: "http://x.example/k" } }), /did:key.*https/);
  t.match(refusal({ ...good, "@context": [...CONTEXTS, "https://evil.example/c"] }), /evil\.example/);
  t.match(refusal({ ...good, "@context": [...CONTEXTS, { name: "x" }] }), /given inline/);
  const withoutPort = { ...verify, dataIntegrity: undefined };
  t.throws(() => readExternalBadgeInput(withoutPort, { credential: JSON.stringify(good) }), /compact JWS/);
});
