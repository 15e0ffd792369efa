import { createServer } from "node:http";
import pino from "pino";
import { connectNats, natsHealthy } from "../adapters/bus/mod.ts";
import { loadServerKeys, nodeSecretBox } from "../adapters/crypto/mod.ts";
import { openDatabase } from "../adapters/db/mod.ts";
import { readConfig } from "./config.ts";
import { loggerOptions, logUncaught } from "./logger.ts";
import { onShutdown } from "./shutdown.ts";
import { metricsRegistry, pipelineMetrics, registerDatabaseFigures, startWebhookPipeline } from "./webhook_wiring.ts";

/**
 * `npm run worker`: the event relay, the retry scheduler and a webhook delivery worker, for running
 * as many processes as needed beside the API servers. PostgreSQL (DATABASE_URL) and NATS (NATS_URL)
 * are required; DATA_DIR or LAUREL_SECRET_KEY must give the same keys as the API servers (the
 * signing secrets are sealed with them). METRICS_PORT serves /metrics and /healthz.
 */
const config = readConfig();
if (!config.databaseUrl || !config.natsUrl) {
  console.error("apps/worker needs DATABASE_URL and NATS_URL; for a single self-contained process use `npm start`.");
  process.exit(2);
}
const log = pino(loggerOptions(config.logLevel));
logUncaught(log);
const db = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  pool: { min: 1, max: config.dbPoolMax },
  log,
});
const nc = await connectNats(config.natsUrl, "laurel-worker");
const keys = loadServerKeys({ secretKey: config.secretKey, signingKeyPem: config.signingKeyPem }, config.dataDir);
const registry = metricsRegistry();
registerDatabaseFigures(registry, db);
const pipeline = await startWebhookPipeline(db, nc, config.webhooks, {
  secrets: nodeSecretBox(keys),
  log,
  metrics: pipelineMetrics(registry),
});

const metricsServer = config.webhooks.metricsPort
  ? createServer((req, res) => {
      if (req.url === "/metrics") {
        registry.render().then(
          (text) => res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(text),
          () => res.writeHead(503).end(),
        );
      } else if (req.url === "/healthz") {
        Promise.all([db.ping(), natsHealthy(nc)]).then(([database, nats]) =>
          res
            .writeHead(database && nats ? 200 : 503, { "content-type": "application/json" })
            .end(JSON.stringify({ checks: { database, nats } })),
        );
      } else {
        res.writeHead(404).end();
      }
    }).listen(config.webhooks.metricsPort, config.host)
  : null;

log.info({ pid: process.pid, metrics_port: config.webhooks.metricsPort ?? null }, "webhook worker ready");
onShutdown(async () => {
  await pipeline.stop();
  metricsServer?.close();
  await nc.drain();
  await db.close();
});
