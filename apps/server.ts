import pino from "pino";
import { buildApiServer, orRefuse } from "./api_server.ts";
import { asyncStdout, loggerOptions, logUncaught } from "./logger.ts";
import { connectProductionBackends, readProductionConfig } from "./production_start.ts";
import { onShutdown } from "./shutdown.ts";

/** The API process for production: PostgreSQL (DATABASE_URL) and NATS (NATS_URL) are required. */
const config = readProductionConfig("server");
const stdout = asyncStdout();
const log = pino(loggerOptions(config.logLevel), stdout.stream);
logUncaught(log, stdout.flush);
const { db, nc } = await connectProductionBackends(config, log, "laurel-server");
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
