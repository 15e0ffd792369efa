import { randomUUID } from "node:crypto";
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
  isDatabaseUnavailable,
  postgresAuthorizationTokenStore,
  postgresOAuthApplicationStore,
  postgresOrganizationStore,
  postgresWorkforceAuthorizationStore,
  recordCredentialUse,
} from "../adapters/db/mod.ts";
import type { MetricsRegistry } from "../adapters/metrics/mod.ts";
import { buildRestApp, cachingAuthenticator } from "../adapters/rest/mod.ts";
import { trpcPlugin } from "../adapters/trpc/mod.ts";
import type { EventRecord } from "../core/events/mod.ts";
import { loadAdminToken } from "./admin_token.ts";
import { wireBadges } from "./badge_wiring.ts";
import type { Config } from "./config.ts";
import { healthOf } from "./health.ts";
import { metricsRegistry, registerDatabaseFigures, webhookApiParts } from "./webhook_wiring.ts";

export interface ApiServer {
  app: FastifyInstance;
  adminToken: string;
  /** The registry `/metrics` renders. */
  metrics: MetricsRegistry;
  close(): Promise<void>;
}

/** Wires the HTTP server (REST, token endpoint, tRPC) from its parts, with plain arguments. */
export const buildApiServer = async (
  config: Config,
  db: Database,
  nc: NatsConnection,
  logger: object | boolean,
  /** The process's metrics; `npm start` passes the one its in-process workers also write to. */
  metrics?: MetricsRegistry,
  /** What this process cannot work without (`/healthz`): the workers of `npm start` also need NATS. */
  required: readonly string[] = ["database"],
): Promise<ApiServer> => {
  const keys = loadServerKeys({ secretKey: config.secretKey, signingKeyPem: config.signingKeyPem }, config.dataDir);
  const secrets = nodeSecretBox(keys);
  const jwt = await accessTokenKeys(keys, config.authUrl);
  const organizations = postgresOrganizationStore(db);
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
  const registry = metrics ?? metricsRegistry();
  if (!metrics) registerDatabaseFigures(registry, db);
  const health = healthOf({ database: () => db.ping(), nats: () => natsHealthy(nc) }, required, registry);
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
    },
    metrics: () => registry.render(),
    health: health.health,
    ready: health.ready,
    unavailable: isDatabaseUnavailable,
  };
  const app = await buildRestApp({ ...deps, plugins: [trpcPlugin(deps, adminToken)] }, { logger });
  log = app.log;
  // Ready from listening until shutdown starts: a balancer stops sending before the port closes.
  app.addHook("onReady", async () => health.setAccepting(true));
  app.addHook("preClose", async () => health.setAccepting(false));
  return {
    app,
    adminToken,
    metrics: registry,
    close: async () => {
      unsubscribe();
      stopHostedInvalidations();
      await app.close();
      await badgeWiring.close();
    },
  };
};
