import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from "jose";
import type { JwsCheck } from "../../core/workforce/mod.ts";

/** Signatures other issuers put on Open Badges 3.0 credentials; never `none`, never an HMAC. */
const ALGORITHMS = ["EdDSA", "ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];

/** Reads and checks compact JWS (VC-JWT credentials) with jose. */
export const joseJwsCheck = (): JwsCheck => ({
  decode(jws) {
    try {
      const header = decodeProtectedHeader(jws) as Record<string, unknown>;
      const payload = decodeJwt(jws) as Record<string, unknown>;
      return { header, payload };
    } catch {
      return null;
    }
  },
  async verify(jws, jwk) {
    try {
      const alg = decodeProtectedHeader(jws).alg ?? "";
      if (!ALGORITHMS.includes(alg)) return false;
      const key = await importJWK(jwk as JWK, alg);
      await compactVerify(jws, key, { algorithms: ALGORITHMS });
      return true;
    } catch {
      return false;
    }
  },
});
