import { createHmac, randomBytes } from "node:crypto";
import { WEBHOOK_SECRET_BYTES, type WebhookCrypto } from "../../core/webhooks/mod.ts";

/** Standard Webhooks keys and signatures on node:crypto: HMAC-SHA256, standard base64. */
export const nodeWebhookCrypto = (): WebhookCrypto => {
  // Decoding the same few keys on every attempt is wasted work: keep the last ones.
  const keys = new Map<string, Buffer>();
  return {
    newKey: () => randomBytes(WEBHOOK_SECRET_BYTES).toString("base64"),
    sign(keyBase64, input) {
      let key = keys.get(keyBase64);
      if (!key) {
        if (keys.size > 1000) keys.clear();
        key = Buffer.from(keyBase64, "base64");
        keys.set(keyBase64, key);
      }
      return createHmac("sha256", key).update(input, "utf8").digest("base64");
    },
  };
};
