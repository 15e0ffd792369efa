import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * The server's keys: one 32-byte root secret (HMAC and AES keys are derived from it) and an Ed25519 key.
 * Every key is a KeyObject: on Node 24, `createHmac` or `createCipheriv` with a raw Buffer key spends
 * most of its time checking whether the key is a KeyObject or a CryptoKey (docs/benchmarks.md).
 */
export interface ServerKeys {
  hmacKey: KeyObject;
  aesKey: KeyObject;
  /** Seals the relay's event messages on the bus (`eventMessageSeal`). */
  busKey: KeyObject;
  signingKey: KeyObject;
  publicKey: KeyObject;
}

interface StoredKeys {
  secret: string; // base64url, 32 bytes
  signing_key_pem: string; // PKCS#8
}

const derive = (root: Buffer, info: string): KeyObject =>
  createSecretKey(Buffer.from(hkdfSync("sha256", root, Buffer.alloc(0), info, 32)));

const fromStored = (stored: StoredKeys): ServerKeys => {
  const root = Buffer.from(stored.secret, "base64url");
  if (root.length < 32) throw new Error("LAUREL_SECRET_KEY must be at least 32 bytes, base64url-encoded");
  const signingKey = createPrivateKey(stored.signing_key_pem);
  if (signingKey.asymmetricKeyType !== "ed25519")
    throw new Error("LAUREL_SIGNING_KEY must be an Ed25519 private key (PKCS#8 PEM)");
  return {
    hmacKey: derive(root, "laurel/hmac-sha256/v1"),
    aesKey: derive(root, "laurel/aes-256-gcm/v1"),
    busKey: derive(root, "laurel/bus-hmac-sha256/v1"),
    signingKey,
    publicKey: createPublicKey(signingKey),
  };
};

const generate = (): StoredKeys => ({
  secret: randomBytes(32).toString("base64url"),
  signing_key_pem: generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
});

/**
 * Keys from the environment (`LAUREL_SECRET_KEY`, `LAUREL_SIGNING_KEY`), or else generated once into
 * `DATA_DIR/keys.json` (mode 0600), which every process sharing that directory then reads.
 */
export const loadServerKeys = (
  env: { secretKey?: string | undefined; signingKeyPem?: string | undefined },
  dataDir: string,
): ServerKeys => {
  if (env.secretKey && env.signingKeyPem)
    return fromStored({ secret: env.secretKey, signing_key_pem: env.signingKeyPem });
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "keys.json");
  let stored: StoredKeys;
  try {
    const fd = openSync(path, "wx", 0o600);
    stored = generate();
    writeSync(fd, JSON.stringify(stored));
    closeSync(fd);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    stored = readKeysFile(path);
  }
  return fromStored({
    secret: env.secretKey ?? stored.secret,
    signing_key_pem: env.signingKeyPem ?? stored.signing_key_pem,
  });
};

/** Another process may be writing the file this instant: wait briefly for it to be complete. */
const readKeysFile = (path: string): StoredKeys => {
  for (let i = 0; i < 50; i++) {
    const text = readFileSync(path, "utf8");
    if (text.endsWith("}")) return JSON.parse(text) as StoredKeys;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  throw new Error(`${path} is incomplete`);
};
