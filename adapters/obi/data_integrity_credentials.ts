import { createHash } from "node:crypto";
import type { BadgeView } from "../../core/issuing/mod.ts";
import { MULTIKEY_CONTEXT, multikeyUrl, profileUrl } from "../../core/obi/mod.ts";
import { boundedCache, type CacheLimits, keyBytes } from "../cache/mod.ts";
import type { BadgeRecords } from "./badge_records.ts";

/** Signs a credential with an embedded Data Integrity proof (the crypto adapter's `dataIntegritySigner`). */
export interface DataIntegritySigning {
  /** The public key as a Multikey; the last segment of every verification method's address. */
  publicKeyMultibase: string;
  sign(credential: Record<string, unknown>, verificationMethod: string): Promise<Record<string, unknown>>;
}

/** A verification method as served at its address (Multikey v1). */
export interface MultikeyDocument {
  "@context": string;
  id: string;
  type: "Multikey";
  controller: string;
  publicKeyMultibase: string;
}

/**
 * The registered claims a VC-JWT carries beside the credential. They belong to the JWT, not to
 * the credential: the JSON-LD credential leaves them out (its contexts do not define them).
 */
const JWT_CLAIMS = ["iss", "sub", "aud", "jti", "nbf", "exp", "iat"] as const;

/**
 * Signed credentials by the digest of the unsigned one: an entry outlives no change of the badge,
 * its template or its issuer (each changes the unsigned credential), and signing a credential
 * takes some milliseconds of canonicalization.
 */
export const DATA_INTEGRITY_CACHE = {
  maxEntries: 4_000,
  maxBytes: 16 * 1024 * 1024,
  ttlMs: 10 * 60_000,
} satisfies CacheLimits;

export interface DataIntegrityCredentials {
  /** The badge's OB 3.0 credential as JSON-LD with its `DataIntegrityProof`, serialized. */
  signed(view: BadgeView): Promise<Buffer>;
  /**
   * Another credential of the organization's (its status list) as JSON-LD with its proof,
   * serialized: `payload` is the VC-JWT's, claims and all.
   */
  signedPayload(payload: object, organizationId: string): Promise<Buffer>;
  /** The address of the organization's verification method: it serves `multikey(...)`. */
  verificationMethod(organizationId: string): string;
  /** The verification method of the organization; null when `key` is not the server's key. */
  multikey(organizationId: string, key: string): MultikeyDocument | null;
}

/**
 * A badge's OB 3.0 credential secured by a Data Integrity proof (`eddsa-rdfc-2022`) rather than
 * as a VC-JWT: the same credential as the VC-JWT's (same id, same status list entry), less the JWT
 * claims. The verification method lives under the issuer, `<v3Base>/multikeys/<organization id>/<key>`,
 * because its controller must be the credential's issuer and the key is the server's, shared by
 * every organization; the issuer's profile lists it as its `assertionMethod`.
 */
export const dataIntegrityCredentials = (deps: {
  records: Pick<BadgeRecords, "credentialPayload">;
  signer: DataIntegritySigning;
  urls: { v3Base: string };
  limits?: CacheLimits;
}): DataIntegrityCredentials => {
  // The issuer id as the credentials name it: the controller of the organization's key.
  const issuerId = (organizationId: string) => profileUrl(deps.urls.v3Base, organizationId);
  const cache = boundedCache<Buffer>(deps.limits ?? DATA_INTEGRITY_CACHE, {
    sizeOf: (v, k) => keyBytes(k) + v.length,
  });
  const key = deps.signer.publicKeyMultibase;
  const verificationMethod = (organizationId: string) => multikeyUrl(deps.urls.v3Base, organizationId, key);
  /** `text`, an unsigned credential of the organization's as the VC-JWT carries it, signed. */
  const signText = async (text: string, organizationId: string): Promise<Buffer> => {
    const digest = createHash("sha256").update(text).digest("base64url");
    const hit = cache.get(digest);
    if (hit) return hit;
    const credential = JSON.parse(text) as Record<string, unknown>;
    for (const claim of JWT_CLAIMS) delete credential[claim];
    const issuer =
      typeof credential.issuer === "string" ? credential.issuer : (credential.issuer as { id?: unknown })?.id;
    // The proof verifies only when its method's controller is the credential's issuer.
    if (issuer !== issuerId(organizationId))
      throw new Error(`credential issuer ${String(issuer)} is not the controller of its verification method`);
    const signed = await deps.signer.sign(credential, verificationMethod(organizationId));
    const bytes = Buffer.from(JSON.stringify(signed), "utf8");
    cache.set(digest, bytes);
    return bytes;
  };
  return {
    verificationMethod,
    multikey: (organizationId, asked) =>
      asked === key
        ? {
            "@context": MULTIKEY_CONTEXT,
            id: verificationMethod(organizationId),
            type: "Multikey",
            controller: issuerId(organizationId),
            publicKeyMultibase: key,
          }
        : null,
    signed: (view) => signText(deps.records.credentialPayload(view), view.issuer.id),
    signedPayload: (payload, organizationId) => signText(JSON.stringify(payload), organizationId),
  };
};
