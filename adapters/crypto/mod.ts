export type { CredentialSigner } from "./credential_jwt.ts";
export { credentialSigner } from "./credential_jwt.ts";
export type { AccessTokenKeys } from "./jwt.ts";
export { accessTokenKeys } from "./jwt.ts";
export { nodeSecretBox } from "./node_secret_box.ts";
export type { ServerKeys } from "./server_keys.ts";
export { loadServerKeys } from "./server_keys.ts";
export { uuidv7 } from "./uuid_v7.ts";
export { nodeWebhookCrypto } from "./webhook_crypto.ts";
