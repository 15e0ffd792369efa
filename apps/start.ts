import { join } from "node:path";
import pino from "pino";
import { connectNats, type LocalNats, startLocalNats } from "../adapters/bus/mod.ts";
import { loadServerKeys, nodeSecretBox } from "../adapters/crypto/mod.ts";
import { openDatabase } from "../adapters/db/mod.ts";
import { buildApiServer, orRefuse } from "./api_server.ts";
import { readConfigOrExit } from "./config.ts";
import { startDevReceiver } from "./dev_receiver.ts";
import { readEnv } from "./env_schema.ts";
import { startEarnerExports } from "./export_wiring.ts";
import { startExternalReverification } from "./external_badge_wiring.ts";
import { firstSteps } from "./first_steps.ts";
import { startImportJob } from "./import_wiring.ts";
import { asyncStdout, loggerOptions, logUncaught } from "./logger.ts";
import { type MailPipeline, startMailPipeline } from "./mail_wiring.ts";
import { startRetentionJob } from "./retention_wiring.ts";
import { runtimeDir, writeRuntimeFiles } from "./runtime_file.ts";
import { onShutdown } from "./shutdown.ts";
import {
  metricsRegistry,
  pipelineMetrics,
  registerDatabaseFigures,
  startWebhookPipeline,
  type WebhookPipeline,
} from "./webhook_wiring.ts";

/**
 * `npm start`: everything in one process. Embedded PGlite in DATA_DIR when DATABASE_URL is unset,
 * and a local JetStream server (Debian's nats-server) when NATS_URL is unset.
 */
const configured = readConfigOrExit();
const devReceiverPort = readEnv(process.env).WEBHOOK_DEV_RECEIVER;
if (devReceiverPort !== undefined) {
  const refusal =
    process.env.NODE_ENV === "production"
      ? "WEBHOOK_DEV_RECEIVER trusts a test CA and lets webhooks reach loopback addresses: it is refused with NODE_ENV=production"
      : configured.webhooks.inProcessWorkers
        ? null
        : "WEBHOOK_DEV_RECEIVER needs the webhook workers of npm start itself (not WEBHOOK_WORKERS=0)";
  if (refusal) {
    console.error(`configuration: ${refusal}`);
    process.exit(2);
  }
}
const stdout = asyncStdout();
const log = pino(loggerOptions(configured.logLevel), stdout.stream);
logUncaught(log, stdout.flush);
// The database first: it refuses a second process on the same DATA_DIR before anything starts.
const db = await openDatabase({ databaseUrl: configured.databaseUrl, dataDir: configured.dataDir, log });
// WEBHOOK_DEV_RECEIVER: a local HTTPS receiver to try webhooks with, trusted and reachable from here.
const dev =
  devReceiverPort === undefined
    ? null
    : await startDevReceiver({
        port: devReceiverPort,
        dataDir: configured.dataDir,
        webhooks: configured.webhooks,
        now: new Date(),
        print: (text) => process.stderr.write(text),
      }).catch(async (err: Error) => {
        console.error(`WEBHOOK_DEV_RECEIVER: the receiver could not start (${err.message})`);
        await db.close();
        return process.exit(2);
      });
const config = dev ? { ...configured, webhooks: dev.webhooks } : configured;
let localNats: LocalNats | undefined;
if (!config.natsUrl)
  localNats = await startLocalNats({ storeDir: join(config.dataDir, "nats"), binary: config.nats.serverBin });
const natsUrl = config.natsUrl ?? (localNats as LocalNats).url;
const nc = await connectNats(natsUrl, "laurel-all-in-one", localNats ? {} : config.nats);
const metrics = metricsRegistry();
registerDatabaseFigures(metrics, db);
const server = await orRefuse(
  () =>
    buildApiServer(
      config,
      db,
      nc,
      { ...loggerOptions(config.logLevel), stream: stdout.stream },
      metrics,
      config.webhooks.inProcessWorkers ? ["database", "nats"] : ["database"],
    ),
  async () => {
    await nc.close();
    await db.close();
    await localNats?.stop();
  },
);
// The event relay, retry scheduler, webhook worker and mail sender run here too (WEBHOOK_WORKERS=0
// to leave them to separate `npm run worker` processes).
let pipeline: WebhookPipeline | undefined;
let mail: MailPipeline | undefined;
let reverification: { stop(): Promise<void> } | undefined;
let retention: { stop(): Promise<void> } | undefined;
let imports: { stop(): Promise<void> } | undefined;
let exportsWriter: { stop(): Promise<void> } | undefined;
if (config.webhooks.inProcessWorkers) {
  mail = await startMailPipeline(config, db, server.app.log, metrics);
  reverification = startExternalReverification(config, db, server.app.log);
  retention = startRetentionJob(db, server.app.log, config.webhookLogRetentionDays, config.eventRetentionDays);
  const keys = loadServerKeys(
    { secretKey: config.secretKey, signingKeyPem: config.signingKeyPem, rsaSigningKeyPem: config.rsaSigningKeyPem },
    config.dataDir,
  );
  imports = await startImportJob(config, db, keys, server.app.log);
  exportsWriter = await startEarnerExports(config, db, keys, server.app.log);
  pipeline = await startWebhookPipeline(db, nc, config.webhooks, {
    secrets: nodeSecretBox(keys),
    busKey: keys.busKey,
    log: server.app.log,
    metrics: pipelineMetrics(metrics),
  });
}
await server.listen();
server.app.log.info(
  `Laurel listening on ${config.port} (Node ${process.version}): REST ${config.baseUrl}, token endpoint ${config.authUrl}/oauth/token, docs /docs; ` +
    `admin API (tRPC, /metrics) on ${config.adminHost}:${config.adminPort}; ` +
    `database ${db.kind}${db.kind === "pglite" ? ` in ${config.dataDir}` : ""}, NATS ${localNats ? "local" : natsUrl}; ` +
    `admin token in ${config.adminToken ? "LAUREL_ADMIN_TOKEN" : join(config.dataDir, "admin-token")}`,
);
// The CLI on this machine finds this process (its ports, its data directory) by these files.
let removeRuntimeFiles = () => {};
try {
  removeRuntimeFiles = writeRuntimeFiles(
    {
      pid: process.pid,
      cwd: process.cwd(),
      started_at: new Date().toISOString(),
      public_url: config.publicUrl,
      port: config.port,
      admin_host: config.adminHost,
      admin_port: config.adminPort,
      data_dir: config.dataDir,
    },
    runtimeDir(process.env),
  );
} catch (err) {
  server.app.log.warn({ err }, "no runtime file: the CLI needs PORT, ADMIN_PORT and DATA_DIR to find this process");
}
// For the person at the terminal, in words on stderr: stdout stays one JSON log line each.
process.stderr.write(firstSteps(config, process.cwd()));
if (dev)
  process.stderr.write(
    `Webhook receiver for trying (WEBHOOK_DEV_RECEIVER): ${dev.receiver.url}\n` +
      "Set it as an organization's webhook address (console: Developers > Webhooks, or\n" +
      `npm run -s cli -- webhooks set --organization <id> --url ${dev.receiver.url}); its test CA is trusted and\n` +
      "loopback allowed for webhooks in this process only. Each delivery is printed here.\n\n",
  );
onShutdown(async () => {
  removeRuntimeFiles();
  await pipeline?.stop();
  await mail?.stop();
  await reverification?.stop();
  await exportsWriter?.stop();
  await retention?.stop();
  await imports?.stop();
  await server.close();
  await dev?.receiver.close();
  await nc.drain();
  await db.close();
  stdout.flush();
  await localNats?.stop();
}, config.shutdownTimeoutMs);
