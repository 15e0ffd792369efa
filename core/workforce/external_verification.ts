import { normalizeEmail } from "../badges/mod.ts";
import type { Result } from "../errors/mod.ts";
import { recipientHashInput, recipientIdentity } from "../obi/mod.ts";
import { originOf } from "../shared/mod.ts";

/**
 * Verifying a badge another issuer hosts: an Open Badges 2.0 assertion by its URL, or an Open
 * Badges 3.0 credential given as a VC-JWT or as JSON with a Data Integrity proof. The rules are
 * plain functions over what the fetch port returned, so each outcome is a row in a table-driven
 * test; the adapter only fetches (through the webhook SSRF guard) and checks signatures.
 */

export const EXTERNAL_BADGE_STATUSES = ["validated", "unvalidated"] as const;
export type ExternalBadgeStatus = (typeof EXTERNAL_BADGE_STATUSES)[number];

/** Why a badge is `unvalidated`: a closed list, shown to the earner and sent to employers. */
export const EXTERNAL_BADGE_REASONS = [
  "unreachable", // no answer, a timeout, a 5xx, too many redirects
  "blocked_address", // the address (or a redirect's) is private, loopback or link-local
  "not_found", // 404 or another 4xx than 410
  "malformed", // not JSON, not an assertion / credential, a field of the wrong type
  "id_mismatch", // an `id` or issuer `url` that is not on the origin of the issuer's id, or a hosted assertion's `id` that is not where it was found
  "revoked", // `revoked: true`, or 410 Gone
  "expired",
  "not_yet_valid",
  "recipient_mismatch", // the hashed recipient is none of the account's confirmed addresses
  "badge_class_unresolved",
  "issuer_unresolved",
  "key_unresolved", // a VC-JWT whose `kid` does not give the issuer's public key
  "signature_invalid",
] as const;
export type ExternalBadgeReason = (typeof EXTERNAL_BADGE_REASONS)[number];

export const EXTERNAL_BADGE_SOURCES = ["open_badges_v2", "open_badges_v3"] as const;
export type ExternalBadgeSource = (typeof EXTERNAL_BADGE_SOURCES)[number];

/**
 * What the earner gave: the assertion's address, or the credential itself, as a VC-JWT or as JSON
 * with an embedded Data Integrity proof (`text` is that JSON as stored).
 */
export type ExternalBadgeInput =
  | { source: "open_badges_v2"; url: string }
  | { source: "open_badges_v3"; jwt: string }
  | { source: "open_badges_v3"; json: Record<string, unknown>; text: string };

/** One GET through the guard. `json` is the parsed body when it was JSON (whatever the status). */
export type Fetched =
  | { outcome: "answered"; status: number; json: unknown }
  | { outcome: "unreachable" | "blocked_address" | "not_json"; status: number | null };

export interface ExternalDocuments {
  /** GET `url` (http or https), following at most a few redirects, each through the guard. */
  getJson(url: string): Promise<Fetched>;
}

/** A compact JWS: read without checking, and checked against a public key (JWK). */
export interface JwsCheck {
  /** The protected header and payload, or null when it is not a compact JWS of JSON objects. */
  decode(jws: string): { header: Record<string, unknown>; payload: Record<string, unknown> } | null;
  verify(jws: string, jwk: Record<string, unknown>): Promise<boolean>;
}

/**
 * What the earner and employers are shown of an external badge; read from the documents. Only
 * `issuer_origin` is the issuer's identity Laurel checked; the issuer's name and address are
 * what the documents claim, which any signer may write.
 */
export interface ExternalBadgeDetails {
  name: string;
  description: string;
  image_url: string | null;
  criteria_url: string | null;
  /** The issuer's `name` as the documents claim it. */
  issuer_name: string;
  /** The issuer's `url` as the documents claim it (on `issuer_origin` when validated). */
  issuer_url: string | null;
  /**
   * The origin of the issuer's `id`, where its hosted profile (OB 2.0) or signing key (OB 3.0)
   * was found: set only on a validated badge, null otherwise.
   */
  issuer_origin: string | null;
  issued_at: Date | null;
  expires_at: Date | null;
  /** The assertion or credential `id` (an address for hosted ones). */
  credential_id: string | null;
}

export interface Verification {
  status: ExternalBadgeStatus;
  reason: ExternalBadgeReason | null;
  /** null when nothing could be read (unreachable, malformed): the earlier details are kept. */
  details: ExternalBadgeDetails | null;
}

/** Why a Data Integrity proof did not verify, in the closed list's words. */
export type DataIntegrityFailure = Extract<
  ExternalBadgeReason,
  "key_unresolved" | "signature_invalid" | "blocked_address" | "unreachable" | "malformed"
>;

/**
 * A JSON credential's embedded Data Integrity proof (`eddsa-rdfc-2022`), checked against the key
 * its verification method names and that key's controller document (which must list it under
 * `assertionMethod`). `contexts` are the JSON-LD contexts the check can load: a credential naming
 * another is not read at all.
 */
export interface DataIntegrityCheck {
  contexts: readonly string[];
  /** The controller of the key that made the proof, or why the proof does not hold. */
  verify(credential: Record<string, unknown>): Promise<Result<{ controller: string }, DataIntegrityFailure>>;
}

export interface VerifyDeps {
  documents: ExternalDocuments;
  jws: JwsCheck;
  /** Absent: JSON credentials are refused, only VC-JWTs are read. */
  dataIntegrity?: DataIntegrityCheck;
  sha256Hex(input: string): string;
}

/** The proof Laurel checks on a JSON credential. */
export const DATA_INTEGRITY_PROOF = { type: "DataIntegrityProof", cryptosuite: "eddsa-rdfc-2022" } as const;

const MAX_URL = 2048;

/** An absolute http(s) address of reasonable length, or null. */
export const httpUrl = (value: unknown): string | null => {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_URL) return null;
  const m = /^(https?):\/\/[^\s/?#]+[^\s]*$/i.exec(value);
  return m ? value : null;
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const types = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).filter((t): t is string => typeof t === "string");
const hasType = (doc: Obj, ...names: string[]): boolean => types(doc.type).some((t) => names.includes(t));

/** A date from an ISO 8601 string or (VC-JWT claims) epoch seconds; undefined when absent, null when unreadable. */
const dateOf = (v: unknown): Date | null | undefined => {
  if (v === undefined || v === null) return undefined;
  const d = typeof v === "number" ? new Date(v * 1000) : typeof v === "string" ? new Date(v) : new Date(Number.NaN);
  return Number.isNaN(d.getTime()) ? null : d;
};

const fail = (reason: ExternalBadgeReason, details: ExternalBadgeDetails | null = null): Verification => ({
  status: "unvalidated",
  reason,
  details,
});

/** The reason a fetch that did not give a JSON object with a 200 stands for; null when it did. */
const fetchFailure = (f: Fetched): ExternalBadgeReason | null => {
  if (f.outcome === "unreachable" || f.outcome === "blocked_address") return f.outcome;
  const status = f.status ?? 0;
  if (status === 410) return "revoked";
  if (status >= 400 && status < 500) return "not_found";
  if (status !== 200) return "unreachable";
  return f.outcome === "answered" && isObj(f.json) ? null : "malformed";
};

/** An object embedded in `doc` or fetched from the address it holds; null when neither works. */
const resolve = async (documents: ExternalDocuments, value: unknown, ...typeNames: string[]): Promise<Obj | null> => {
  if (isObj(value)) return hasType(value, ...typeNames) || value.type === undefined ? value : null;
  const url = httpUrl(value);
  if (!url) return null;
  const f = await documents.getJson(url);
  if (f.outcome !== "answered" || f.status !== 200 || !isObj(f.json)) return null;
  return hasType(f.json, ...typeNames) ? f.json : null;
};

/**
 * Whether a recipient identity names one of the addresses: `sha256$<hex>` of the lowercased
 * address and the salt when hashed, the address itself otherwise (OB 2.0 IdentityObject; OB 3.0
 * IdentityObject with `identityHash`).
 */
export const identityMatches = (
  identity: { hashed: boolean; identity: string; salt: string },
  emails: readonly string[],
  sha256Hex: (input: string) => string,
): boolean =>
  emails.some((email) =>
    identity.hashed
      ? identity.identity.toLowerCase() === recipientIdentity(sha256Hex(recipientHashInput(email, identity.salt)))
      : normalizeEmail(identity.identity) === normalizeEmail(email),
  );

/** The time checks shared by both versions, in the order a reader expects the reasons. */
const timeReason = (issued: Date | null, expires: Date | null, now: Date): ExternalBadgeReason | null => {
  if (expires && expires.getTime() <= now.getTime()) return "expired";
  if (issued && issued.getTime() > now.getTime()) return "not_yet_valid";
  return null;
};

const imageUrl = (v: unknown): string | null => httpUrl(v) ?? (isObj(v) ? httpUrl(v.id) : null);

/**
 * Whether an address the documents give besides the issuer's id (the issuer's `url`, a
 * credential's `id`) lies on another origin than the issuer's: such a badge borrows someone
 * else's address, so it is refused rather than shown beside a verified origin.
 */
const offOrigin = (value: unknown, origin: string | null): boolean => {
  const url = httpUrl(value);
  return url !== null && originOf(url) !== origin;
};

const validated = (details: ExternalBadgeDetails, origin: string): Verification => ({
  status: "validated",
  reason: null,
  details: { ...details, issuer_origin: origin },
});

/** OB 2.0 hosted verification of the assertion at `url` for an account with these confirmed addresses. */
export const verifyOb2 = async (deps: VerifyDeps, url: string, emails: readonly string[], now: Date) => {
  const fetched = await deps.documents.getJson(url);
  const failed = fetchFailure(fetched);
  if (failed) return fail(failed);
  const doc = (fetched as { json: Obj }).json;
  if (!hasType(doc, "Assertion")) return fail("malformed");
  const recipient = doc.recipient;
  const issued = dateOf(doc.issuedOn);
  const expires = dateOf(doc.expires);
  if (!isObj(recipient) || typeof recipient.identity !== "string" || issued === null || expires === null) {
    return fail("malformed");
  }
  const badgeClass = await resolve(deps.documents, doc.badge, "BadgeClass");
  const issuer = badgeClass ? await resolve(deps.documents, badgeClass.issuer, "Profile", "Issuer") : null;
  const details: ExternalBadgeDetails | null =
    badgeClass && issuer
      ? {
          name: text(badgeClass.name) ?? "Badge",
          description: text(badgeClass.description) ?? "",
          image_url: imageUrl(doc.image) ?? imageUrl(badgeClass.image),
          criteria_url: isObj(badgeClass.criteria) ? httpUrl(badgeClass.criteria.id) : httpUrl(badgeClass.criteria),
          issuer_name: text(issuer.name) ?? "Unknown issuer",
          issuer_url: httpUrl(issuer.url),
          issuer_origin: null,
          issued_at: issued ?? null,
          expires_at: expires ?? null,
          credential_id: text(doc.id),
        }
      : null;
  if (doc.revoked === true) return fail("revoked", details);
  // Hosted verification: the assertion says where it lives, and that is where it was found.
  if (doc.id !== url) return fail("id_mismatch", details);
  // Anyone can host a document naming another issuer's badge class: only the issuer's origin vouches for it.
  const origin = originOf(url) as string;
  if (issuer && (origin !== originOf(httpUrl(issuer.id)) || offOrigin(issuer.url, origin))) {
    return fail("id_mismatch", details);
  }
  const identity = {
    hashed: recipient.hashed === true,
    identity: recipient.identity,
    salt: typeof recipient.salt === "string" ? recipient.salt : "",
  };
  if (!identityMatches(identity, emails, deps.sha256Hex)) return fail("recipient_mismatch", details);
  const timing = timeReason(issued ?? null, expires ?? null, now);
  if (timing) return fail(timing, details);
  if (!badgeClass) return fail("badge_class_unresolved");
  if (!issuer || !details) return fail("issuer_unresolved");
  return validated(details, origin);
};

/** The public key a VC-JWT's `kid` address serves: a JWK, or a JWK set holding that `kid`. */
const keyOf = async (documents: ExternalDocuments, kid: string): Promise<Obj | null> => {
  const f = await documents.getJson(kid);
  if (f.outcome !== "answered" || f.status !== 200 || !isObj(f.json)) return null;
  if (typeof f.json.kty === "string") return f.json;
  const keys = Array.isArray(f.json.keys) ? f.json.keys.filter(isObj) : [];
  return keys.find((k) => k.kid === kid) ?? (keys.length === 1 ? (keys[0] as Obj) : null);
};

/** What an OB 3.0 credential says of itself; null when it is not an OB 3.0 credential. */
const ob3Claims = (vc: Obj, payload: Obj) => {
  if (!hasType(vc, "OpenBadgeCredential", "AchievementCredential")) return null;
  const issuer = isObj(vc.issuer) ? vc.issuer : { id: vc.issuer };
  const subject = vc.credentialSubject;
  const achievement = isObj(subject) ? subject.achievement : null;
  const issued = dateOf(vc.validFrom ?? vc.issuanceDate ?? payload.nbf);
  const expires = dateOf(vc.validUntil ?? vc.expirationDate ?? payload.exp);
  if (!isObj(subject) || !isObj(achievement) || issued === null || expires === null) return null;
  const credentialId = text(vc.id) ?? text(payload.jti);
  const details: ExternalBadgeDetails = {
    name: text(achievement.name) ?? text(vc.name) ?? "Badge",
    description: text(achievement.description) ?? "",
    image_url: imageUrl(achievement.image),
    criteria_url: isObj(achievement.criteria) ? httpUrl(achievement.criteria.id) : null,
    issuer_name: text(issuer.name) ?? "Unknown issuer",
    issuer_url: httpUrl(issuer.url),
    issuer_origin: null,
    issued_at: issued ?? null,
    expires_at: expires ?? null,
    credential_id: credentialId,
  };
  return { issuer, subject, details, credentialId, issued: issued ?? null, expires: expires ?? null };
};
type Ob3Claims = NonNullable<ReturnType<typeof ob3Claims>>;

/**
 * What follows a valid signature, for either form of OB 3.0 credential: the recipient is one of
 * the account's addresses, the time is right, and a credential whose id is an address is fetched
 * to see it is not revoked (410 or `revoked: true`).
 */
const ob3AfterSignature = async (
  deps: VerifyDeps,
  claims: Ob3Claims,
  issuerIdentity: string,
  emails: readonly string[],
  now: Date,
): Promise<Verification> => {
  const { subject, details } = claims;
  const identifiers = Array.isArray(subject.identifier) ? subject.identifier.filter(isObj) : [];
  const matches = identifiers.some(
    (i) =>
      typeof i.identityHash === "string" &&
      identityMatches(
        { hashed: i.hashed === true, identity: i.identityHash, salt: typeof i.salt === "string" ? i.salt : "" },
        emails,
        deps.sha256Hex,
      ),
  );
  if (!matches) return fail("recipient_mismatch", details);
  const timing = timeReason(claims.issued, claims.expires, now);
  if (timing) return fail(timing, details);
  const statusUrl = httpUrl(claims.credentialId);
  if (statusUrl) {
    const f = await deps.documents.getJson(statusUrl);
    // A 410 is a revocation whatever its body (often an HTML page, not JSON).
    if (f.status === 410 || (f.outcome === "answered" && isObj(f.json) && f.json.revoked === true)) {
      return fail("revoked", details);
    }
  }
  return validated(details, issuerIdentity);
};

/**
 * OB 3.0 verification of a VC-JWT: the key named by `kid` is fetched from the issuer's own origin
 * (a key anyone could host elsewhere proves nothing about the issuer), the signature checked, then
 * the credential's claims.
 */
export const verifyOb3 = async (deps: VerifyDeps, jwt: string, emails: readonly string[], now: Date) => {
  const decoded = deps.jws.decode(jwt);
  if (!decoded) return fail("malformed");
  const { header, payload } = decoded;
  const claims = ob3Claims(isObj(payload.vc) ? payload.vc : payload, payload);
  if (!claims) return fail("malformed");
  const { issuer, details, credentialId } = claims;
  const didDocument = typeof issuer.id === "string" ? didWebDocumentUrl(issuer.id) : null;
  if (didDocument) {
    const did = issuer.id as string;
    const named = text(header.kid);
    const method = named?.startsWith("#") ? `${did}${named}` : named;
    if (!method?.startsWith(`${did}#`)) return fail("key_unresolved", details);
    // The DID is its domain's: addresses beside it must be on that domain too.
    const origin = originOf(didDocument);
    if (offOrigin(issuer.url, origin) || offOrigin(credentialId, origin)) return fail("id_mismatch", details);
    const jwk = await didWebKey(deps.documents, did, didDocument, method);
    if (!jwk) return fail("key_unresolved", details);
    if (!(await deps.jws.verify(jwt, jwk))) return fail("signature_invalid", details);
    return ob3AfterSignature(deps, claims, did, emails, now);
  }
  const kid = httpUrl(header.kid);
  const issuerOrigin = originOf(httpUrl(issuer.id));
  if (!kid || !issuerOrigin || originOf(kid) !== issuerOrigin) return fail("key_unresolved", details);
  if (offOrigin(issuer.url, issuerOrigin) || offOrigin(credentialId, issuerOrigin)) return fail("id_mismatch", details);
  const jwk = await keyOf(deps.documents, kid);
  if (!jwk) return fail("key_unresolved", details);
  if (!(await deps.jws.verify(jwt, jwk))) return fail("signature_invalid", details);
  return ob3AfterSignature(deps, claims, issuerOrigin, emails, now);
};

const DID_KEY = /^did:key:(z[1-9A-HJ-NP-Za-km-z]+)$/;

/** `did:web:<host, its port as %3A>[:<path segment>...]`, without a fragment or a query. */
const DID_WEB = /^did:web:([A-Za-z0-9.-]+(?:%3[Aa]\d{1,5})?)((?::[A-Za-z0-9._~-]+)*)$/;

/**
 * Where a `did:web` DID's document is (the did:web method): `https://<host>/.well-known/did.json`,
 * or `https://<host>/<path>/did.json` for a DID with a path. Null for any other DID.
 *
 * @example didWebDocumentUrl("did:web:issuer.example:users:ada") // "https://issuer.example/users/ada/did.json"
 */
export const didWebDocumentUrl = (did: string): string | null => {
  const m = DID_WEB.exec(did);
  if (!m) return null;
  const host = (m[1] as string).replace(/%3[Aa]/, ":");
  const path = (m[2] as string).split(":").filter((segment) => segment !== "");
  return path.length === 0 ? `https://${host}/.well-known/did.json` : `https://${host}/${path.join("/")}/did.json`;
};

/**
 * The public key (JWK) of a `did:web` DID's verification method `method`, from the DID document
 * at `url`: the document must be the DID's own, and the method one it lists for assertions (in
 * `assertionMethod`, when the document says which) with a `publicKeyJwk`.
 */
const didWebKey = async (documents: ExternalDocuments, did: string, url: string, method: string) => {
  const f = await documents.getJson(url);
  if (f.outcome !== "answered" || f.status !== 200 || !isObj(f.json) || f.json.id !== did) return null;
  const absolute = (id: unknown) => (typeof id === "string" && id.startsWith("#") ? `${did}${id}` : id);
  const listed = (entries: unknown): Obj[] =>
    (Array.isArray(entries) ? entries : []).flatMap((e) => (isObj(e) ? [e] : []));
  const methods = [...listed(f.json.verificationMethod), ...listed(f.json.assertionMethod)];
  const found = methods.find((m) => absolute(m.id) === method);
  const assertion = f.json.assertionMethod;
  if (Array.isArray(assertion) && !assertion.some((a) => absolute(isObj(a) ? a.id : a) === method)) return null;
  return found && isObj(found.publicKeyJwk) ? found.publicKeyJwk : null;
};

/** The credential's one embedded proof; null when it carries none or several. */
export const proofOf = (doc: Record<string, unknown>): Obj | null => {
  const proofs = Array.isArray(doc.proof) ? doc.proof : [doc.proof];
  return proofs.length === 1 && isObj(proofs[0]) ? proofs[0] : null;
};
const verificationMethodOf = (proof: Obj | null): string | null =>
  text(isObj(proof?.verificationMethod) ? proof.verificationMethod.id : proof?.verificationMethod);

/**
 * Who vouches for an issuer id: a `did:key` is its own key, so it is the identity itself; an
 * http(s) id is vouched for by its origin, as a VC-JWT's. Null for any other kind of id.
 */
const issuerIdentityOf = (issuerId: unknown): string | null => {
  const id = text(issuerId);
  if (id && DID_KEY.test(id)) return id;
  return originOf(httpUrl(id));
};

/**
 * OB 3.0 verification of a JSON credential with an embedded Data Integrity proof. The verification
 * method must be the issuer's own before anything is fetched: a `did:key` issuer's key (its id with
 * a fragment), or for an http(s) issuer an address on its origin, as a VC-JWT's `kid`. The check
 * then proves the issuer's controller document lists the key; the claims are read as a VC-JWT's.
 */
export const verifyOb3Json = async (
  deps: VerifyDeps,
  doc: Record<string, unknown>,
  emails: readonly string[],
  now: Date,
): Promise<Verification> => {
  const claims = ob3Claims(doc, {});
  if (!claims) return fail("malformed");
  const { issuer, details, credentialId } = claims;
  const method = verificationMethodOf(proofOf(doc));
  const identity = issuerIdentityOf(issuer.id);
  if (!deps.dataIntegrity || !method || !identity) return fail("key_unresolved", details);
  const sameIssuer = DID_KEY.test(identity)
    ? method.startsWith(`${identity}#`)
    : httpUrl(method) !== null && originOf(method) === identity;
  if (!sameIssuer) return fail("key_unresolved", details);
  // A did:key has no origin: an address beside it would be shown as the issuer's without proof.
  const origin = DID_KEY.test(identity) ? null : identity;
  if (offOrigin(issuer.url, origin) || offOrigin(credentialId, origin)) return fail("id_mismatch", details);
  const checked = await deps.dataIntegrity.verify(doc);
  if (!checked.ok) return fail(checked.error, details);
  if (checked.value.controller !== issuer.id) return fail("key_unresolved", details);
  return ob3AfterSignature(deps, claims, identity, emails, now);
};

/** Verifies what the earner gave against the account's confirmed addresses at `now`. */
export const verifyExternalBadge = (
  deps: VerifyDeps,
  input: ExternalBadgeInput,
  emails: readonly string[],
  now: Date,
): Promise<Verification> =>
  input.source === "open_badges_v2"
    ? verifyOb2(deps, input.url, emails, now)
    : "jwt" in input
      ? verifyOb3(deps, input.jwt, emails, now)
      : verifyOb3Json(deps, input.json, emails, now);
