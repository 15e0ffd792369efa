/**
 * The exact string whose SHA-256 is the recipient identity. Core has no hashing (no `node:`
 * modules; WebCrypto is async and outside core's types), so the adapter hashes this and passes
 * the hex digest to the document builders. Lowercased because verifiers hash the e-mail they
 * are shown in lowercase, whatever case the issuer typed.
 */
export const recipientHashInput = (email: string, salt: string): string => email.trim().toLowerCase() + salt;

/** `sha256$<hex>` as in OB 2.0 `recipient.identity` and OB 3.0 `identityHash`. */
export const recipientIdentity = (sha256Hex: string): string => `sha256$${sha256Hex.toLowerCase()}`;
