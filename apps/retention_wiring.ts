import { type Database, postgresAuditLog, postgresMemberStore } from "../adapters/db/mod.ts";
import { type Log, startRetention } from "../workers/mod.ts";

/** Audit rows past 400 days and expired invitations go, hourly, in every process that runs workers. */
export const startRetentionJob = (db: Database, log: Log): { stop(): Promise<void> } =>
  startRetention(
    { audit: postgresAuditLog(db), invitations: postgresMemberStore(db), clock: () => new Date(), log },
    { intervalMs: 3_600_000, batch: 1000 },
  );
