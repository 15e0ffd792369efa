import { createHash, randomBytes } from "node:crypto";
import { credentialSigner, dataIntegritySigner, type ServerKeys, uuidv7 } from "../adapters/crypto/mod.ts";
import {
  type Database,
  listenForExports,
  postgresEarnerStore,
  postgresEndorsementStore,
  postgresExportStore,
  postgresImageStore,
  postgresMailOutbox,
} from "../adapters/db/mod.ts";
import {
  type BadgeImageBaker,
  type BadgeRecords,
  badgeImageBaker,
  badgeRecords,
  type DataIntegrityCredentials,
  type DataIntegritySigning,
  dataIntegrityCredentials,
  endorsementCredentials,
  storedBadgeImages,
} from "../adapters/obi/mod.ts";
import type { CredentialSigning } from "../adapters/rest/mod.ts";
import { writeEarnerExport } from "../adapters/web/mod.ts";
import type { BadgeView } from "../core/issuing/mod.ts";
import { startEarnerExporter } from "../workers/mod.ts";
import type { Config } from "./config.ts";

const sha256Hex = (input: string) => createHash("sha256").update(input, "utf8").digest("hex");

/** The badge records as the hosted routes serve them, and images baked from them. */
export const wireBaking = (
  config: Pick<Config, "baseUrl" | "publicUrl">,
  db: Database,
  credentials: Pick<CredentialSigning, "sign">,
  signer: DataIntegritySigning,
  log: { warn(obj: object, msg: string): void },
  limits?: Parameters<typeof badgeImageBaker>[0]["limits"],
): {
  records: BadgeRecords;
  dataIntegrity: DataIntegrityCredentials;
  baker: BadgeImageBaker;
  withEndorsements(view: BadgeView): Promise<BadgeView>;
} => {
  const records = badgeRecords({
    urls: { obiBase: `${config.baseUrl}/obi/v2`, v3Base: `${config.baseUrl}/obi/v3`, publicBase: config.publicUrl },
    credentials,
    sha256Hex,
  });
  const dataIntegrity = dataIntegrityCredentials({
    records,
    signer,
    urls: { v3Base: `${config.baseUrl}/obi/v3` },
    ...(limits ? { limits } : {}),
  });
  const baking = badgeImageBaker({
    records,
    dataIntegrity,
    images: storedBadgeImages(postgresImageStore(db)),
    // A stored image is named `<sha256>.<png|svg>`; the images table is keyed by the hash alone.
    storedImageOf: (view) => view.template.image?.split(".")[0] ?? null,
    log,
    ...(limits ? { limits } : {}),
  });
  const endorsed = endorsementCredentials({
    store: postgresEndorsementStore(db),
    credentials,
    urls: { obiBase: `${config.baseUrl}/obi/v2`, v3Base: `${config.baseUrl}/obi/v3` },
  });
  // The VC-JWT baked into an image embeds the template's accepted endorsements, as the hosted one
  // does; they are part of the payload its cache key digests, so a change bakes anew.
  const withEndorsements = async (view: BadgeView): Promise<BadgeView> => ({
    ...view,
    endorsementJwt: await endorsed.of("badge_template", view.template.id),
  });
  const baker: BadgeImageBaker = {
    types: baking.types,
    bake: async (view, type, choice) =>
      baking.bake(choice === "ob3" ? await withEndorsements(view) : view, type, choice),
  };
  return { records, dataIntegrity, baker, withEndorsements };
};

/** The earners' exports, written in the worker processes (or `npm start`'s one process). */
export const startEarnerExports = async (
  config: Pick<Config, "baseUrl" | "publicUrl" | "credentialAlg"> & { mail: { pollIntervalMs: number } },
  db: Database,
  keys: Pick<ServerKeys, "signingKey" | "publicKey" | "rsaSigningKey" | "rsaPublicKey">,
  log: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  },
): Promise<{ stop(): Promise<void> }> => {
  const credentials = await credentialSigner(keys, `${config.baseUrl}/obi/v3/keys`, config.credentialAlg);
  // An export bakes each badge once: a small cache, so a large wallet does not fill it.
  const { records, dataIntegrity, baker, withEndorsements } = wireBaking(
    config,
    db,
    credentials,
    await dataIntegritySigner(keys),
    log,
    {
      maxEntries: 64,
      maxBytes: 4 * 1024 * 1024,
      ttlMs: 60_000,
    },
  );
  const store = postgresExportStore(db);
  const deps = {
    earners: postgresEarnerStore(db),
    exports: store,
    records,
    withEndorsements,
    dataIntegrity,
    baker,
    outbox: postgresMailOutbox(db),
    publicUrl: config.publicUrl,
    clock: () => new Date(),
    newId: uuidv7,
    newToken: () => randomBytes(32).toString("base64url"),
    digest: sha256Hex,
  };
  const exporter = await startEarnerExporter(
    {
      store,
      write: (job) => writeEarnerExport(deps, job),
      clock: deps.clock,
      log,
      listen: (onNotify) => listenForExports(db, onNotify, (err) => log.warn({ err }, "export notifications lost")),
    },
    // A request's notification wakes the exporter; the safety poll finds what a lost one left, and
    // leases and links that ran out. Without a listener, the mail poll's pace is plenty.
    { intervalMs: Math.max(config.mail.pollIntervalMs, 1_000), safetyPollMs: 30_000, relistenMs: 5_000 },
  );
  return { stop: () => exporter.stop() };
};
