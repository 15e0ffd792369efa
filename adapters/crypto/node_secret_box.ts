import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../../core/credentials/mod.ts";
import type { ServerKeys } from "./server_keys.ts";

/** SecretBox on node:crypto: HMAC-SHA-256 digests, AES-256-GCM sealing, 256-bit base64url secrets. */
export const nodeSecretBox = (keys: Pick<ServerKeys, "hmacKey" | "aesKey">): SecretBox => ({
  newSecret: () => randomBytes(32).toString("base64url"),
  digest: (secret) => createHmac("sha256", keys.hmacKey).update(secret).digest("base64url"),
  seal(plain) {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", keys.aesKey, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `v1.${iv.toString("base64url")}.${body.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`;
  },
  open(sealed) {
    const [version, iv, body, tag] = sealed.split(".");
    if (version !== "v1" || !iv || body === undefined || !tag) throw new Error("Unknown sealed value format");
    const decipher = createDecipheriv("aes-256-gcm", keys.aesKey, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  },
  equal(a, b) {
    // Compare digests of both sides so lengths match and timing says nothing about either value.
    const da = createHmac("sha256", keys.hmacKey).update(a).digest();
    const db = createHmac("sha256", keys.hmacKey).update(b).digest();
    return timingSafeEqual(da, db);
  },
});
