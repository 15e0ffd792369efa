// Services the Laurel benchmarks share: a fresh PostgreSQL database beside an admin URL, and
// Laurel's API server (apps/server.ts) as a child process with a known admin token.

import { randomBytes } from "node:crypto";
import pg from "pg";
import { BENCH_RATE_LIMITS, serverNodeArgs } from "./laurel_setup.ts";
import { freePort, type RunningServer, startServer } from "./lib.ts";

export const createBenchDatabase = async (adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> => {
  const name = `laurel_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
};

export interface Laurel {
  server: RunningServer;
  origin: string;
  /** The admin listener: tRPC and /metrics. */
  adminOrigin: string;
  adminToken: string;
}

export const startLaurelServer = async (databaseUrl: string, natsUrl: string, dataDir: string): Promise<Laurel> => {
  const port = await freePort();
  const adminPort = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString("base64url");
  const server = await startServer({
    name: "laurel",
    command: process.execPath,
    args: [...serverNodeArgs(), "apps/server.ts"],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `${origin}/v1`,
      AUTH_URL: origin,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      LAUREL_ADMIN_TOKEN: adminToken,
      ADMIN_PORT: String(adminPort),
      ...BENCH_RATE_LIMITS,
    },
    ready: /listening on/,
    readyTimeoutMs: 120_000,
  });
  return { server, origin, adminOrigin: `http://127.0.0.1:${adminPort}`, adminToken };
};
