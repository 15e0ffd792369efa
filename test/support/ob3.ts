import { decodeProtectedHeader, importJWK, type JWTPayload, jwtVerify } from "jose";

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
  const { payload } = await jwtVerify(text, await importJWK(await key.json(), "EdDSA"), { algorithms: ["EdDSA"] });
  return { status: 200, headers: res.headers, jwt: text, payload, body: payload };
};
