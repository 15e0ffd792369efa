import type { ServerKeys } from "../adapters/crypto/mod.ts";
import { type Database, isRowRefusal, postgresImportStore } from "../adapters/db/mod.ts";
import { type Log, startImportWorker } from "../workers/mod.ts";
import { wireBadges } from "./badge_wiring.ts";
import type { Config } from "./config.ts";

/**
 * The CSV imports' worker, in every process that runs workers: it issues the running imports'
 * rows with the same issuing parts as the API (mail budget, notification tokens, addresses).
 */
export const startImportJob = async (
  config: Config,
  db: Database,
  keys: Pick<ServerKeys, "signingKey" | "publicKey" | "rsaSigningKey" | "rsaPublicKey" | "hmacKey" | "aesKey">,
  log: Log,
): Promise<{ stop(): Promise<void> }> => {
  const { badges } = await wireBadges(config, db, keys, () => log);
  return startImportWorker(
    {
      store: postgresImportStore(db),
      issuing: badges.issuing,
      urls: badges.issuing.urls,
      context: () => ({
        now: new Date(),
        newId: badges.newId,
        newEventId: badges.newEventId,
        newSalt: badges.newSalt,
      }),
      isRowRefusal,
      log,
    },
    // An idle worker looks once a second (one indexed query): an import starts within a second.
    { intervalMs: 200, idleMaxMs: 1000 },
  );
};
