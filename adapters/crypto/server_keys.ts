import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/**
 * The server's keys: one 32-byte root secret (HMAC and AES keys are derived from it), an Ed25519
 * key and an RSA key. Every key is a KeyObject: on Node 24, `createHmac` or `createCipheriv` with a
 * raw Buffer key spends most of its time checking whether the key is a KeyObject or a CryptoKey
 * (docs/benchmarks.md).
 */
export interface ServerKeys {
  hmacKey: KeyObject;
  aesKey: KeyObject;
  /** Seals the relay's event messages on the bus (`eventMessageSeal`). */
  busKey: KeyObject;
  /** Ed25519: access tokens, and Open Badges 3.0 credentials where EdDSA is chosen. */
  signingKey: KeyObject;
  publicKey: KeyObject;
  /** RSA: Open Badges 3.0 credentials and status lists (RS256), the algorithm every OB 3.0 verifier supports. */
  rsaSigningKey: KeyObject;
  rsaPublicKey: KeyObject;
}

interface StoredKeys {
  secret: string; // base64url, 32 bytes
  signing_key_pem: string; // PKCS#8
  rsa_signing_key_pem: string; // PKCS#8
}

/** The RSA key Laurel generates; a key given in the environment may be larger, never below `RSA_MIN_BITS`. */
export const RSA_BITS = 3072;
const RSA_MIN_BITS = 2048;

const derive = (root: Buffer, info: string): KeyObject =>
  createSecretKey(Buffer.from(hkdfSync("sha256", root, Buffer.alloc(0), info, 32)));

const fromStored = (stored: StoredKeys): ServerKeys => {
  const root = Buffer.from(stored.secret, "base64url");
  if (root.length < 32) throw new Error("LAUREL_SECRET_KEY must be at least 32 bytes, base64url-encoded");
  const signingKey = createPrivateKey(stored.signing_key_pem);
  if (signingKey.asymmetricKeyType !== "ed25519")
    throw new Error("LAUREL_SIGNING_KEY must be an Ed25519 private key (PKCS#8 PEM)");
  const rsaSigningKey = createPrivateKey(stored.rsa_signing_key_pem);
  if (
    rsaSigningKey.asymmetricKeyType !== "rsa" ||
    (rsaSigningKey.asymmetricKeyDetails?.modulusLength ?? 0) < RSA_MIN_BITS
  )
    throw new Error(`LAUREL_RSA_SIGNING_KEY must be an RSA private key of at least ${RSA_MIN_BITS} bits (PKCS#8 PEM)`);
  return {
    hmacKey: derive(root, "laurel/hmac-sha256/v1"),
    aesKey: derive(root, "laurel/aes-256-gcm/v1"),
    busKey: derive(root, "laurel/bus-hmac-sha256/v1"),
    signingKey,
    publicKey: createPublicKey(signingKey),
    rsaSigningKey,
    rsaPublicKey: createPublicKey(rsaSigningKey),
  };
};

const newRsaKeyPem = (): string =>
  generateKeyPairSync("rsa", { modulusLength: RSA_BITS })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();

const generate = (): StoredKeys => ({
  secret: randomBytes(32).toString("base64url"),
  signing_key_pem: generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  rsa_signing_key_pem: newRsaKeyPem(),
});

export interface KeysFromEnv {
  secretKey?: string | undefined;
  signingKeyPem?: string | undefined;
  rsaSigningKeyPem?: string | undefined;
}

/**
 * Keys from the environment (`LAUREL_SECRET_KEY`, `LAUREL_SIGNING_KEY`, `LAUREL_RSA_SIGNING_KEY`),
 * or else generated once into `DATA_DIR/keys.json` (mode 0600), which every process sharing that
 * directory then reads. A keys file written before a key existed gets that key added once
 * (`withAddedKeys`): every process then signs with the same one.
 */
export const loadServerKeys = (env: KeysFromEnv, dataDir: string): ServerKeys => {
  if (env.secretKey && env.signingKeyPem && env.rsaSigningKeyPem)
    return fromStored({
      secret: env.secretKey,
      signing_key_pem: env.signingKeyPem,
      rsa_signing_key_pem: env.rsaSigningKeyPem,
    });
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "keys.json");
  let stored: Partial<StoredKeys>;
  try {
    const fd = openSync(path, "wx", 0o600);
    stored = generate();
    writeSync(fd, JSON.stringify(stored));
    closeSync(fd);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    stored = readKeysFile(path);
  }
  const complete = stored.rsa_signing_key_pem ? (stored as StoredKeys) : withAddedKeys(path);
  return fromStored({
    secret: env.secretKey ?? complete.secret,
    signing_key_pem: env.signingKeyPem ?? complete.signing_key_pem,
    rsa_signing_key_pem: env.rsaSigningKeyPem ?? complete.rsa_signing_key_pem,
  });
};

/** Another process may be writing the file this instant: wait briefly for it to be complete. */
const readKeysFile = (path: string): Partial<StoredKeys> & Pick<StoredKeys, "secret" | "signing_key_pem"> => {
  for (let i = 0; i < 50; i++) {
    const text = readFileSync(path, "utf8");
    if (text.endsWith("}")) return JSON.parse(text) as StoredKeys;
    sleep(20);
  }
  throw new Error(`${path} is incomplete`);
};

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** A lock older than this was left by a process that died holding it (the work under it takes milliseconds). */
const STALE_LOCK_MS = 10_000;

/**
 * The keys file with the keys it lacks added, by one process for all: the key is generated first
 * (the slow part), then, under a lock file created exclusively, the file is read again and, if it
 * still lacks the key, rewritten whole through a rename (readers see the old file or the new one,
 * never a part). A process that finds the key already added uses that one and drops its own.
 */
const withAddedKeys = (path: string): StoredKeys => {
  const rsa = newRsaKeyPem();
  const lock = `${path}.lock`;
  for (let i = 0; ; i++) {
    let fd: number;
    try {
      fd = openSync(lock, "wx", 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (lockAge(lock) > STALE_LOCK_MS) unlinkStale(lock);
      else if (i > 1_000) throw new Error(`${lock} is held by another process`);
      else sleep(20);
      continue;
    }
    try {
      const current = readKeysFile(path);
      if (current.rsa_signing_key_pem) return current as StoredKeys;
      const next: StoredKeys = { ...current, rsa_signing_key_pem: rsa };
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(next), { mode: 0o600 });
      renameSync(tmp, path);
      return next;
    } finally {
      closeSync(fd);
      unlinkSync(lock);
    }
  }
};

const lockAge = (lock: string): number => {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
};

const unlinkStale = (lock: string): void => {
  try {
    unlinkSync(lock);
  } catch {
    // Another process removed it first.
  }
};
