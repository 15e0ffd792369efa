import { resolve } from "node:path";
import type { OrganizationSignup } from "../core/members/mod.ts";
import { type LimitsConfig, readLimitsConfig } from "./limits_config.ts";
import { readWebhookConfig, type WebhookConfig } from "./webhook_config.ts";

/** Process configuration from the environment (README, "Configuration"). */
export interface Config {
  port: number;
  host: string;
  /** The admin listener (tRPC, /metrics, /healthz): ADMIN_PORT (PORT + 1), ADMIN_HOST (127.0.0.1). */
  adminPort: number;
  adminHost: string;
  baseUrl: string;
  authUrl: string;
  databaseUrl: string | undefined;
  natsUrl: string | undefined;
  /** NATS_CREDS and NATS_CA_FILE (a user and password go in NATS_URL). */
  nats: { credsFile: string | undefined; caFile: string | undefined };
  dataDir: string;
  adminToken: string | undefined;
  secretKey: string | undefined;
  signingKeyPem: string | undefined;
  logLevel: string;
  dbPoolMax: number;
  /** Where earners see badges (badge pages, accept links); default: the origin of BASE_URL. */
  publicUrl: string;
  /** nodemailer connection URL; when unset, pending-badge mail is written to the log. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** The contact e-mail given at start-up to organizations that have none (ISSUER_DEFAULT_EMAIL). */
  issuerDefaultEmail: string | undefined;
  /** Invitation e-mails (employees and members) an organization may send per hour (per API process). */
  invitationsPerHour: number;
  /** ORGANIZATION_SIGNUP: `open` lets a signed-in account create an organization and own it; `closed` (default) leaves it to the operator. */
  organizationSignup: OrganizationSignup;
  /** The mail outbox's sender: MAIL_POLL_INTERVAL_MS (1000), MAIL_RETRY_BASE_MS (30000, doubling). */
  mail: { pollIntervalMs: number; retryBaseMs: number };
  /** Webhook delivery: WEBHOOK_* variables. */
  webhooks: WebhookConfig;
  /** Timeouts, connection and rate limits: HTTP_*, TRUST_PROXY, RATE_LIMIT*, MAIL_PER_*, SMTP_MAX_CONNECTIONS. */
  limits: LimitsConfig;
}

const positive = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not ${value}`);
  return n;
};

const organizationSignupOf = (value: string | undefined): OrganizationSignup => {
  if (value === undefined || value === "" || value === "closed") return "closed";
  if (value === "open") return "open";
  throw new Error(`ORGANIZATION_SIGNUP must be open or closed, not ${value}`);
};

const trimSlash = (s: string): string => s.replace(/\/+$/, "");

/** ADMIN_PORT, or PORT + 1: how the server and the CLI find the admin listener. */
export const adminPortOf = (env: NodeJS.ProcessEnv): number => {
  const port = env.ADMIN_PORT ? Number(env.ADMIN_PORT) : Number(env.PORT ?? 3000) + 1;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`ADMIN_PORT must be a TCP port, not ${env.ADMIN_PORT ?? port}`);
  }
  return port;
};

export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a TCP port, not ${env.PORT}`);
  const adminPort = adminPortOf(env);
  const origin = `http://localhost:${port}`;
  const baseUrl = trimSlash(env.BASE_URL ?? `${origin}/v1`);
  const authUrl = trimSlash(env.AUTH_URL ?? origin);
  for (const [name, value] of [
    ["BASE_URL", baseUrl],
    ["AUTH_URL", authUrl],
  ] as const) {
    if (!URL.canParse(value)) throw new Error(`${name} must be an absolute URL, not ${value}`);
  }
  const invitationsPerHour = Number(env.INVITATIONS_PER_HOUR ?? 1000);
  if (!Number.isInteger(invitationsPerHour) || invitationsPerHour < 1)
    throw new Error(`INVITATIONS_PER_HOUR must be a positive integer, not ${env.INVITATIONS_PER_HOUR}`);
  return {
    port,
    host: env.HOST ?? "0.0.0.0",
    adminPort,
    adminHost: env.ADMIN_HOST || "127.0.0.1",
    baseUrl,
    authUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    natsUrl: env.NATS_URL || undefined,
    nats: { credsFile: env.NATS_CREDS || undefined, caFile: env.NATS_CA_FILE || undefined },
    dataDir: resolve(env.DATA_DIR ?? "./data"),
    adminToken: env.LAUREL_ADMIN_TOKEN || undefined,
    secretKey: env.LAUREL_SECRET_KEY || undefined,
    signingKeyPem: env.LAUREL_SIGNING_KEY || undefined,
    logLevel: env.LOG_LEVEL ?? "info",
    dbPoolMax: Number(env.DB_POOL_MAX ?? 10),
    publicUrl: trimSlash(env.PUBLIC_URL || new URL(baseUrl).origin),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || "Laurel <no-reply@localhost>",
    issuerDefaultEmail: env.ISSUER_DEFAULT_EMAIL || undefined,
    invitationsPerHour,
    organizationSignup: organizationSignupOf(env.ORGANIZATION_SIGNUP),
    mail: {
      pollIntervalMs: positive(env.MAIL_POLL_INTERVAL_MS, 1000, "MAIL_POLL_INTERVAL_MS"),
      retryBaseMs: positive(env.MAIL_RETRY_BASE_MS, 30_000, "MAIL_RETRY_BASE_MS"),
    },
    webhooks: readWebhookConfig(env),
    limits: readLimitsConfig(env),
  };
};
