import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import t from "tap";
import { credentialSigner, loadServerKeys } from "../../adapters/crypto/mod.ts";

/**
 * The keys of Open Badges 3.0 credentials: an RSA key of 3072 bits generated into keys.json with
 * the others, added once to a keys.json written before it existed (the same key for every process
 * that reads the file at once), refused below 2048 bits; credentials signed RS256 by default or
 * EdDSA when chosen, each verifiable through the key set by its `kid`.
 */
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), "laurel-keys-"));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
};
const pem = (type: "rsa" | "ed25519", bits = 2048) =>
  (type === "rsa" ? generateKeyPairSync("rsa", { modulusLength: bits }) : generateKeyPairSync("ed25519")).privateKey
    .export({ type: "pkcs8", format: "pem" })
    .toString();

t.test("a new keys.json holds an RSA key of 3072 bits, mode 0600", (t) => {
  const d = dir();
  const keys = loadServerKeys({}, d);
  t.equal(keys.rsaSigningKey.asymmetricKeyType, "rsa");
  t.equal(keys.rsaSigningKey.asymmetricKeyDetails?.modulusLength, 3072);
  const path = join(d, "keys.json");
  t.equal(statSync(path).mode & 0o777, 0o600);
  t.ok(JSON.parse(readFileSync(path, "utf8")).rsa_signing_key_pem);
  t.equal(
    loadServerKeys({}, d).rsaPublicKey.export({ format: "jwk" }).n,
    keys.rsaPublicKey.export({ format: "jwk" }).n,
    "read back, the same key",
  );
  t.end();
});

t.test("a keys.json without the RSA key gets one, the same for processes reading it at once", async (t) => {
  const d = dir();
  const path = join(d, "keys.json");
  const old = { secret: Buffer.alloc(32, 7).toString("base64url"), signing_key_pem: pem("ed25519") };
  writeFileSync(path, JSON.stringify(old), { mode: 0o600 });
  const script = `import { loadServerKeys } from ${JSON.stringify(new URL("../../adapters/crypto/mod.ts", import.meta.url).href)};
    process.stdout.write(loadServerKeys({}, ${JSON.stringify(d)}).rsaPublicKey.export({ format: "jwk" }).n);`;
  const run = () =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (b) => {
        out += b;
      });
      child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
    });
  const moduli = await Promise.all([run(), run(), run(), run()]);
  t.equal(new Set(moduli).size, 1, "four processes, one RSA key");
  const stored = JSON.parse(readFileSync(path, "utf8"));
  t.equal(stored.secret, old.secret, "the other keys are kept");
  t.equal(stored.signing_key_pem, old.signing_key_pem);
  t.equal(loadServerKeys({}, d).rsaPublicKey.export({ format: "jwk" }).n, moduli[0], "the one written to the file");
  t.equal(statSync(path).mode & 0o777, 0o600);
  t.notOk(existsSync(`${path}.lock`), "no lock left behind");
});

t.test("LAUREL_RSA_SIGNING_KEY: an RSA key of at least 2048 bits", (t) => {
  const d = dir();
  const given = pem("rsa", 2048);
  const keys = loadServerKeys({ rsaSigningKeyPem: given }, d);
  t.equal(keys.rsaSigningKey.asymmetricKeyDetails?.modulusLength, 2048, "the given key, not the file's");
  t.throws(() => loadServerKeys({ rsaSigningKeyPem: pem("rsa", 1024) }, d), /at least 2048 bits/);
  t.throws(() => loadServerKeys({ rsaSigningKeyPem: pem("ed25519") }, d), /RSA private key/);
  t.end();
});

t.test("credentials: RS256 by default, EdDSA when chosen; typ JWT; the key set finds either by kid", async (t) => {
  const keys = loadServerKeys({}, dir());
  const base = "https://laurel.example/v1/obi/v3/keys";
  const payload = { iss: "https://laurel.example/v1/obi/v3/issuers/o", sub: "urn:uuid:x", jti: "urn:j" };
  for (const alg of ["RS256", "EdDSA"] as const) {
    const signer = await credentialSigner(keys, base, alg);
    t.same(
      signer.publicJwks.map((k) => [k.kty, k.alg]),
      [
        ["RSA", "RS256"],
        ["OKP", "EdDSA"],
      ],
      `${alg}: both keys published`,
    );
    const jwt = await signer.sign(payload);
    const header = decodeProtectedHeader(jwt);
    t.same(header, { alg, typ: "JWT", kid: signer.kid });
    t.match(header.kid, new RegExp(`^${base}/[A-Za-z0-9_-]{43}$`));
    const verified = await jwtVerify(jwt, createLocalJWKSet({ keys: signer.publicJwks }), { algorithms: [alg] });
    t.same(verified.payload, payload);
    t.notOk(
      signer.publicJwks.some((k) => "d" in k || "p" in k),
      "public keys only",
    );
  }
});
