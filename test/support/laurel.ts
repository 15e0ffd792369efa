import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connectNats, freePort, type NatsConnection } from "../../adapters/bus/mod.ts";
import { loadServerKeys } from "../../adapters/crypto/mod.ts";
import { type Database, openDatabase } from "../../adapters/db/mod.ts";
import { type ApiServer, buildApiServer } from "../../apps/api_server.ts";
import { readConfig } from "../../apps/config.ts";
import { startEarnerExports } from "../../apps/export_wiring.ts";
import { startImportJob } from "../../apps/import_wiring.ts";
import { startMailPipeline } from "../../apps/mail_wiring.ts";
import { childEnv } from "./processes.ts";
import {
  copyMigratedPglite,
  createTestDatabase,
  startTestNats,
  type TestDatabase,
  type TestNats,
  tempDir,
} from "./services.ts";

export interface OrganizationWithToken {
  organization: { id: string; name: string };
  authorization_token: {
    id: string;
    token: string;
    read_enabled: boolean;
    write_enabled: boolean;
    delete_enabled: boolean;
  };
}

export interface TestLaurel {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The admin listener (tRPC, /metrics): `http://127.0.0.1:<admin port>` */
  adminOrigin: string;
  baseUrl: string;
  authUrl: string;
  server: ApiServer;
  db: Database;
  nc: NatsConnection;
  nats: TestNats;
  database: TestDatabase | null;
  dataDir: string;
  createOrganization(name?: string): Promise<OrganizationWithToken>;
  close(): Promise<void>;
}

/** Calls a tRPC mutation over HTTP with the admin token, as the CLI does. */
export const trpcMutation = async (
  origin: string,
  adminToken: string,
  path: string,
  input: unknown,
): Promise<unknown> => {
  const res = await fetch(`${origin}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  if (!res.ok || !body.result) throw new Error(`tRPC ${path} failed: ${res.status} ${JSON.stringify(body.error)}`);
  return body.result.data;
};

/**
 * A whole Laurel API server in this process, listening on loopback, on a fresh PostgreSQL database
 * (or PGlite) and its own nats-server. Everything is real; `close()` removes it all.
 */
export const startLaurel = async (
  opts: {
    database?: "postgresql" | "pglite";
    nats?: TestNats;
    dataDir?: string;
    /** More configuration (SMTP_URL, PUBLIC_URL...), as environment variables. */
    env?: Record<string, string>;
    /** Runs the CSV imports' worker in this process, as a worker process beside the API would. */
    importWorker?: boolean;
  } = {},
): Promise<TestLaurel> => {
  const database = opts.database === "pglite" ? null : await createTestDatabase();
  const nats = opts.nats ?? (await startTestNats());
  const dir = opts.dataDir ? null : tempDir();
  const dataDir = opts.dataDir ?? (dir as { path: string }).path;
  if (!database && !existsSync(join(dataDir, "pglite"))) await copyMigratedPglite(dataDir);
  const db = await openDatabase({ databaseUrl: database?.url, dataDir });
  const nc = await connectNats(nats.url, "laurel-test");
  const listening = async () => {
    // Another test file may bind a port between freePort's check and this listen: new ports then.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const adminPort = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const adminOrigin = `http://127.0.0.1:${adminPort}`;
      const config = readConfig({
        PORT: String(port),
        HOST: "127.0.0.1",
        ADMIN_PORT: String(adminPort),
        BASE_URL: `${origin}/v1`,
        AUTH_URL: origin,
        DATA_DIR: dataDir,
        ...(database ? { DATABASE_URL: database.url } : {}),
        NATS_URL: nats.url,
        // Tests of other features send many failing requests from one address: limits are tested apart.
        RATE_LIMITS: "off",
        MAIL_POLL_INTERVAL_MS: "100",
        ...opts.env,
      });
      const server = await buildApiServer(config, db, nc, false);
      try {
        await server.listen();
        return { origin, adminOrigin, config, server };
      } catch (err) {
        await server.close();
        if (attempt >= 5 || (err as { code?: string }).code !== "EADDRINUSE") throw err;
      }
    }
  };
  let started: Awaited<ReturnType<typeof listening>>;
  try {
    started = await listening();
  } catch (err) {
    // Nothing left open to keep the test process alive.
    await nc.close();
    await db.close();
    if (!opts.nats) await nats.stop();
    await database?.drop();
    dir?.remove();
    throw err;
  }
  const { origin, adminOrigin, config, server } = started;
  // The mail outbox's sender, as a worker beside the API would run it.
  const mail = await startMailPipeline(config, db, server.app.log, server.metrics);
  // The earners' exports, written as a worker beside the API would.
  const keys = loadServerKeys(
    { secretKey: config.secretKey, signingKeyPem: config.signingKeyPem, rsaSigningKeyPem: config.rsaSigningKeyPem },
    config.dataDir,
  );
  const exportsWriter = await startEarnerExports(config, db, keys, server.app.log);
  const imports = opts.importWorker ? await startImportJob(config, db, keys, server.app.log) : null;
  return {
    origin,
    adminOrigin,
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    server,
    db,
    nc,
    nats,
    database,
    dataDir,
    createOrganization: async (name = "Acme") =>
      (await trpcMutation(adminOrigin, server.adminToken, "organizations.create", {
        name,
        email: "issuer@example.org",
      })) as OrganizationWithToken,
    close: async () => {
      await imports?.stop();
      await mail.stop();
      await exportsWriter.stop();
      await server.close();
      await nc.close();
      await db.close();
      if (!opts.nats) await nats.stop();
      await database?.drop();
      dir?.remove();
    },
  };
};

export interface SpawnedServer {
  origin: string;
  adminOrigin: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `apps/server.ts` as its own OS process, as in production. */
export const spawnServer = async (
  env: { DATABASE_URL: string; NATS_URL: string; DATA_DIR: string } & Record<string, string>,
  /** The address clients use, shared by every process behind one load balancer. */
  publicOrigin?: string,
): Promise<SpawnedServer> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(env, publicOrigin);
    } catch (err) {
      // Another test file bound a port between freePort's check and the server's listen.
      if (attempt >= 5 || !(err instanceof PortTaken)) throw err;
    }
  }
};

class PortTaken extends Error {}

const spawnOnce = async (
  env: { DATABASE_URL: string; NATS_URL: string; DATA_DIR: string } & Record<string, string>,
  publicOrigin?: string,
): Promise<SpawnedServer> => {
  const port = await freePort();
  const adminPort = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const adminOrigin = `http://127.0.0.1:${adminPort}`;
  const pub = publicOrigin ?? origin;
  const child = spawn(process.execPath, ["apps/server.ts"], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: childEnv({
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_PORT: String(adminPort),
      BASE_URL: `${pub}/v1`,
      AUTH_URL: pub,
      LOG_LEVEL: "warn",
      RATE_LIMITS: "off",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      if (output.includes("EADDRINUSE")) throw new PortTaken(output);
      throw new Error(`server exited early:\n${output}`);
    }
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    origin,
    adminOrigin,
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
};

export interface TwoServers {
  a: SpawnedServer;
  b: SpawnedServer;
  /** The admin token the first process wrote into the shared DATA_DIR. */
  adminToken: string;
  databaseUrl: string;
  /** Stops both processes and removes their database, nats-server and data directory. */
  close(): Promise<void>;
}

/**
 * Two `apps/server.ts` processes on one fresh PostgreSQL database, one nats-server and one DATA_DIR
 * (same keys), as behind a load balancer when `publicOrigin` is given.
 */
export const spawnTwoServers = async (publicOrigin?: string): Promise<TwoServers> => {
  const database = await createTestDatabase();
  const nats = await startTestNats();
  const dir = tempDir();
  const env = { DATABASE_URL: database.url, NATS_URL: nats.url, DATA_DIR: dir.path };
  const a = await spawnServer(env, publicOrigin);
  const b = await spawnServer(env, publicOrigin);
  return {
    a,
    b,
    adminToken: readFileSync(join(dir.path, "admin-token"), "utf8").trim(),
    databaseUrl: database.url,
    close: async () => {
      await Promise.all([a.stop(), b.stop()]);
      await nats.stop();
      await database.drop();
      dir.remove();
    },
  };
};

export const basic = (token: string): string => `Basic ${Buffer.from(`${token}:`).toString("base64")}`;
