import { calculateJwkThumbprint, exportJWK, type JWK } from "jose";
import { signEd25519Jws } from "./ed25519_jws.ts";
import type { ServerKeys } from "./server_keys.ts";

export interface CredentialSigner {
  /** The `kid` of every credential: an absolute URL that serves `publicJwk`. */
  kid: string;
  publicJwk: JWK;
  /** A compact JWS (EdDSA) of `payload`, which carries its own registered claims. */
  sign(payload: Record<string, unknown>): Promise<string>;
}

/**
 * Signs Open Badges 3.0 credentials as VC-JWTs with the server's Ed25519 key (the access-token
 * key: one key to keep and rotate). `keyBase` is where the key is served: `<keyBase>/<thumbprint>`.
 */
export const credentialSigner = async (
  keys: Pick<ServerKeys, "signingKey" | "publicKey">,
  keyBase: string,
): Promise<CredentialSigner> => {
  const jwk = await exportJWK(keys.publicKey);
  const kid = `${keyBase}/${await calculateJwkThumbprint(jwk)}`;
  return {
    kid,
    publicJwk: { ...jwk, kid, alg: "EdDSA", use: "sig" },
    sign: (payload) => signEd25519Jws({ alg: "EdDSA", typ: "vc+jwt", kid }, payload, keys.signingKey),
  };
};
