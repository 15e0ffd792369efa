import pino from "pino";
import { connectNats } from "../adapters/bus/mod.ts";
import { openDatabase } from "../adapters/db/mod.ts";
import { buildApiServer, orRefuse } from "./api_server.ts";
import { readConfigOrExit } from "./config.ts";
import { asyncStdout, loggerOptions, logUncaught } from "./logger.ts";
import { onShutdown } from "./shutdown.ts";

/** The API process for production: PostgreSQL (DATABASE_URL) and NATS (NATS_URL) are required. */
const config = readConfigOrExit();
if (!config.databaseUrl || !config.natsUrl) {
  console.error("apps/server needs DATABASE_URL and NATS_URL; for a single self-contained process use `npm start`.");
  process.exit(2);
}
const stdout = asyncStdout();
const log = pino(loggerOptions(config.logLevel), stdout.stream);
logUncaught(log, stdout.flush);
const db = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  pool: { min: 1, max: config.dbPoolMax },
  log,
});
const nc = await connectNats(config.natsUrl, "laurel-server", config.nats);
const server = await orRefuse(
  () => buildApiServer(config, db, nc, { ...loggerOptions(config.logLevel), stream: stdout.stream }),
  async () => {
    await nc.close();
    await db.close();
  },
);
await server.listen();
server.app.log.info(
  `listening on ${config.port} (Node ${process.version}); REST at ${config.baseUrl}; admin API on ${config.adminHost}:${config.adminPort}`,
);
onShutdown(async () => {
  await server.close();
  await nc.drain();
  await db.close();
  stdout.flush();
}, config.shutdownTimeoutMs);
