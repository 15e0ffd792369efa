/**
 * Standard Webhooks signing (https://www.standardwebhooks.com). Core says what to sign and how to
 * write the headers; the adapter computes HMAC-SHA256 with the key bytes (base64-decoded secret)
 * and encodes each signature in standard base64.
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Key size the adapter generates for a new secret. */
export const WEBHOOK_SECRET_BYTES = 32;
/** After a rotation the previous secret signs beside the new one this long. */
export const SECRET_ROTATION_OVERLAP_SECONDS = 86_400;

const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `whsec_` + the key bytes in standard base64. */
export const formatWebhookSecret = (keyBase64: string): string => `${WEBHOOK_SECRET_PREFIX}${keyBase64}`;

/**
 * The base64 key of a `whsec_` secret, or undefined when the text is not one: the prefix, padded
 * standard base64, and a key of 24 to 64 bytes.
 *
 * @example parseWebhookSecret("whsec_" + "A".repeat(44)) // "AAAA...A" (44 characters, 33 bytes)
 */
export const parseWebhookSecret = (secret: string): string | undefined => {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return undefined;
  const b64 = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (b64.length === 0 || !BASE64.test(b64)) return undefined;
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  const bytes = (b64.length / 4) * 3 - padding;
  return bytes >= MIN_KEY_BYTES && bytes <= MAX_KEY_BYTES ? b64 : undefined;
};

/** `webhook-timestamp`: whole seconds since the epoch. */
export const webhookTimestamp = (now: Date): number => Math.floor(now.getTime() / 1000);

/**
 * The exact text each secret signs: `${webhookId}.${timestampSeconds}.${body}`, where body is the
 * request body byte for byte.
 *
 * @example signingInput("0190...", 1700000000, "{}") // "0190....1700000000.{}"
 */
export const signingInput = (webhookId: string, timestampSeconds: number, body: string): string => {
  if (!Number.isSafeInteger(timestampSeconds)) throw new RangeError("timestampSeconds must be an integer");
  return `${webhookId}.${timestampSeconds}.${body}`;
};

/**
 * `webhook-signature`: `v1,<sig>` per signing secret, separated by spaces (the receiver accepts
 * any one). Throws when there is no signature: an unsigned delivery is never sent.
 */
export const formatSignatureHeader = (signaturesBase64: readonly string[]): string => {
  if (signaturesBase64.length === 0) throw new RangeError("at least one signature is required");
  return signaturesBase64.map((s) => `v1,${s}`).join(" ");
};

/** The three Standard Webhooks headers of one attempt (signed afresh for every attempt). */
export const webhookHeaders = (h: {
  webhookId: string;
  timestampSeconds: number;
  signaturesBase64: readonly string[];
}): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> => ({
  "webhook-id": h.webhookId,
  "webhook-timestamp": String(h.timestampSeconds),
  "webhook-signature": formatSignatureHeader(h.signaturesBase64),
});

export interface SigningSecrets {
  current: string | null;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/**
 * The secrets that sign now: the current one, and the previous one until it expires (24 hours
 * after a rotation).
 */
export const activeSecrets = (s: SigningSecrets & { now: Date }): string[] => {
  const out: string[] = [];
  if (s.current) out.push(s.current);
  if (s.previous && s.previousExpiresAt && s.now.getTime() < s.previousExpiresAt.getTime()) out.push(s.previous);
  return out;
};

/**
 * Secrets after a rotation at `now`: `newSecret` becomes current, the old current signs beside it
 * for `SECRET_ROTATION_OVERLAP_SECONDS`. (A rotation during an overlap drops the older previous.)
 */
export const rotateSecrets = (current: string | null, newSecret: string, now: Date): SigningSecrets => ({
  current: newSecret,
  previous: current,
  previousExpiresAt: current ? new Date(now.getTime() + SECRET_ROTATION_OVERLAP_SECONDS * 1000) : null,
});
