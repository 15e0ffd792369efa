import { createHash, randomUUID } from "node:crypto";
import {
  credentialSigner,
  dataIntegritySigner,
  nodeSecretBox,
  type ServerKeys,
  uuidv7,
} from "../adapters/crypto/mod.ts";
import { type Database, postgresBadgeStore, postgresRateCounter, postgresStatusLists } from "../adapters/db/mod.ts";
import { type MailLog, sharedMailBudget } from "../adapters/mail/mod.ts";
import {
  type HostedBroadcast,
  type HostedKind,
  type HostedRecordCache,
  hostedRecordCache,
  invalidatingStore,
} from "../adapters/obi/mod.ts";
import type { BadgeRestDeps } from "../adapters/rest/mod.ts";
import type { Config } from "./config.ts";

export interface BadgeWiring {
  badges: BadgeRestDeps;
  /** Calls `listener` after every invalidation of a hosted record (local or from another process). */
  onHostedInvalidation(listener: (kind: HostedKind, id?: string) => void): void;
  close(): Promise<void>;
}

/**
 * The badge parts: the badge store (dropping cached hosted records on every write), the
 * organization's mail budget and the OB 3.0 signer. Mail itself goes through the outbox.
 */
export const wireBadges = async (
  config: Config,
  db: Database,
  keys: Pick<ServerKeys, "signingKey" | "publicKey" | "rsaSigningKey" | "rsaPublicKey" | "hmacKey" | "aesKey">,
  log: () => MailLog & { error(obj: object, msg: string): void },
  /** Tells the other API processes which hosted records changed. */
  broadcast?: HostedBroadcast,
): Promise<BadgeWiring> => {
  const records = hostedRecordCache({ ttlMs: 5_000 });
  const secrets = nodeSecretBox(keys);
  const listeners: ((kind: HostedKind, id?: string) => void)[] = [];
  // Caches built on the same records (the web adapter's badge pages) drop their entries with them.
  const hosted: HostedRecordCache = {
    ...records,
    invalidate(kind, id) {
      records.invalidate(kind, id);
      for (const listener of listeners) listener(kind, id);
    },
  };
  const badges: BadgeRestDeps = {
    issuing: {
      store: invalidatingStore(postgresBadgeStore(db), hosted, broadcast),
      urls: { publicBase: config.publicUrl },
      mailBudget: sharedMailBudget(postgresRateCounter(db), config.limits.mailPerOrganizationPerHour, log),
      acceptTokens: { newToken: secrets.newSecret, digest: secrets.digest, equal: secrets.equal },
    },
    newId: () => uuidv7(),
    newEventId: () => uuidv7(),
    // 122 random bits from Node's batched entropy (a getrandom call per badge costs more).
    newSalt: () => randomUUID().replaceAll("-", ""),
    hosted,
    credentials: await credentialSigner(keys, `${config.baseUrl}/obi/v3/keys`, config.credentialAlg),
    dataIntegrity: await dataIntegritySigner(keys),
    statusLists: postgresStatusLists(db),
    sha256Hex: (input) => createHash("sha256").update(input, "utf8").digest("hex"),
  };
  return {
    badges,
    onHostedInvalidation: (listener) => void listeners.push(listener),
    close: async () => {},
  };
};
