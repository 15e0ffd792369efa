import { calculateJwkThumbprint, exportJWK, type JWK, jwtVerify } from "jose";
import type { AccessTokenClaims, AccessTokenSigner } from "../../core/credentials/mod.ts";
import { signEd25519Jws } from "./ed25519_jws.ts";
import type { ServerKeys } from "./server_keys.ts";

export interface AccessTokenKeys {
  signer: AccessTokenSigner;
  /** Verifies signature, issuer and expiry; returns the claims or null. */
  verify(token: string): Promise<Partial<AccessTokenClaims> | null>;
  jwks: { keys: JWK[] };
}

/** EdDSA (Ed25519) access tokens with jose; the public key is published as a JWKS. */
export const accessTokenKeys = async (
  keys: Pick<ServerKeys, "signingKey" | "publicKey">,
  issuer: string,
): Promise<AccessTokenKeys> => {
  const jwk = await exportJWK(keys.publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const publicJwk: JWK = { ...jwk, kid, alg: "EdDSA", use: "sig" };
  return {
    jwks: { keys: [publicJwk] },
    signer: {
      sign: (claims) =>
        signEd25519Jws(
          { alg: "EdDSA", typ: "at+jwt", kid },
          {
            client_id: claims.client_id,
            scope: claims.scope,
            ...(claims.sid === undefined ? {} : { sid: claims.sid }),
            iss: claims.iss,
            sub: claims.sub,
            jti: claims.jti,
            iat: claims.iat,
            exp: claims.exp,
          },
          keys.signingKey,
        ),
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, keys.publicKey, { issuer, algorithms: ["EdDSA"], typ: "at+jwt" });
        return payload as Partial<AccessTokenClaims>;
      } catch {
        return null;
      }
    },
  };
};
