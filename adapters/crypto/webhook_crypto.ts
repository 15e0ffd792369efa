import { createHmac, createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import { WEBHOOK_SECRET_BYTES, type WebhookCrypto } from "../../core/webhooks/mod.ts";
import { boundedCache } from "../cache/mod.ts";

/** Standard Webhooks keys and signatures on node:crypto: HMAC-SHA256, standard base64. */
export const nodeWebhookCrypto = (): WebhookCrypto => {
  // Decoding the same few keys on every attempt is wasted work: keep the last ones, as KeyObjects
  // (a raw Buffer key costs several times the HMAC itself on Node 24: see ServerKeys).
  const keys = boundedCache<KeyObject>({ maxEntries: 1_000, maxBytes: 1024 * 1024, ttlMs: 0 });
  return {
    newKey: () => randomBytes(WEBHOOK_SECRET_BYTES).toString("base64"),
    sign(keyBase64, input) {
      let key = keys.get(keyBase64);
      if (!key) {
        key = createSecretKey(Buffer.from(keyBase64, "base64"));
        keys.set(keyBase64, key);
      }
      return createHmac("sha256", key).update(input, "utf8").digest("base64");
    },
  };
};
