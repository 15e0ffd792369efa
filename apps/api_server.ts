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
  watchReconnects,
} from "../adapters/bus/mod.ts";
import { accessTokenKeys, loadServerKeys, nodeSecretBox, uuidv7 } from "../adapters/crypto/mod.ts";
import {
  type Database,
  isDatabaseUnavailable,
  postgresAuditLog,
  postgresAuthorizationTokenStore,
  postgresBadgeActivity,
  postgresBadgeCounters,
  postgresBadgeFigures,
  postgresConnectionStore,
  postgresConnectStore,
  postgresEarnerStore,
  postgresEmployeeStore,
  postgresEndorsementStore,
  postgresExportStore,
  postgresImageStore,
  postgresImportStore,
  postgresInvitationStore,
  postgresIssuerAuthorizationStore,
  postgresMailOutbox,
  postgresMemberStore,
  postgresOAuthApplicationStore,
  postgresOrganizationStore,
  postgresPathwayStore,
  postgresPlatformStore,
  postgresRateCounter,
  postgresRecommendationStore,
  postgresWorkforceAuthorizationStore,
  recordCredentialUse,
} from "../adapters/db/mod.ts";
import type { MetricsRegistry } from "../adapters/metrics/mod.ts";
import { buildAdminApp, buildRestApp, cachingAuthenticator } from "../adapters/rest/mod.ts";
import { trpcPlugin } from "../adapters/trpc/mod.ts";
import { uploadSlots } from "../adapters/uploads/mod.ts";
import { consoleMembers, webPlugin } from "../adapters/web/mod.ts";
import { missingIssuerEmails } from "../core/organizations/mod.ts";
import { loadAdminToken } from "./admin_token.ts";
import { wireBadges } from "./badge_wiring.ts";
import type { Config } from "./config.ts";
import { wireBaking } from "./export_wiring.ts";
import { wireExternalBadges } from "./external_badge_wiring.ts";
import { healthOf } from "./health.ts";
import { metricsRegistry, registerDatabaseFigures, webhookApiParts } from "./webhook_wiring.ts";

export interface ApiServer {
  /** The public listener: REST, token endpoint, hosted records, /healthz. */
  app: FastifyInstance;
  /** The admin listener: tRPC, /metrics, /healthz. */
  admin: FastifyInstance;
  adminToken: string;
  /** Listens on PORT/HOST and ADMIN_PORT/ADMIN_HOST. */
  listen(): Promise<void>;
  /** The registry `/metrics` renders. */
  metrics: MetricsRegistry;
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
  /** What this process cannot work without (`/healthz`): the workers of `npm start` also need NATS. */
  required: readonly string[] = ["database"],
): Promise<ApiServer> => {
  const keys = loadServerKeys(
    { secretKey: config.secretKey, signingKeyPem: config.signingKeyPem, rsaSigningKeyPem: config.rsaSigningKeyPem },
    config.dataDir,
  );
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
  let log: { error(o: object, m: string): void; warn(o: object, m: string): void; info(o: object, m: string): void } =
    console;
  // The subscriptions below start before the app's logger exists: they log through this.
  const busLog = { warn: (o: object, m: string) => log.warn(o, m), error: (o: object, m: string) => log.error(o, m) };
  const authenticator = cachingAuthenticator({
    now: () => performance.now(),
    tokens,
    apps,
    secrets,
    verifyAccessToken: jwt.verify,
    writeUse: (ref, at, allowed) => recordCredentialUse(db, ref, at, allowed),
    onWriteError: (err) => log.error({ err }, "could not record credential use"),
  });
  const revocations = natsRevocationBroadcast(nc, authenticator.revoke);
  const unsubscribe = subscribeRevocations(nc, authenticator.revoke, busLog);
  const adminToken = loadAdminToken(config.adminToken, config.dataDir);
  const badgeWiring = await wireBadges(config, db, keys, () => log, natsHostedInvalidations(nc));
  const stopHostedInvalidations = subscribeHostedInvalidations(
    nc,
    (item) => badgeWiring.badges.hosted.invalidate(item.kind, item.id),
    busLog,
  );
  // Revocations and invalidations sent while this process was cut off from NATS never arrived.
  watchReconnects(nc, () => {
    authenticator.forgetAll();
    for (const kind of ["assertion", "badge_class", "issuer", "profile", "credential"] as const) {
      badgeWiring.badges.hosted.invalidate(kind);
    }
    log.info({}, "reconnected to NATS: credential and hosted-record caches dropped");
  });
  const webhooks = webhookApiParts(db, config.webhooks);
  const employeeStore = postgresEmployeeStore(db);
  const earnerStore = postgresEarnerStore(db);
  const connectStore = postgresConnectStore(db);
  const platformStore = postgresPlatformStore(db);
  const externalBadges = wireExternalBadges(config, db);
  // Every mail the pages and invitations send goes through the outbox; a mail sender delivers it.
  const mailOutbox = postgresMailOutbox(db);
  const registry = metrics ?? metricsRegistry();
  if (!metrics) registerDatabaseFigures(registry, db);
  // One budget for every invitation mail of an organization: employees and members alike.
  const invitationBudget = { perWindow: config.invitationsPerHour, windowMs: 3_600_000, used: new Map() };
  const health = healthOf({ database: () => db.ping(), nats: () => natsHealthy(nc) }, required, registry);
  // Images Laurel stores (issuer and template images), named by the SHA-256 of their bytes.
  const images = {
    store: postgresImageStore(db),
    sha256: (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex"),
  };
  // A changed profile drops the issuer records it shows, whichever face changed it.
  const onOrganizationChanged = (id: string) => {
    badgeWiring.badges.hosted.invalidate("issuer", id);
    badgeWiring.badges.hosted.invalidate("profile", id);
  };
  // A published or withdrawn endorsement changes what embeds or shows it: the profile, or every
  // credential of the template (the cache keys credentials by badge, not by template) and its
  // badge pages (dropped with the badge class), on every process.
  const hostedBroadcast = natsHostedInvalidations(nc);
  const recommendationStore = postgresRecommendationStore(db);
  const endorsements = {
    store: postgresEndorsementStore(db),
    v3Base: `${config.baseUrl}/obi/v3`,
    publicUrl: config.publicUrl,
    newEventId: uuidv7,
    async onChanged(kind: "badge_template" | "organization", targetId: string) {
      const items: { kind: "profile" | "credential" | "badge_class"; id?: string }[] =
        kind === "organization"
          ? [{ kind: "profile", id: targetId }]
          : [{ kind: "credential" }, { kind: "badge_class", id: targetId }];
      for (const item of items) badgeWiring.badges.hosted.invalidate(item.kind, item.id);
      await hostedBroadcast(items);
    },
  };
  const issuerAuthorizations = postgresIssuerAuthorizationStore(db);
  const deps = {
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    publicUrl: config.publicUrl,
    onOrganizationChanged,
    endorsements,
    recommendations: {
      store: recommendationStore,
      mailBudget: badgeWiring.badges.issuing.mailBudget,
      urls: badgeWiring.badges.issuing.urls,
    },
    pathways: postgresPathwayStore(db),
    issuerAuthorizations,
    clock,
    newId,
    organizations,
    apps,
    tokens,
    secrets,
    revocations,
    authenticator,
    signer: jwt.signer,
    jwks: { keys: [...jwt.jwks.keys, ...badgeWiring.badges.credentials.publicJwks] },
    badges: badgeWiring.badges,
    images,
    events: webhooks.events,
    webhooks: { ...webhooks.admin, onSettingsChanged: natsSettingsChanges(nc) },
    workforce: {
      authorization: postgresWorkforceAuthorizationStore(db),
      employees: employeeStore,
    },
    employees: {
      store: employeeStore,
      invitations: {
        outbox: mailOutbox,
        newId: uuidv7,
        publicUrl: config.publicUrl,
        budget: invitationBudget,
        ...postgresInvitationStore(db),
      },
      externalBadges: externalBadges.deps.store,
    },
    members: { members: postgresMemberStore(db), secrets, publicUrl: config.publicUrl, budget: invitationBudget },
    imports: postgresImportStore(db),
    // One set for the process: the API's imports and the console's and wallet's uploads share it.
    uploads: uploadSlots(config.limits.uploadsInFlight),
    connect: {
      store: connectStore,
      s256: (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url"),
      verifyAccessToken: jwt.verify,
      earners: earnerStore,
      publicUrl: config.publicUrl,
      platforms: platformStore,
    },
    obApi: {
      platforms: platformStore,
      site: {
        name: config.obApi.name,
        imageUrl: config.obApi.imageUrl,
        privacyUrl: config.obApi.privacyUrl,
        termsUrl: config.obApi.termsUrl,
      },
      maxPlatforms: config.obApi.maxPlatforms,
      // Registrations fill a table: bounded like the mail budget, whatever RATE_LIMITS says.
      registrations: { perHour: config.obApi.registrationsPerHour, counter: postgresRateCounter(db) },
      externalBadges: externalBadges.deps,
      externalContext: () => ({
        now: clock(),
        newId: badgeWiring.badges.newId,
        newEventId: badgeWiring.badges.newEventId,
        urls: badgeWiring.badges.issuing.urls,
      }),
      earners: earnerStore,
    },
    metrics: () => registry.render(),
    rateLimits: { settings: config.limits.rate, shared: postgresRateCounter(db) },
    health: health.health,
    ready: health.ready,
    unavailable: isDatabaseUnavailable,
  };
  // The logger is read when a warning is written: the app's own exists by then.
  const { baker: bakedImages } = wireBaking(
    config,
    db,
    badgeWiring.badges.credentials,
    badgeWiring.badges.dataIntegrity,
    {
      warn: (o, m) => log.warn(o, m),
    },
  );
  const web = webPlugin({
    publicUrl: config.publicUrl,
    apiBase: config.baseUrl,
    earners: {
      store: earnerStore,
      issuing: badgeWiring.badges.issuing,
      digest: (token) => createHash("sha256").update(token, "utf8").digest("hex"),
    },
    connections: postgresConnectionStore(db),
    clock,
    context: () => ({
      now: clock(),
      newId: badgeWiring.badges.newId,
      newEventId: badgeWiring.badges.newEventId,
      newSalt: badgeWiring.badges.newSalt,
      newToken: () => randomBytes(32).toString("base64url"),
    }),
    mail: { outbox: mailOutbox, newId: uuidv7 },
    sha256Hex: badgeWiring.badges.sha256Hex,
    onHostedInvalidation: badgeWiring.onHostedInvalidation,
    endorsements: endorsements.store,
    uploads: deps.uploads,
    bakedImages,
    exports: {
      store: postgresExportStore(db),
      digest: (token) => createHash("sha256").update(token, "utf8").digest("hex"),
      equal: secrets.equal,
    },
    externalBadges: externalBadges.deps,
    recommendations: recommendationStore,
    pathways: deps.pathways,
    connect: {
      store: connectStore,
      secrets,
      authPath: new URL(config.authUrl).pathname.replace(/\/$/, ""),
      application: (clientId) => authenticator.application(clientId),
      platform: (clientId) => platformStore.findByClientId(clientId),
      organizationName: async (id) => (await organizations.get(id))?.name ?? null,
    },
    console: {
      ...consoleMembers(postgresMemberStore(db), organizations),
      members: { members: postgresMemberStore(db), secrets, publicUrl: config.publicUrl },
      audit: postgresAuditLog(db),
      imports: deps.imports,
      mailPerOrganizationPerHour: config.limits.mailPerOrganizationPerHour,
      signup: config.organizationSignup,
      images,
      templates: badgeWiring.badges.issuing,
      onOrganizationChanged,
      endorsements,
      pathways: deps.pathways,
      issuerAuthorizations,
      organizations,
      apps,
      tokens,
      secrets,
      revocations,
      newId,
      webhooks: deps.webhooks,
      badges: {
        issuing: badgeWiring.badges.issuing,
        ids: {
          newId: badgeWiring.badges.newId,
          newEventId: badgeWiring.badges.newEventId,
          newSalt: badgeWiring.badges.newSalt,
        },
        counters: postgresBadgeCounters(db),
        figures: postgresBadgeFigures(db),
        activity: postgresBadgeActivity(db),
        events: webhooks.events,
      },
      employees: employeeStore,
    },
  });
  const app = await buildRestApp(
    { ...deps, plugins: [web] },
    { logger, http: config.limits.http, trustProxy: config.limits.trustProxy, logRequests: config.logRequests },
  );
  const admin = await buildAdminApp(deps, [trpcPlugin(deps, adminToken)], { logger, http: config.limits.http });
  log = app.log;
  // Ready from listening until shutdown starts: a balancer stops sending before the port closes.
  app.addHook("onReady", async () => health.setAccepting(true));
  app.addHook("preClose", async () => health.setAccepting(false));
  return {
    app,
    admin,
    adminToken,
    // The admin listener first: once the public one answers, both are up.
    listen: async () => {
      await admin.listen({ port: config.adminPort, host: config.adminHost });
      await app.listen({ port: config.port, host: config.host });
    },
    metrics: registry,
    close: async () => {
      unsubscribe();
      stopHostedInvalidations();
      await app.close();
      await admin.close();
      await badgeWiring.close();
      await externalBadges.close();
    },
  };
};
