import { calculateJwkThumbprint, exportJWK, type JWK, SignJWT } from "jose";
import { signEd25519Jws } from "./ed25519_jws.ts";
import type { ServerKeys } from "./server_keys.ts";

/** How credentials are signed: RS256 is what every Open Badges 3.0 verifier must support. */
export type CredentialAlg = "RS256" | "EdDSA";

export interface CredentialSigner {
  alg: CredentialAlg;
  /** The `kid` of every credential signed now: an absolute URL that serves its key. */
  kid: string;
  /**
   * Every public key a credential of Laurel's may be verified with (RSA and Ed25519, whichever
   * signs), each under its `kid`: the key set lists them all, so a change of algorithm leaves the
   * credentials signed before it verifiable.
   */
  publicJwks: JWK[];
  /** A compact JWS of `payload`, which carries its own registered claims. */
  sign(payload: Record<string, unknown>): Promise<string>;
}

/**
 * Signs Open Badges 3.0 credentials (and status lists) as VC-JWTs: RS256 with the server's RSA key,
 * or EdDSA with its Ed25519 key (the access-token key). `keyBase` is where the keys are served:
 * `<keyBase>/<thumbprint>`, which is also each key's `kid`. The header's `typ` is `JWT`, the only
 * value OB 3.0 allows.
 */
export const credentialSigner = async (
  keys: Pick<ServerKeys, "signingKey" | "publicKey" | "rsaSigningKey" | "rsaPublicKey">,
  keyBase: string,
  alg: CredentialAlg,
): Promise<CredentialSigner> => {
  const published = async (key: ServerKeys["publicKey"], keyAlg: CredentialAlg): Promise<JWK> => {
    const jwk = await exportJWK(key);
    return { ...jwk, kid: `${keyBase}/${await calculateJwkThumbprint(jwk)}`, alg: keyAlg, use: "sig" };
  };
  const rsa = await published(keys.rsaPublicKey, "RS256");
  const ed25519 = await published(keys.publicKey, "EdDSA");
  const kid = (alg === "RS256" ? rsa.kid : ed25519.kid) as string;
  const header = { alg, typ: "JWT", kid };
  return {
    alg,
    kid,
    publicJwks: [rsa, ed25519],
    sign: (payload) =>
      alg === "EdDSA"
        ? signEd25519Jws(header, payload, keys.signingKey)
        : new SignJWT(payload).setProtectedHeader(header).sign(keys.rsaSigningKey),
  };
};
