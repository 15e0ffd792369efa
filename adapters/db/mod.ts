export { openDatabase } from "./orm.ts";
export type { Database, Em, Orm } from "./orm.ts";
export {
  postgresAuthorizationTokenStore,
  postgresOAuthApplicationStore,
  postgresOrganizationStore,
  recordCredentialUse,
} from "./postgres_credential_stores.ts";
export { appendEvents } from "./postgres_event_log.ts";
