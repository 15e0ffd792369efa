import { resolve } from "node:path";
import type { OrganizationSignup } from "../core/members/mod.ts";
import { adminPortOf, readEnv } from "./env_schema.ts";
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
  /** NATS_CREDS and NATS_CA_FILE (a user and password go in NATS_URL); the local server's binary. */
  nats: { credsFile: string | undefined; caFile: string | undefined; serverBin: string };
  dataDir: string;
  adminToken: string | undefined;
  secretKey: string | undefined;
  signingKeyPem: string | undefined;
  rsaSigningKeyPem: string | undefined;
  /** How Open Badges 3.0 credentials and status lists are signed. */
  credentialAlg: "RS256" | "EdDSA";
  logLevel: string;
  /** LOG_REQUESTS=1: a log line per request. */
  logRequests: boolean;
  dbPoolMax: number;
  /** Where earners see badges (badge pages, accept links); default: the origin of BASE_URL. */
  publicUrl: string;
  /** nodemailer connection URL; when unset, pending-badge mail is written to the log. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** What the Open Badges API's service description document names, and its registration bounds. */
  obApi: {
    name: string;
    imageUrl: string | null;
    privacyUrl: string;
    termsUrl: string;
    maxPlatforms: number;
    registrationsPerHour: number;
  };
  /** The contact e-mail given at start-up to organizations that have none (ISSUER_DEFAULT_EMAIL). */
  issuerDefaultEmail: string | undefined;
  /** Invitation e-mails (employees and members) an organization may send per hour (per API process). */
  invitationsPerHour: number;
  /** ORGANIZATION_SIGNUP: `open` lets a signed-in account create an organization and own it; `closed` (default) leaves it to the operator. */
  organizationSignup: OrganizationSignup;
  /** The mail outbox's sender: MAIL_POLL_INTERVAL_MS (1000), MAIL_RETRY_BASE_MS (30000, doubling). */
  mail: { pollIntervalMs: number; retryBaseMs: number };
  /** WEBHOOK_LOG_RETENTION_DAYS (35): how long finished webhook deliveries and attempts are kept. */
  webhookLogRetentionDays: number;
  /** EVENT_RETENTION_DAYS (0: kept for good): how long events are kept. */
  eventRetentionDays: number;
  /** SHUTDOWN_TIMEOUT_MS: the longest a clean stop may take. */
  shutdownTimeoutMs: number;
  /** Webhook delivery: WEBHOOK_* variables. */
  webhooks: WebhookConfig;
  /** Timeouts, connection and rate limits: HTTP_*, TRUST_PROXY, RATE_LIMIT*, MAIL_PER_*, SMTP_MAX_CONNECTIONS. */
  limits: LimitsConfig;
}

const trimSlash = (s: string): string => s.replace(/\/+$/, "");

/**
 * The process's configuration from its environment, parsed and checked once (`apps/env_schema.ts`);
 * a bad value throws, naming the variable, before anything starts.
 */
export const readConfig = (raw: Readonly<Record<string, string | undefined>> = process.env): Config => {
  const env = readEnv(raw);
  const origin = `http://localhost:${env.PORT}`;
  const baseUrl = trimSlash(env.BASE_URL ?? `${origin}/v1`);
  const authUrl = trimSlash(env.AUTH_URL ?? origin);
  for (const [name, value] of [
    ["BASE_URL", baseUrl],
    ["AUTH_URL", authUrl],
  ] as const) {
    if (!URL.canParse(value)) throw new Error(`${name} must be an absolute URL, not ${value}`);
  }
  return {
    port: env.PORT,
    host: env.HOST,
    adminPort: adminPortOf(env),
    adminHost: env.ADMIN_HOST,
    baseUrl,
    authUrl,
    databaseUrl: env.DATABASE_URL,
    natsUrl: env.NATS_URL,
    nats: { credsFile: env.NATS_CREDS, caFile: env.NATS_CA_FILE, serverBin: env.NATS_SERVER_BIN },
    dataDir: resolve(env.DATA_DIR),
    adminToken: env.LAUREL_ADMIN_TOKEN,
    secretKey: env.LAUREL_SECRET_KEY,
    signingKeyPem: env.LAUREL_SIGNING_KEY,
    rsaSigningKeyPem: env.LAUREL_RSA_SIGNING_KEY,
    credentialAlg: env.LAUREL_CREDENTIAL_ALG,
    logLevel: env.LOG_LEVEL,
    logRequests: env.LOG_REQUESTS === "1",
    dbPoolMax: env.DB_POOL_MAX,
    publicUrl: trimSlash(env.PUBLIC_URL ?? new URL(baseUrl).origin),
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    obApi: {
      name: env.OB_API_NAME,
      imageUrl: env.OB_API_IMAGE_URL ?? null,
      privacyUrl: env.OB_API_PRIVACY_URL ?? `${trimSlash(env.PUBLIC_URL ?? new URL(baseUrl).origin)}/`,
      termsUrl: env.OB_API_TERMS_URL ?? `${trimSlash(env.PUBLIC_URL ?? new URL(baseUrl).origin)}/`,
      maxPlatforms: env.OB_API_MAX_PLATFORMS,
      registrationsPerHour: env.OB_API_REGISTRATIONS_PER_HOUR,
    },
    issuerDefaultEmail: env.ISSUER_DEFAULT_EMAIL,
    invitationsPerHour: env.INVITATIONS_PER_HOUR,
    organizationSignup: env.ORGANIZATION_SIGNUP,
    mail: { pollIntervalMs: env.MAIL_POLL_INTERVAL_MS, retryBaseMs: env.MAIL_RETRY_BASE_MS },
    webhookLogRetentionDays: env.WEBHOOK_LOG_RETENTION_DAYS,
    eventRetentionDays: env.EVENT_RETENTION_DAYS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    webhooks: readWebhookConfig(env),
    limits: readLimitsConfig(env),
  };
};

/** `readConfig` for a process's start: a refused value ends the process with its message alone. */
export const readConfigOrExit = (): Config => {
  try {
    return readConfig();
  } catch (err) {
    console.error(`configuration: ${(err as Error).message}`);
    return process.exit(2);
  }
};
