import { once } from "node:events";
import pino from "pino";
import { natsHealthy } from "../adapters/bus/mod.ts";
import { loadServerKeys, nodeSecretBox } from "../adapters/crypto/mod.ts";
import { startEarnerExports } from "./export_wiring.ts";
import { startExternalReverification } from "./external_badge_wiring.ts";
import { healthOf, serveOperational } from "./health.ts";
import { startImportJob } from "./import_wiring.ts";
import { loggerOptions, logUncaught } from "./logger.ts";
import { startMailPipeline } from "./mail_wiring.ts";
import { connectProductionBackends, readProductionConfig } from "./production_start.ts";
import { startRetentionJob } from "./retention_wiring.ts";
import { onShutdown } from "./shutdown.ts";
import { metricsRegistry, pipelineMetrics, registerDatabaseFigures, startWebhookPipeline } from "./webhook_wiring.ts";

/**
 * `npm run worker`: the event relay, the retry scheduler, a webhook delivery worker, the mail
 * outbox's sender and the CSV imports' worker, for running
 * as many processes as needed beside the API servers. PostgreSQL (DATABASE_URL) and NATS (NATS_URL)
 * are required; DATA_DIR or LAUREL_SECRET_KEY must give the same keys as the API servers (the
 * signing secrets are sealed with them). METRICS_PORT serves /metrics, /healthz and /readyz.
 */
const config = readProductionConfig("worker");
const log = pino(loggerOptions(config.logLevel));
logUncaught(log);
const { db, nc } = await connectProductionBackends(config, log, "laurel-worker");
const keys = loadServerKeys(
  { secretKey: config.secretKey, signingKeyPem: config.signingKeyPem, rsaSigningKeyPem: config.rsaSigningKeyPem },
  config.dataDir,
);
const registry = metricsRegistry();
registerDatabaseFigures(registry, db);
const pipeline = await startWebhookPipeline(db, nc, config.webhooks, {
  secrets: nodeSecretBox(keys),
  busKey: keys.busKey,
  log,
  metrics: pipelineMetrics(registry),
});

const mail = await startMailPipeline(config, db, log, registry);
const reverification = startExternalReverification(config, db, log);
const retention = startRetentionJob(db, log, config.webhookLogRetentionDays, config.eventRetentionDays);
const imports = await startImportJob(config, db, keys, log);
const exportsWriter = await startEarnerExports(config, db, keys, log);
const health = healthOf({ database: () => db.ping(), nats: () => natsHealthy(nc) }, ["database", "nats"], registry);
health.setAccepting(true);
const metricsServer = config.webhooks.metricsPort
  ? serveOperational(config.webhooks.metricsPort, config.host, registry, health)
  : null;
// "ready" once /metrics and /healthz answer too.
if (metricsServer) await once(metricsServer, "listening");

log.info(
  { pid: process.pid, node: process.version, metrics_port: config.webhooks.metricsPort ?? null },
  "webhook worker ready",
);
onShutdown(async () => {
  health.setAccepting(false);
  await pipeline.stop();
  await mail.stop();
  await reverification.stop();
  await retention.stop();
  await imports.stop();
  await exportsWriter.stop();
  metricsServer?.close();
  await nc.drain();
  await db.close();
}, config.shutdownTimeoutMs);
