import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import {
  type NatsConnection,
  natsHealthy,
  natsHostedInvalidations,
  natsRevocationBroadcast,
  natsSettingsChanges,
  subscribeHostedInvalidations,
  subscribeRevocations,
} from "../adapters/bus/mod.ts";
import { accessTokenKeys, loadServerKeys, nodeSecretBox } from "../adapters/crypto/mod.ts";
import {
  type Database,
  postgresAuthorizationTokenStore,
  postgresConnectStore,
  postgresEarnerStore,
  postgresEmployeeStore,
  postgresInvitationStore,
  postgresOAuthApplicationStore,
  postgresOrganizationStore,
  postgresWorkforceAuthorizationStore,
  recordCredentialUse,
} from "../adapters/db/mod.ts";
import type { MetricsRegistry } from "../adapters/metrics/mod.ts";
import { buildRestApp, cachingAuthenticator } from "../adapters/rest/mod.ts";
import { trpcPlugin } from "../adapters/trpc/mod.ts";
import { webPlugin } from "../adapters/web/mod.ts";
import type { EventRecord } from "../core/events/mod.ts";
import { missingIssuerEmails } from "../core/organizations/mod.ts";
import { loadAdminToken } from "./admin_token.ts";
import { wireBadges } from "./badge_wiring.ts";
import type { Config } from "./config.ts";
import { metricsRegistry, registerDatabaseFigures, webhookApiParts } from "./webhook_wiring.ts";

export interface ApiServer {
  app: FastifyInstance;
  adminToken: string;
  close(): Promise<void>;
}

/** Wires the HTTP server (REST, token endpoint, tRPC) from its parts, with plain arguments. */
/** A configuration the process cannot start with; its message says what to set. */
export class StartupRefused extends Error {
  override name = "StartupRefused";
}

/** Runs `build`; a `StartupRefused` is printed plainly, `cleanUp` runs, and the process exits 2. */
export const orRefuse = async <T>(build: () => Promise<T>, cleanUp: () => Promise<void>): Promise<T> => {
  try {
    return await build();
  } catch (err) {
    if (!(err instanceof StartupRefused)) throw err;
    console.error(`Laurel cannot start: ${err.message}`);
    await cleanUp();
    process.exit(2);
  }
};

export const buildApiServer = async (
  config: Config,
  db: Database,
  nc: NatsConnection,
  logger: object | boolean,
  /** The process's metrics; `npm start` passes the one its in-process workers also write to. */
  metrics?: MetricsRegistry,
): Promise<ApiServer> => {
  const keys = loadServerKeys({ secretKey: config.secretKey, signingKeyPem: config.signingKeyPem }, config.dataDir);
  const secrets = nodeSecretBox(keys);
  const jwt = await accessTokenKeys(keys, config.authUrl);
  const organizations = postgresOrganizationStore(db);
  // Every issuer profile needs a contact e-mail (OB 2.0): organizations made before it was
  // required get the configured default, or the process refuses to serve their profiles.
  const emails = missingIssuerEmails(await organizations.countWithoutEmail(), config.issuerDefaultEmail);
  if (emails.action === "refuse") throw new StartupRefused(emails.message);
  if (emails.action === "fill") await organizations.fillMissingEmail(emails.email, new Date());
  const apps = postgresOAuthApplicationStore(db);
  const tokens = postgresAuthorizationTokenStore(db);
  const clock = (): Date => new Date();
  const newId = (): string => randomUUID();
  let log: { error(o: object, m: string): void; info(o: object, m: string): void } = console;
  const authenticator = cachingAuthenticator({
    tokens,
    apps,
    secrets,
    verifyAccessToken: jwt.verify,
    writeUse: (ref, at, allowed) => recordCredentialUse(db, ref, at, allowed),
    onWriteError: (err) => log.error({ err }, "could not record credential use"),
  });
  const revocations = natsRevocationBroadcast(nc, authenticator.revoke);
  const unsubscribe = subscribeRevocations(nc, authenticator.revoke);
  const adminToken = loadAdminToken(config.adminToken, config.dataDir);
  const badgeWiring = await wireBadges(config, db, keys, () => log, natsHostedInvalidations(nc));
  const stopHostedInvalidations = subscribeHostedInvalidations(nc, (item) =>
    badgeWiring.badges.hosted.invalidate(item.kind, item.id),
  );
  const webhooks = webhookApiParts(db, config.webhooks);
  const employeeStore = postgresEmployeeStore(db);
  const earnerStore = postgresEarnerStore(db);
  const connectStore = postgresConnectStore(db);
  const registry = metrics ?? metricsRegistry();
  if (!metrics) registerDatabaseFigures(registry, db);
  const deps = {
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    clock,
    newId,
    organizations,
    apps,
    tokens,
    secrets,
    revocations,
    authenticator,
    signer: jwt.signer,
    jwks: jwt.jwks,
    badges: badgeWiring.badges,
    events: webhooks.events,
    webhooks: { ...webhooks.admin, onSettingsChanged: natsSettingsChanges(nc) },
    workforce: {
      authorization: postgresWorkforceAuthorizationStore(db),
      appendEvents: (events: EventRecord[]) => badgeWiring.badges.issuing.store.appendEvents(events),
      employees: employeeStore,
    },
    employees: {
      store: employeeStore,
      invitations: {
        mailer: badgeWiring.mailer,
        publicUrl: config.publicUrl,
        budget: { perWindow: config.invitationsPerHour, windowMs: 3_600_000, used: new Map() },
        ...postgresInvitationStore(db),
      },
    },
    connect: {
      store: connectStore,
      s256: (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url"),
      verifyAccessToken: jwt.verify,
      earners: earnerStore,
      publicUrl: config.publicUrl,
    },
    metrics: () => registry.render(),
    health: async () => ({ database: await db.ping(), nats: await natsHealthy(nc) }),
  };
  const web = webPlugin({
    publicUrl: config.publicUrl,
    apiBase: config.baseUrl,
    earners: {
      store: earnerStore,
      issuing: badgeWiring.badges.issuing,
      digest: (token) => createHash("sha256").update(token, "utf8").digest("hex"),
    },
    clock,
    context: () => ({
      now: clock(),
      newId: badgeWiring.badges.newId,
      newEventId: badgeWiring.badges.newEventId,
      newSalt: badgeWiring.badges.newSalt,
      newToken: () => randomBytes(32).toString("base64url"),
    }),
    mailer: badgeWiring.mailer,
    sha256Hex: badgeWiring.badges.sha256Hex,
    onHostedInvalidation: badgeWiring.onHostedInvalidation,
    connect: {
      store: connectStore,
      secrets,
      authPath: new URL(config.authUrl).pathname.replace(/\/$/, ""),
      application: (clientId) => authenticator.application(clientId),
      organizationName: async (id) => (await organizations.get(id))?.name ?? null,
    },
  });
  const app = await buildRestApp({ ...deps, plugins: [trpcPlugin(deps, adminToken), web] }, { logger });
  log = app.log;
  return {
    app,
    adminToken,
    close: async () => {
      unsubscribe();
      stopHostedInvalidations();
      await app.close();
      await badgeWiring.close();
    },
  };
};
