import { generateKeyPairSync } from "node:crypto";
import { compactVerify, decodeProtectedHeader, jwtVerify, SignJWT } from "jose";
import t from "tap";
import { signEd25519Jws } from "../../adapters/crypto/ed25519_jws.ts";
import { accessTokenKeys } from "../../adapters/crypto/jwt.ts";

const { privateKey, publicKey } = generateKeyPairSync("ed25519");

t.test("the same bytes as jose's SignJWT, and jose verifies them", async (t) => {
  const header = { alg: "EdDSA", typ: "vc+jwt", kid: "https://laurel.example/keys/abc" };
  const payload = { iss: "https://laurel.example", sub: "urn:x", nbf: 1_700_000_000, vc: { name: "Ünïcode ✓" } };
  const ours = await signEd25519Jws(header, payload, privateKey);
  const jose = await new SignJWT(payload).setProtectedHeader(header).sign(privateKey);
  t.equal(ours, jose, "Ed25519 is deterministic: one header and payload, one token");
  const verified = await compactVerify(ours, publicKey);
  t.same(JSON.parse(new TextDecoder().decode(verified.payload)), payload);
  t.same(decodeProtectedHeader(ours), header);
  const tampered = `${ours.slice(0, -4)}AAAA`;
  await t.rejects(compactVerify(tampered, publicKey), "a changed signature fails");
});

t.test("access tokens: jose's jwtVerify accepts them with the issuer, type and algorithm checks", async (t) => {
  const keys = await accessTokenKeys({ signingKey: privateKey, publicKey }, "https://auth.example");
  const claims = {
    iss: "https://auth.example",
    sub: "org-1",
    client_id: "client-1",
    scope: "badges issued_badges",
    jti: "jti-1",
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 7200,
  };
  const token = await keys.signer.sign(claims);
  const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
    issuer: "https://auth.example",
    typ: "at+jwt",
    algorithms: ["EdDSA"],
  });
  t.same(payload, claims);
  t.equal(protectedHeader.kid, keys.jwks.keys[0]?.kid);
  t.same(await keys.verify(token), claims, "the service's own check");
  const pair = generateKeyPairSync("ed25519");
  const other = await accessTokenKeys(
    { signingKey: pair.privateKey, publicKey: pair.publicKey },
    "https://auth.example",
  );
  t.equal(await other.verify(token), null, "another key's check refuses it");
});
