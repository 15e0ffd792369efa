import { connectNats } from "../adapters/bus/mod.ts";
import { type DatabaseLog, openDatabase } from "../adapters/db/mod.ts";
import { type Config, readConfigOrExit } from "./config.ts";

type ProductionConfig = Config & { databaseUrl: string; natsUrl: string };

/**
 * The configuration of a production process (`apps/<entry>.ts`), which runs beside others and so
 * needs a shared PostgreSQL and NATS: without DATABASE_URL or NATS_URL it stops, naming `npm start`.
 */
export const readProductionConfig = (entry: "server" | "worker"): ProductionConfig => {
  const config = readConfigOrExit();
  if (!config.databaseUrl || !config.natsUrl) {
    console.error(
      `apps/${entry} needs DATABASE_URL and NATS_URL; for a single self-contained process use \`npm start\`.`,
    );
    return process.exit(2);
  }
  return config as ProductionConfig;
};

/** PostgreSQL's pool and the NATS connection (named `natsName`) a production process runs on. */
export const connectProductionBackends = async (config: ProductionConfig, log: DatabaseLog, natsName: string) => {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pool: { min: 1, max: config.dbPoolMax },
    log,
  });
  const nc = await connectNats(config.natsUrl, natsName, config.nats);
  return { db, nc };
};
