import { type KeyObject, sign } from "node:crypto";

/**
 * A compact JWS signed with an Ed25519 key (`alg: EdDSA`), in place of jose's
 * `new SignJWT(payload).setProtectedHeader(header).sign(key)`.
 *
 * jose signs through WebCrypto (an asynchronous job, a structured clone of the key, algorithm
 * normalization on every call), which is most of a token request's CPU; node:crypto's one-shot
 * `sign` makes the same signature in about a third of the time (docs/benchmarks.md, token
 * issuance). Ed25519 signatures are deterministic, so the output is byte for byte jose's for the same
 * header and payload: test/crypto/ed25519_jws.test.ts checks that, and verifies with jose.
 */
export const signEd25519Jws = (
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: KeyObject,
): Promise<string> => {
  const input = `${base64url(header)}.${base64url(payload)}`;
  // The callback form signs on libuv's thread pool: the main thread stays free for requests.
  return new Promise((resolve, reject) =>
    sign(null, Buffer.from(input), key, (err, signature) =>
      err ? reject(err) : resolve(`${input}.${signature.toString("base64url")}`),
    ),
  );
};

const base64url = (value: Record<string, unknown>): string => Buffer.from(JSON.stringify(value)).toString("base64url");
