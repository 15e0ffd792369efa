import { createHash } from "node:crypto";
import { externalDataIntegrity, joseJwsCheck, uuidv7 } from "../adapters/crypto/mod.ts";
import { type Database, postgresExternalBadgeStore, postgresRateCounter } from "../adapters/db/mod.ts";
import { guardedDocuments } from "../adapters/webhook_http/mod.ts";
import type { ExternalBadgeDeps } from "../core/workforce/mod.ts";
import { type ExternalReverifier, type Log, startExternalReverifier } from "../workers/mod.ts";
import type { Config } from "./config.ts";

/** One fetch of another issuer's document, redirects included. */
const FETCH_TIMEOUT_MS = 10_000;

export interface ExternalBadgeWiring {
  deps: ExternalBadgeDeps;
  close(): Promise<void>;
}

/**
 * External badges: stored in PostgreSQL, fetched under the webhook SSRF rule (the same allowlist
 * and private CAs), VC-JWT signatures checked with jose and Data Integrity proofs with Digital
 * Bazaar's libraries; the verifications earners start are counted in the rate-limit counter every
 * process shares, when `limits` are given.
 */
export const wireExternalBadges = (
  config: Pick<Config, "webhooks"> & { limits?: Pick<Config["limits"], "externalBadgeChecks"> },
  db: Database,
): ExternalBadgeWiring => {
  const documents = guardedDocuments({
    allowedNetworks: config.webhooks.allowedNetworks,
    caFile: config.webhooks.caFile,
    timeoutMs: FETCH_TIMEOUT_MS,
  });
  return {
    deps: {
      store: postgresExternalBadgeStore(db),
      verify: {
        documents,
        jws: joseJwsCheck(),
        dataIntegrity: externalDataIntegrity(documents),
        sha256Hex: (input) => createHash("sha256").update(input, "utf8").digest("hex"),
      },
      ...(config.limits
        ? { budget: { counter: postgresRateCounter(db), limits: config.limits.externalBadgeChecks } }
        : {}),
    },
    close: () => documents.close(),
  };
};

/** The daily re-verification, in every process that runs workers. */
export const startExternalReverification = (
  config: Pick<Config, "webhooks" | "publicUrl">,
  db: Database,
  log: Log,
): { reverifier: ExternalReverifier; stop(): Promise<void> } => {
  // The daily re-verification is Laurel's own round, spread over the day: no earner's budget.
  const wiring = wireExternalBadges({ webhooks: config.webhooks }, db);
  const reverifier = startExternalReverifier(
    {
      ...wiring.deps,
      log,
      context: () => ({ now: new Date(), newId: uuidv7, newEventId: uuidv7, urls: { publicBase: config.publicUrl } }),
    },
    { intervalMs: 60_000, batch: 50, concurrency: 8, leaseMs: 600_000 },
  );
  return {
    reverifier,
    stop: async () => {
      await reverifier.stop();
      await wiring.close();
    },
  };
};
