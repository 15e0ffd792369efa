// How the benchmark starts Laurel and prepares the data it measures.
//

import { laurelEntry } from "./lib.ts";

/** What run.ts knows when it starts Laurel. */
export interface LaurelLaunchContext {
  /** Free loopback port chosen by run.ts. */
  port: number;
  /** A fresh temporary directory, removed after the run. */
  dataDir: string;
  /** Random admin token run.ts generated; passed as LAUREL_ADMIN_TOKEN. */
  adminToken: string;
}

/** How to start the Laurel API server as one child process (its pid is the one measured). */
export interface LaurelLaunch {
  command: string;
  args: string[];
  /** Added to run.ts's own environment (DATABASE_URL and NATS_URL are inherited from it). */
  env: Record<string, string>;
  /** A stdout/stderr line matching this means ready (default /listening/i). */
  ready?: RegExp;
  readyTimeoutMs?: number;
}

/**
 * `node <entry>` (`laurelEntry`: dist/apps/server.js as bench.sh runs it): one process, so its pid
 * is the server's.
 * Adjust freely; keep it a single process so the RSS reading means something.
 */
export function laurelLaunch(context: LaurelLaunchContext): LaurelLaunch {
  const entry = laurelEntry("server");
  const origin = `http://127.0.0.1:${context.port}`;
  return {
    command: process.execPath,
    args: [...serverNodeArgs(), entry],
    env: {
      PORT: String(context.port),
      BASE_URL: `${origin}/v1`,
      AUTH_URL: origin,
      DATA_DIR: context.dataDir,
      LAUREL_ADMIN_TOKEN: context.adminToken,
      // Limits on, set above what one load generator sends: the figures include their cost.
      ...BENCH_RATE_LIMITS,
    },
    ready: /listening/i,
    readyTimeoutMs: 120_000,
  };
}

/**
 * Node options for the measured API server, from BENCH_SERVER_NODE_ARGS (space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the path a benchmark drives.
 */
export const serverNodeArgs = (): string[] => (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);

/** Every request limit on, none ever reached by a benchmark's load. */
export const BENCH_RATE_LIMITS = {
  RATE_LIMIT_TOKEN_PER_MINUTE: "1000000000",
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: "1000000000",
  RATE_LIMIT_ADMIN_PER_MINUTE: "1000000000",
  RATE_LIMIT_ISSUE_PER_MINUTE: "1000000000",
  MAIL_PER_ORGANIZATION_PER_HOUR: "1000000000",
};

/** The admin listener (tRPC) of a server started with the default ADMIN_PORT, PORT + 1. */
export const adminOriginOf = (origin: string): string => {
  const url = new URL(origin);
  url.port = String(Number(url.port) + 1);
  return url.origin;
};

/** What run.ts passes to `setupLaurel` besides the origin. */
export interface LaurelSetupContext {
  /** `${origin}/v1` — the REST base URL (BASE_URL). */
  apiUrl: string;
  /** Same as the origin — where POST /oauth/token lives (AUTH_URL). */
  authUrl: string;
  /** The admin token the server was started with (for tRPC `/trpc` calls). */
  adminToken: string;
  dataDir: string;
  /** The admin listener's origin, when it is not the default (the origin's port + 1). */
  adminOrigin?: string;
}

/** The credentials and list the benchmark uses; everything must already exist in Laurel. */
export interface LaurelFixture {
  /**
   * An authorization token value with read_enabled, of the organization owning the list. Sent as
   * `Authorization: Basic base64(basicToken + ":")`.
   */
  basicToken: string;
  /** An OAuth application's `uid` (its client id) in that organization. */
  clientId: string;
  /** That application's `secret`. */
  clientSecret: string;
  /**
   * Path from the origin of a list holding exactly 50 items (one full page), readable with
   * `basicToken` and with an access token of `scope`, e.g.
   * `/v1/organizations/<org id>/oauth_applications`.
   */
  listPath: string;
  /**
   * ONE scope requested in the token benchmark (`grant_type=client_credentials&scope=<scope>`)
   * and carried by the Bearer token used on `listPath`, so it must grant reading that list
   * (e.g. `oauth_applications` for the list above).
   */
  scope: string;
}

/**
 * Prepares Laurel for the benchmark, given its origin (e.g. `http://127.0.0.1:41234`): an
 * organization (over tRPC with the admin token) and 50 OAuth applications (over REST with Basic),
 * so `listPath` returns a full page of 50 read from the database.
 */
export async function setupLaurel(baseUrl: string, context: LaurelSetupContext): Promise<LaurelFixture> {
  const res = await fetch(`${context.adminOrigin ?? adminOriginOf(baseUrl)}/trpc/organizations.create`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${context.adminToken}` },
    body: JSON.stringify({ name: "Bench", email: "bench@example.org" }),
  });
  if (!res.ok) throw new Error(`organizations.create: ${res.status} ${await res.text()}`);
  const created = (await res.json()) as {
    result: { data: { organization: { id: string }; authorization_token: { token: string } } };
  };
  const { organization, authorization_token } = created.result.data;
  const listPath = `/v1/organizations/${organization.id}/oauth_applications`;
  const basic = `Basic ${Buffer.from(`${authorization_token.token}:`).toString("base64")}`;
  let first: { uid: string; secret: string } | undefined;
  for (let i = 0; i < 50; i++) {
    const app = await fetch(`${baseUrl}${listPath}`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/json" },
      body: JSON.stringify({ name: `Bench application ${i}`, description: "An application made for the benchmark" }),
    });
    if (app.status !== 201) throw new Error(`create application: ${app.status} ${await app.text()}`);
    const body = (await app.json()) as { data: { uid: string; secret: string } };
    first ??= body.data;
  }
  if (!first) throw new Error("no application created");
  return {
    basicToken: authorization_token.token,
    clientId: first.uid,
    clientSecret: first.secret,
    listPath,
    scope: "oauth_applications",
  };
}
