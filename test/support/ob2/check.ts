import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import jsonld from "jsonld";

/**
 * An Open Badges 2.0 check written from the specification, independent of Laurel's code: JSON-LD
 * expansion against the published v2 context (shipped beside this file, served by a static
 * document loader) in safe mode, so a term the context does not define fails instead of being
 * dropped; then the validator's rules for each document kind.
 */
export const OB2_CONTEXT_URL = "https://w3id.org/openbadges/v2";
const CONTEXT = JSON.parse(readFileSync(new URL("./openbadges-v2-context.json", import.meta.url), "utf8")) as object;

const documentLoader = async (url: string) => {
  if (url === OB2_CONTEXT_URL) return { contextUrl: undefined, document: CONTEXT, documentUrl: url };
  throw new Error(`the static document loader has no ${url}`);
};

// biome-ignore lint/suspicious/noExplicitAny: documents under test are arbitrary JSON
type Doc = any;

/** Expands `doc` (relative IRIs such as the recipient type resolve against `doc.id`); throws on a dropped term. */
export const expandStrict = (doc: Doc): Promise<unknown[]> =>
  jsonld.expand(doc, {
    documentLoader,
    base: typeof doc.id === "string" ? doc.id : undefined,
    safe: true,
  } as unknown as Parameters<typeof jsonld.expand>[1]) as Promise<unknown[]>;

const isIri = (v: unknown): boolean => {
  if (typeof v !== "string") return false;
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
};
const isDateTime = (v: unknown): boolean =>
  typeof v === "string" &&
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
  !Number.isNaN(Date.parse(v));
const isEmail = (v: unknown): boolean => typeof v === "string" && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v);
const hasType = (doc: Doc, ...types: string[]): boolean =>
  [doc?.type].flat().some((t: unknown) => types.includes(String(t)));

const required = (errors: string[], doc: Doc, kind: string, keys: string[]) => {
  for (const k of keys) if (doc?.[k] === undefined || doc[k] === null) errors.push(`${kind}: ${k} is required`);
};

export const checkIssuer = (doc: Doc): string[] => {
  const errors: string[] = [];
  if (doc?.["@context"] !== OB2_CONTEXT_URL) errors.push("issuer: @context must be the OB v2 context");
  if (!hasType(doc, "Issuer", "Profile")) errors.push("issuer: type must be Issuer or Profile");
  required(errors, doc, "issuer", ["id", "name", "url", "email"]);
  if (!isIri(doc?.id)) errors.push("issuer: id must be an HTTP(S) IRI");
  if (!isIri(doc?.url)) errors.push("issuer: url must be an HTTP(S) IRI");
  if (doc?.name !== undefined && typeof doc.name !== "string") errors.push("issuer: name must be text");
  if (doc?.email !== undefined && !isEmail(doc.email)) errors.push("issuer: email is not an e-mail address");
  if (doc?.image !== undefined && !isIri(doc.image)) errors.push("issuer: image must be an IRI");
  return errors;
};

export const checkBadgeClass = (doc: Doc): string[] => {
  const errors: string[] = [];
  if (doc?.["@context"] !== OB2_CONTEXT_URL) errors.push("badge class: @context must be the OB v2 context");
  if (!hasType(doc, "BadgeClass")) errors.push("badge class: type must be BadgeClass");
  required(errors, doc, "badge class", ["id", "name", "description", "image", "criteria", "issuer"]);
  if (!isIri(doc?.id)) errors.push("badge class: id must be an HTTP(S) IRI");
  const image = typeof doc?.image === "string" ? doc.image : doc?.image?.id;
  if (!isIri(image)) errors.push("badge class: image must be an IRI or an Image with an IRI id");
  const criteria = doc?.criteria;
  if (!(isIri(criteria) || isIri(criteria?.id) || typeof criteria?.narrative === "string")) {
    errors.push("badge class: criteria needs an id or a narrative");
  }
  const issuer = typeof doc?.issuer === "string" ? doc.issuer : doc?.issuer?.id;
  if (!isIri(issuer)) errors.push("badge class: issuer must be an IRI or a Profile with an IRI id");
  if (typeof doc?.issuer === "object") errors.push(...checkIssuer(doc.issuer).map((e) => `badge class ${e}`));
  for (const [i, a] of (doc?.alignment ?? []).entries()) {
    if (typeof a?.targetName !== "string") errors.push(`badge class: alignment ${i} needs targetName`);
    if (!isIri(a?.targetUrl)) errors.push(`badge class: alignment ${i} targetUrl must be an IRI`);
  }
  if (doc?.tags !== undefined && !(Array.isArray(doc.tags) && doc.tags.every((t: unknown) => typeof t === "string"))) {
    errors.push("badge class: tags must be strings");
  }
  return errors;
};

/** `now`: the verifier's clock; `email`: the address the earner claims. */
export const checkAssertion = (doc: Doc, options: { now: Date; email: string }): string[] => {
  const errors: string[] = [];
  if (doc?.["@context"] !== OB2_CONTEXT_URL) errors.push("assertion: @context must be the OB v2 context");
  if (!hasType(doc, "Assertion")) errors.push("assertion: type must be Assertion");
  required(errors, doc, "assertion", ["id", "recipient", "badge", "verification", "issuedOn"]);
  if (!isIri(doc?.id)) errors.push("assertion: id must be an HTTP(S) IRI");
  if (!isIri(doc?.badge)) errors.push("assertion: badge must be the IRI of its badge class");
  if (!isDateTime(doc?.issuedOn)) errors.push("assertion: issuedOn must be an ISO 8601 date-time");
  else if (Date.parse(doc.issuedOn) > options.now.getTime()) errors.push("assertion: issuedOn is in the future");
  if (doc?.expires !== undefined) {
    if (!isDateTime(doc.expires)) errors.push("assertion: expires must be an ISO 8601 date-time");
    else if (Date.parse(doc.expires) <= Date.parse(doc.issuedOn))
      errors.push("assertion: expires is not after issuedOn");
  }
  const r = doc?.recipient ?? {};
  if (r.type !== "email") errors.push("assertion: recipient type must be email");
  if (typeof r.hashed !== "boolean") errors.push("assertion: recipient hashed must be a boolean");
  if (r.hashed === true) {
    const m = /^sha256\$([0-9a-f]{64})$/.exec(String(r.identity));
    if (!m) errors.push("assertion: recipient identity must be sha256$<64 hex>");
    const expected = createHash("sha256")
      .update(options.email.toLowerCase() + (r.salt ?? ""))
      .digest("hex");
    if (m && m[1] !== expected) errors.push("assertion: recipient identity does not match the e-mail and salt");
  } else if (r.identity !== options.email) errors.push("assertion: recipient identity does not match the e-mail");
  if (doc?.verification?.type !== "hosted" && doc?.verification?.type !== "HostedBadge") {
    errors.push("assertion: verification type must be hosted");
  }
  for (const [i, e] of (doc?.evidence ?? []).entries()) {
    if (!isIri(e?.id)) errors.push(`assertion: evidence ${i} id must be an IRI`);
  }
  return errors;
};

/** A revoked hosted assertion's 410 body: what a verifier needs to report the revocation. */
export const checkRevokedAssertion = (doc: Doc): string[] => {
  const errors: string[] = [];
  if (doc?.["@context"] !== OB2_CONTEXT_URL) errors.push("revoked assertion: @context must be the OB v2 context");
  if (!hasType(doc, "Assertion")) errors.push("revoked assertion: type must be Assertion");
  required(errors, doc, "revoked assertion", ["id", "revoked"]);
  if (!isIri(doc?.id)) errors.push("revoked assertion: id must be an HTTP(S) IRI");
  if (doc?.revoked !== true) errors.push("revoked assertion: revoked must be true");
  if (doc?.revocationReason !== undefined && typeof doc.revocationReason !== "string")
    errors.push("revoked assertion: revocationReason must be text");
  return errors;
};

/**
 * Hosted verification as the OB 2.0 validator checks it: `verification.allowedOrigins`, when
 * present, holds bare host names (no scheme, no port, no IP address) and the assertion and badge
 * class hosts must be among them; without it, their origin must be the issuer id's origin.
 */
export const checkHostedOrigins = (assertion: Doc, badgeClass: Doc, issuer: Doc): string[] => {
  const errors: string[] = [];
  const declared = issuer?.verification?.allowedOrigins;
  const allowed = declared === undefined ? [] : [declared].flat().map(String);
  for (const host of allowed) {
    if (!/^[A-Za-z0-9.-]+$/.test(host) || /^[0-9.]+$/.test(host))
      errors.push(`issuer: allowedOrigins ${host} is not a bare host name`);
  }
  for (const [kind, doc] of [
    ["assertion", assertion],
    ["badge class", badgeClass],
  ] as const) {
    const url = new URL(doc.id);
    if (declared === undefined) {
      if (url.origin !== new URL(issuer.id).origin) errors.push(`${kind}: not on the issuer's origin`);
    } else if (!allowed.includes(url.hostname))
      errors.push(`${kind}: ${url.hostname} is not among the issuer's origins (${allowed.join(", ")})`);
  }
  if (new URL(issuer.id).host !== new URL(assertion.id).host) errors.push("issuer: not on the assertion's origin");
  return errors;
};
