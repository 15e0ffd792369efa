import { resolve } from "node:path";
import { readWebhookConfig, type WebhookConfig } from "./webhook_config.ts";

/** Process configuration from the environment (README, "Configuration"). */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  authUrl: string;
  databaseUrl: string | undefined;
  natsUrl: string | undefined;
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
  /** The mail outbox's sender: MAIL_POLL_INTERVAL_MS (1000), MAIL_RETRY_BASE_MS (30000, doubling). */
  mail: { pollIntervalMs: number; retryBaseMs: number };
  /** Webhook delivery (issue 4): WEBHOOK_* variables. */
  webhooks: WebhookConfig;
}

const positive = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not ${value}`);
  return n;
};

const trimSlash = (s: string): string => s.replace(/\/+$/, "");

export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a TCP port, not ${env.PORT}`);
  const origin = `http://localhost:${port}`;
  const baseUrl = trimSlash(env.BASE_URL ?? `${origin}/v1`);
  const authUrl = trimSlash(env.AUTH_URL ?? origin);
  for (const [name, value] of [
    ["BASE_URL", baseUrl],
    ["AUTH_URL", authUrl],
  ] as const) {
    if (!URL.canParse(value)) throw new Error(`${name} must be an absolute URL, not ${value}`);
  }
  return {
    port,
    host: env.HOST ?? "0.0.0.0",
    baseUrl,
    authUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    natsUrl: env.NATS_URL || undefined,
    dataDir: resolve(env.DATA_DIR ?? "./data"),
    adminToken: env.LAUREL_ADMIN_TOKEN || undefined,
    secretKey: env.LAUREL_SECRET_KEY || undefined,
    signingKeyPem: env.LAUREL_SIGNING_KEY || undefined,
    logLevel: env.LOG_LEVEL ?? "info",
    dbPoolMax: Number(env.DB_POOL_MAX ?? 10),
    publicUrl: trimSlash(env.PUBLIC_URL || new URL(baseUrl).origin),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || "Laurel <no-reply@localhost>",
    mail: {
      pollIntervalMs: positive(env.MAIL_POLL_INTERVAL_MS, 1000, "MAIL_POLL_INTERVAL_MS"),
      retryBaseMs: positive(env.MAIL_RETRY_BASE_MS, 30_000, "MAIL_RETRY_BASE_MS"),
    },
    webhooks: readWebhookConfig(env),
  };
};
