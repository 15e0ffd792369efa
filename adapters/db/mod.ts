/**
 * The database adapter. Every hand-written statement goes through `Sql` (adapters/db/sql.ts: query,
 * one row, execute, transaction, prepared statement, LISTEN, on `pg` and PGlite's public APIs);
 * MikroORM only runs the migrations (adapters/db/database.ts).
 */

export { appendAudit } from "./audit_rows.ts";
export { isDatabaseUnavailable } from "./connection_errors.ts";
export type { Database, DatabaseLog } from "./database.ts";
export { openDatabase } from "./database.ts";
export { postgresBadgeActivity, postgresBadgeCounters, postgresBadgeFigures } from "./postgres_badge_console.ts";
export { postgresBadgeStore } from "./postgres_badge_store.ts";
export { postgresConnectStore } from "./postgres_connect_store.ts";
export { connectionTx, postgresConnectionStore } from "./postgres_connection_store.ts";
export {
  postgresAuthorizationTokenStore,
  postgresOAuthApplicationStore,
  postgresOrganizationStore,
  recordCredentialUse,
} from "./postgres_credential_stores.ts";
export { postgresEarnerStore } from "./postgres_earner_store.ts";
export { postgresEmployeeStore, postgresInvitationStore } from "./postgres_employee_store.ts";
export { postgresEndorsementStore } from "./postgres_endorsement_store.ts";
export { appendEvents, EVENTS_CHANNEL } from "./postgres_event_log.ts";
export { postgresEventFigures, postgresEventStore, postgresOutbox } from "./postgres_event_store.ts";
export { postgresExportStore } from "./postgres_export_store.ts";
export { postgresExternalBadgeStore } from "./postgres_external_badge_store.ts";
export { type ImageStore, postgresImageStore } from "./postgres_image_store.ts";
export { postgresImportStore } from "./postgres_import_store.ts";
export { postgresIssuerAuthorizationStore } from "./postgres_issuer_authorization_store.ts";
export type { EventsListener } from "./postgres_listen.ts";
export { listenForEvents, listenForExports, listenForMail } from "./postgres_listen.ts";
export { postgresMailOutbox } from "./postgres_mail_outbox.ts";
export { postgresAuditLog, postgresMemberStore } from "./postgres_member_store.ts";
export { postgresPathwayStore } from "./postgres_pathway_store.ts";
export { postgresPlatformStore } from "./postgres_platform_store.ts";
export type { CounterState, RateCounter } from "./postgres_rate_counter.ts";
export { postgresRateCounter } from "./postgres_rate_counter.ts";
export { postgresRecommendationStore } from "./postgres_recommendation_store.ts";
export { postgresStatusLists } from "./postgres_status_lists.ts";
export { postgresWebhookLogPartitions } from "./postgres_webhook_partitions.ts";
export {
  postgresDeliveryAdminStore,
  postgresDeliveryFigures,
  postgresDeliveryStore,
  postgresDeliveryTargets,
  postgresWebhookSettingsStore,
} from "./postgres_webhook_store.ts";
export { postgresWorkforceAuthorizationStore } from "./postgres_workforce_store.ts";
export { isRowRefusal } from "./sql.ts";
