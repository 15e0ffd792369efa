import { readFileSync } from "node:fs";
import Ajv2019Module from "ajv/dist/2019.js";
import addFormatsModule from "ajv-formats";
import { decodeProtectedHeader, importJWK, type JWK, type JWTPayload, jwtVerify } from "jose";

const Ajv2019 = Ajv2019Module.default;
const addFormats = addFormatsModule.default;

/** 1EdTech's AchievementCredential schema (see test/fixtures/ob3/README.md). */
const SCHEMA = JSON.parse(
  readFileSync(new URL("../fixtures/ob3/ob_v3p0_achievementcredential_schema.json", import.meta.url), "utf8"),
);
const ajv = new Ajv2019({ allErrors: true, strict: false });
addFormats(ajv);
const validateCredential = ajv.compile(SCHEMA);

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/**
 * What an OB 3.0 verifier refuses in a VC-JWT credential: the payload against the official
 * JSON Schema, the header (`alg`, `typ`, `kid`), and the registered claims against the credential
 * they repeat (`iss` = issuer id, `jti` = id, `nbf`/`exp` = validFrom/validUntil, `sub` =
 * credentialSubject.id, present exactly when it is), and its revocation status entry. Empty when
 * it passes.
 */
export const checkOpenBadgeCredentialJwt = (jwt: string, payload: Doc): string[] => {
  const errors: string[] = [];
  if (!validateCredential(payload)) {
    for (const e of validateCredential.errors ?? []) errors.push(`schema: ${e.instancePath || "/"} ${e.message}`);
  }
  const header = decodeProtectedHeader(jwt);
  if (header.alg !== "EdDSA") errors.push(`header: alg ${header.alg}`);
  if (header.typ !== "vc+jwt") errors.push(`header: typ ${header.typ}`);
  if (typeof header.kid !== "string" || !/^https?:\/\//.test(header.kid)) errors.push("header: kid is not a URL");
  if (payload.iss !== payload.issuer?.id) errors.push("claims: iss is not issuer.id");
  if (payload.jti !== payload.id) errors.push("claims: jti is not the credential id");
  if (payload.nbf !== seconds(payload.validFrom)) errors.push("claims: nbf is not validFrom");
  if (payload.validUntil === undefined ? payload.exp !== undefined : payload.exp !== seconds(payload.validUntil))
    errors.push("claims: exp is not validUntil");
  if (payload.sub !== payload.credentialSubject?.id) errors.push("claims: sub is not credentialSubject.id");
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

/**
 * Fetches a VC-JWT Laurel serves (an OB 3.0 credential or a status list credential) and verifies
 * it as a verifier would: the key is fetched from the header's `kid`, and the signature checked.
 * Answers the status, the headers and, for a 200, the verified payload.
 */
export const fetchVcJwt = async (
  url: string,
  headers: Record<string, string> = {},
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
  const header = decodeProtectedHeader(text);
  if (header.alg !== "EdDSA" || typeof header.kid !== "string") throw new Error(`unexpected JWT header ${header}`);
  const key = await fetch(header.kid);
  if (key.status !== 200) throw new Error(`key ${header.kid}: ${key.status}`);
  const { payload } = await jwtVerify(text, await importJWK((await key.json()) as JWK, "EdDSA"), {
    algorithms: ["EdDSA"],
  });
  return { status: 200, headers: res.headers, jwt: text, payload, body: payload };
};

/**
 * An OB 3.0 credential as every test fetches one: verified with its `kid`'s key, and, when served
 * (200), checked by `checkOpenBadgeCredentialJwt`; a failed check throws with every error.
 */
export const fetchCredential = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetchVcJwt(url, headers);
  if (res.status === 200) {
    const errors = checkOpenBadgeCredentialJwt(res.jwt, res.payload);
    if (errors.length > 0) throw new Error(`${url} is not a valid OB 3.0 credential:\n${errors.join("\n")}`);
  }
  return res;
};
