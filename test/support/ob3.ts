import { readFileSync } from "node:fs";
import Ajv2019Module from "ajv/dist/2019.js";
import addFormatsModule from "ajv-formats";
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
} from "jose";

const Ajv2019 = Ajv2019Module.default;
const addFormats = addFormatsModule.default;

/** 1EdTech's own OB 3.0 JSON Schemas (see test/fixtures/ob3/README.md). */
const schema = (file: string) => JSON.parse(readFileSync(new URL(`../fixtures/ob3/${file}`, import.meta.url), "utf8"));
const ajv = new Ajv2019({ allErrors: true, strict: false });
addFormats(ajv);
const VALIDATORS = {
  credential: ajv.compile(schema("achievementcredential.json")),
  profile: ajv.compile(schema("profile.json")),
  endorsement: ajv.compile(schema("endorsementcredential.json")),
};

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

/** The errors of `doc` against the official schema of its kind; empty when it passes. */
export const ob3SchemaErrors = (kind: keyof typeof VALIDATORS, doc: unknown): string[] => {
  const validate = VALIDATORS[kind];
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `schema: ${e.instancePath || "/"} ${e.message}`);
};

const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/**
 * What an OB 3.0 verifier refuses in a VC-JWT credential: the payload against 1EdTech's
 * AchievementCredential schema, the header (`alg`, `typ` `JWT` or absent, `kid` a URL), and the
 * registered claims against the credential they repeat (`iss` = issuer id, `jti` = id,
 * `sub` = credentialSubject.id, both present, `nbf`/`exp` = validFrom/validUntil), and its
 * revocation status entry. Empty when it passes.
 */
export const checkOpenBadgeCredentialJwt = (jwt: string, payload: Doc, alg = "RS256"): string[] => {
  const errors = ob3SchemaErrors("credential", payload);
  const header = decodeProtectedHeader(jwt);
  if (header.alg !== alg) errors.push(`header: alg ${header.alg}`);
  if (header.typ !== undefined && header.typ !== "JWT") errors.push(`header: typ ${header.typ}`);
  if (typeof header.kid !== "string" || !/^https?:\/\//.test(header.kid)) errors.push("header: kid is not a URL");
  if (payload.iss !== payload.issuer?.id) errors.push("claims: iss is not issuer.id");
  if (payload.jti !== payload.id) errors.push("claims: jti is not the credential id");
  if (typeof payload.sub !== "string" || payload.sub === "") errors.push("claims: no sub");
  if (payload.sub !== payload.credentialSubject?.id) errors.push("claims: sub is not credentialSubject.id");
  if (payload.nbf !== seconds(payload.validFrom)) errors.push("claims: nbf is not validFrom");
  if (payload.validUntil === undefined ? payload.exp !== undefined : payload.exp !== seconds(payload.validUntil))
    errors.push("claims: exp is not validUntil");
  const status = payload.credentialStatus;
  if (
    status?.type !== "BitstringStatusListEntry" ||
    status.statusPurpose !== "revocation" ||
    !/^(0|[1-9][0-9]*)$/.test(status.statusListIndex ?? "") ||
    typeof status.statusListCredential !== "string"
  )
    errors.push("credentialStatus: not a revocation BitstringStatusListEntry");
  return errors;
};

/** The issuer id a VC-JWT names, read before its signature is checked (where to find its keys). */
const issuerIdOf = (jwt: string): string => {
  const payload = decodeJwt(jwt) as Doc;
  const issuer = typeof payload.issuer === "string" ? payload.issuer : payload.issuer?.id;
  if (typeof issuer !== "string" || issuer !== payload.iss) throw new Error("the JWT names no issuer, or two");
  return issuer;
};

/**
 * The key set of an issuer, where OB 3.0 verifiers look for it: `/.well-known/jwks.json` at the
 * host of the issuer's id, asked for as `application/jwk-set+json`.
 */
export const issuerKeySet = async (issuerId: string): Promise<JSONWebKeySet> => {
  const res = await fetch(new URL("/.well-known/jwks.json", issuerId), {
    headers: { accept: "application/jwk-set+json" },
  });
  if (res.status !== 200) throw new Error(`key set of ${issuerId}: ${res.status}`);
  return (await res.json()) as JSONWebKeySet;
};

/**
 * Fetches a VC-JWT Laurel serves (an OB 3.0 credential or a status list credential) and verifies
 * it as an OB 3.0 verifier would, with jose alone: the key is the one of the issuer's key set
 * (`issuerKeySet`) whose `kid` is the header's, and the signature is checked with it. Answers the
 * status, the headers and, for a 200, the verified payload.
 */
export const fetchVcJwt = async (
  url: string,
  headers: Record<string, string> = {},
  algorithms: string[] = ["RS256"],
): Promise<{ status: number; headers: Headers; jwt: string; payload: JWTPayload | null; body: unknown }> => {
  const res = await fetch(url, { headers });
  const text = await res.text();
  if (res.status !== 200) {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, jwt: "", payload: null, body };
  }
  const keys = await issuerKeySet(issuerIdOf(text));
  const { payload } = await jwtVerify(text, createLocalJWKSet(keys), { algorithms });
  return { status: 200, headers: res.headers, jwt: text, payload, body: payload };
};

/**
 * An OB 3.0 credential as every test fetches one: verified with the issuer's key set, and, when
 * served (200), checked by `checkOpenBadgeCredentialJwt`; a failed check throws with every error.
 */
export const fetchCredential = async (url: string, headers: Record<string, string> = {}, alg = "RS256") => {
  const res = await fetchVcJwt(url, headers, [alg]);
  if (res.status === 200) {
    const errors = checkOpenBadgeCredentialJwt(res.jwt, res.payload, alg);
    if (errors.length > 0) throw new Error(`${url} is not a valid OB 3.0 credential:\n${errors.join("\n")}`);
  }
  return res;
};

/** The profile a credential's `issuer.id` dereferences to, checked against 1EdTech's profile schema. */
export const fetchIssuerProfile = async (issuerId: string): Promise<Doc> => {
  const res = await fetch(issuerId, { headers: { accept: "application/ld+json" } });
  if (res.status !== 200) throw new Error(`profile ${issuerId}: ${res.status}`);
  const profile = await res.json();
  const errors = ob3SchemaErrors("profile", profile);
  if (errors.length > 0) throw new Error(`${issuerId} is not a valid OB 3.0 Profile:\n${errors.join("\n")}`);
  return profile;
};
