import { type Static, type TSchema, Type } from "typebox";
import { Value } from "typebox/value";

/**
 * Every environment variable Laurel reads: its type, default and meaning, in one place. The
 * processes parse the environment once at start (`readEnv`), and a bad value stops them with a
 * message naming the variable; README's "Configuration" table is generated from this schema
 * (`npm run docs:config`). A new variable is one entry here.
 *
 * `description` is the README's meaning; `default` is the value used when the variable is unset or
 * empty; `defaultText` says in words what an unset variable means when that is not one value;
 * `mustBe` completes "X must be ..." when a value is refused.
 */
interface Entry {
  description: string;
  defaultText?: string;
  mustBe?: string;
}

const positive = <D extends number | undefined>(description: string, fallback: D, extra: Partial<Entry> = {}) =>
  Type.Integer({
    minimum: 1,
    mustBe: "a positive integer",
    description,
    ...(fallback === undefined ? {} : { default: fallback }),
    ...extra,
  });
const tcpPort = (description: string, extra: Partial<Entry> & { default?: number } = {}) =>
  Type.Integer({ minimum: 0, maximum: 65535, mustBe: "a TCP port", description, ...extra });
const text = (description: string, extra: Partial<Entry> & { default?: string } = {}) =>
  Type.String({ description, ...extra });
const oneOf = <L extends string>(values: readonly L[], fallback: L | undefined, description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    {
      description,
      mustBe: values.join(" or "),
      ...(fallback === undefined ? {} : { default: fallback }),
    },
  );

export const EnvSchema = Type.Object({
  PORT: tcpPort("HTTP port of the public listener (REST, token endpoint, hosted records, `/healthz`)", {
    default: 3000,
  }),
  HOST: text("address to listen on", { default: "0.0.0.0" }),
  ADMIN_PORT: Type.Optional(
    tcpPort("port of the admin listener: the internal tRPC API (`/trpc`), `/metrics` and `/healthz`", {
      defaultText: "`$PORT + 1`",
    }),
  ),
  ADMIN_HOST: text("address of the admin listener; expose it only to operators", { default: "127.0.0.1" }),
  BASE_URL: Type.Optional(
    text(
      "`{base_url}` of [`docs/interface.md`](docs/interface.md): where the REST API is reached; page links and resource URLs use it",
      { defaultText: "`http://localhost:$PORT/v1`" },
    ),
  ),
  AUTH_URL: Type.Optional(
    text("`{auth_url}`: the token endpoint is `$AUTH_URL/oauth/token`; also the `iss` of access tokens", {
      defaultText: "`http://localhost:$PORT`",
    }),
  ),
  DATABASE_URL: Type.Optional(
    text(
      "PostgreSQL, e.g. `postgres://laurel:laurel@127.0.0.1:5432/laurel`; a host list (`@h1:5432,h2:5433/laurel?target_session_attrs=read-write`) follows whichever server accepts writes",
      {
        defaultText: "unset: embedded PGlite in `$DATA_DIR/pglite`",
      },
    ),
  ),
  NATS_URL: Type.Optional(
    text(
      "NATS with JetStream, e.g. `nats://127.0.0.1:4222` (comma-separate several); `nats://user:password@host:4222` for a user and password; `tls://` to require TLS",
      { defaultText: "unset: `npm start` runs a local `nats-server -js` storing in `$DATA_DIR/nats`" },
    ),
  ),
  NATS_CREDS: Type.Optional(
    text(
      "a `.creds` file (user JWT and nkey seed, as `nsc` writes it) to authenticate to NATS; re-read on every reconnect",
    ),
  ),
  NATS_CA_FILE: Type.Optional(
    text("PEM of the CA that signed the NATS servers' certificates; set, the connection requires TLS"),
  ),
  NATS_SERVER_BIN: text("the `nats-server` binary `npm start` runs when `NATS_URL` is unset", {
    default: "nats-server",
  }),
  DATA_DIR: text("embedded database, generated keys and the admin token", { default: "./data" }),
  LAUREL_ADMIN_TOKEN: Type.Optional(
    text("token of the internal tRPC API and the CLI; at least 32 bytes (the server refuses to start otherwise)", {
      defaultText: "generated into `$DATA_DIR/admin-token` on first start",
    }),
  ),
  LAUREL_SECRET_KEY: Type.Optional(
    text(
      "32+ random bytes, base64url: root of the HMAC key (secret look-up digests), the AES-256-GCM key (token values at rest) and the key that seals event messages on the bus",
      { defaultText: "generated into `$DATA_DIR/keys.json`" },
    ),
  ),
  LAUREL_SIGNING_KEY: Type.Optional(
    text(
      "Ed25519 private key (PKCS#8 PEM) signing access tokens, and Open Badges 3.0 credentials when `LAUREL_CREDENTIAL_ALG` is `EdDSA`",
      {
        defaultText: "generated into `$DATA_DIR/keys.json`",
      },
    ),
  ),
  LAUREL_RSA_SIGNING_KEY: Type.Optional(
    text(
      "RSA private key (PKCS#8 PEM, at least 2048 bits) signing Open Badges 3.0 credentials and status lists (RS256)",
      {
        defaultText: "generated (3072 bits) into `$DATA_DIR/keys.json`",
      },
    ),
  ),
  LAUREL_CREDENTIAL_ALG: oneOf(
    ["RS256", "EdDSA"],
    "RS256",
    "signature of Open Badges 3.0 credentials and status lists: `RS256` (the RSA key, which every OB 3.0 verifier supports) or `EdDSA` (the Ed25519 key); both public keys stay in the key set",
  ),
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info", "pino level"),
  LOG_REQUESTS: oneOf(["0", "1"], "0", "`1` adds a log line per request"),
  DB_POOL_MAX: positive("PostgreSQL connections per process", 10),
  LAUREL_URL: Type.Optional(
    text("for the CLI: the admin listener to talk to", {
      defaultText:
        "the `npm start` running on this machine (its runtime file, `LAUREL_RUNTIME_DIR`), else `http://localhost:$ADMIN_PORT` (`ADMIN_PORT` defaulting to `PORT + 1`, as for the server)",
    }),
  ),
  LAUREL_RUNTIME_DIR: Type.Optional(
    text(
      "where `npm start` writes a file naming its ports and data directory (no secret), one per process, removed on a clean stop; the CLI on the same machine reads it when neither `LAUREL_URL`, `PORT` nor `ADMIN_PORT` is set (`DATA_DIR` picks among several)",
      { defaultText: "`$XDG_RUNTIME_DIR/laurel`, else `laurel-<uid>` in the system's temporary directory" },
    ),
  ),
  PUBLIC_URL: Type.Optional(
    text(
      "where the web pages are (`/badges/<id>`, `/organizations/<id>`, `/sign_in`, `/wallet`, `/account`, `/users/<id>`); links in mails point there. Session cookies are `Secure` when it is https",
      { defaultText: "the origin of `BASE_URL`" },
    ),
  ),
  SMTP_URL: Type.Optional(
    text("SMTP server for pending-badge notifications, sign-in and confirmation links, e.g. `smtp://mail:25`", {
      defaultText: "unset: mails are written to the log",
    }),
  ),
  SMTP_MAX_CONNECTIONS: positive("SMTP connections of the pooled transport per process; further messages wait", 5),
  MAIL_PER_ORGANIZATION_PER_HOUR: positive(
    "pending-badge notifications one organization may send an hour (all processes together); more are not sent",
    1000,
  ),
  EXTERNAL_BADGE_CHECKS_PER_ACCOUNT_PER_HOUR: positive(
    'verifications of badges from other issuers one earner account may start an hour (adding one, "Check again"; all processes together); more are refused (429) before anything is fetched',
    60,
  ),
  EXTERNAL_BADGE_CHECKS_PER_HOST_PER_HOUR: positive(
    "such verifications all accounts together may send to one host name an hour; more are refused (429). Neither is turned off by `RATE_LIMITS=off`",
    600,
  ),
  MAIL_FROM: text("sender of the notifications", { default: "Laurel <no-reply@localhost>" }),
  OB_API_NAME: text("the name the Open Badges API's service description document gives platforms and earners", {
    default: "Laurel",
  }),
  OB_API_IMAGE_URL: Type.Optional(
    text("an image (URL) the Open Badges API's service description document shows", { defaultText: "none" }),
  ),
  OB_API_PRIVACY_URL: Type.Optional(
    text("the privacy policy the Open Badges API's service description document names", {
      defaultText: "`$PUBLIC_URL/`",
    }),
  ),
  OB_API_TERMS_URL: Type.Optional(
    text("the terms of service the Open Badges API's service description document names", {
      defaultText: "`$PUBLIC_URL/`",
    }),
  ),
  OB_API_MAX_PLATFORMS: positive("platforms that may register through the Open Badges API, in all", 1000),
  OB_API_REGISTRATIONS_PER_HOUR: positive("Open Badges API registrations one address may make per hour", 10),
  INVITATIONS_PER_HOUR: positive(
    "invitation e-mails (employees and members together) an organization may send per hour (per API process); more is a 429",
    1000,
  ),
  ORGANIZATION_SIGNUP: oneOf(
    ["open", "closed"],
    "closed",
    "`open` lets a signed-in account create an organization in the console and become its owner (the contact e-mail must be a confirmed address of that account); `closed` leaves organizations to the operator (`organizations create --owner-email`)",
  ),
  MAIL_POLL_INTERVAL_MS: positive("how often a worker looks for mail due in the mail outbox", 1000),
  MAIL_RETRY_BASE_MS: positive(
    "first retry of a mail after a transient SMTP failure; doubles each time (at most an hour), 12 attempts",
    30000,
  ),
  WEBHOOK_TIMEOUT_MS: positive(
    "one delivery attempt, connect to the end of the answer; only a 200 within it succeeds",
    15000,
  ),
  WEBHOOK_CA_FILE: Type.Optional(
    text("PEM of private CAs trusted for webhook TLS (and fetching other issuers' badges) beside the system roots"),
  ),
  WEBHOOK_ALLOWED_NETWORKS: Type.Optional(
    text(
      "comma-separated CIDRs that webhook destinations (and the addresses of other issuers' badges that earners add) may resolve to although private, loopback or link-local",
    ),
  ),
  WEBHOOK_DEV_RECEIVER: Type.Optional(
    tcpPort(
      "development only, `npm start` only: a port (`0`: any free one) where an HTTPS webhook receiver listens on loopback, answering 200 and printing each delivery (its signature headers and body) in the terminal. Its test CA (made in `$DATA_DIR/dev-receiver/`) is trusted and loopback addresses allowed for this process's webhooks; refused when `NODE_ENV=production`",
    ),
  ),
  WEBHOOK_CONCURRENCY: positive(
    "delivery attempts a worker process makes at once, per queue (first deliveries, retries)",
    256,
  ),
  WEBHOOK_MAX_PER_DESTINATION: positive(
    "requests in flight to one destination (scheme, host, port) per worker process",
    8,
  ),
  WEBHOOK_ACK_WAIT_MS: Type.Optional(
    positive("JetStream redelivery of a message whose worker died", undefined, {
      defaultText: "`max(60000, 2 x timeout + 10000)`",
    }),
  ),
  WEBHOOK_SCHEDULER_INTERVAL_MS: positive("how often due retries are looked for", 1000),
  WEBHOOK_LOG_RETENTION_DAYS: positive(
    "days webhook deliveries (by their event's time) and attempts are kept once finished; removed by whole weekly partitions, so up to a week longer. Keep it above the 25-day retry window",
    35,
  ),
  EVENT_RETENTION_DAYS: Type.Integer({
    minimum: 0,
    default: 0,
    mustBe: "a whole number of days, 0 or more",
    description:
      "days events (by their `occurred_at`) are kept; removed by whole weekly partitions, so up to a week longer, and never while a week holds an event the relay has not published. Unset or 0 keeps every event. Keep it above the events stream's 7 days, which workers may still be delivering from",
  }),
  WEBHOOK_WORKERS: Type.Optional(
    oneOf(["0", "1"], undefined, "`0` keeps `npm start` from running the relay and workers in its process"),
  ),
  ISSUER_DEFAULT_EMAIL: Type.Optional(
    text(
      "contact e-mail given at start-up to organizations that have none (created before it was required); while any organization lacks one, the API process refuses to start without it",
    ),
  ),
  METRICS_PORT: Type.Optional(positive("where `npm run worker` serves `/metrics` and `/healthz`", undefined)),
  HTTP_REQUEST_TIMEOUT_MS: positive(
    "a whole request (headers and body) must arrive within it, or the connection is closed (408)",
    30000,
  ),
  HTTP_HEADERS_TIMEOUT_MS: positive("the request headers must arrive within it (at most the request timeout)", 10000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positive(
    "an idle kept-alive connection is closed after it (above a balancer's idle timeout)",
    72000,
  ),
  HTTP_MAX_CONNECTIONS: positive("open connections per listener; further ones are closed at once", 10000),
  UPLOADS_IN_FLIGHT: positive(
    "uploads (CSV imports, images) one API process reads at once; a further one is answered 503 with Retry-After before its body is read",
    4,
  ),
  TRUST_PROXY: Type.Optional(
    text(
      "comma-separated addresses or CIDRs of the balancers in front of the public listener (`10.0.0.5,10.0.1.0/24`); a request from one of them is counted under the client its `X-Forwarded-For` names (the address the last trusted hop added). Unset, every limit counts the connecting peer: behind a balancer, all clients are one",
    ),
  ),
  RATE_LIMITS: oneOf(["on", "off"], "on", "`off` turns every request limit below off (the mail budget stays)"),
  RATE_LIMIT_TOKEN_PER_MINUTE: positive("token endpoint requests per client address and process", 600),
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: positive(
    "failed authentications per client address, all processes together (every 401, and unknown codes or refresh tokens at the token endpoint); beyond, that address gets 429 even with valid credentials until the minute ends. Beyond it for one client id (wrong secrets from any addresses), an address that failed this minute gets 429 at the token endpoint, while one that has not is still served",
    30,
  ),
  RATE_LIMIT_ADMIN_PER_MINUTE: positive("admin API (`/trpc`) requests per client address and process", 600),
  RATE_LIMIT_ISSUE_PER_MINUTE: positive("badge-issuing requests (single or batch) per organization and process", 1200),
  NATS_STREAM_REPLICAS: positive("copies of each JetStream stream and consumer; `3` on a three-node cluster", 1),
  SHUTDOWN_TIMEOUT_MS: positive("the longest a clean stop (SIGTERM) may take before the process exits anyway", 30000),
});

export type Env = Static<typeof EnvSchema>;

type Described = TSchema & Entry & { default?: unknown; type?: string; anyOf?: unknown[] };

/** The schema of each variable, in the order of the table. */
export const envEntries = (): Array<[string, Described]> =>
  Object.entries(EnvSchema.properties) as unknown as Array<[string, Described]>;

const INTEGER = /^-?\d+$/;

/**
 * The environment, parsed and checked: numbers as numbers, unset or empty variables as their
 * default (or absent). Throws, naming the variable, at the first value the schema refuses.
 */
export const readEnv = (raw: Readonly<Record<string, string | undefined>>): Env => {
  const env: Record<string, unknown> = {};
  for (const [name, schema] of envEntries()) {
    const value = raw[name];
    if (value === undefined || value === "") {
      if (schema.default !== undefined) env[name] = schema.default;
      continue;
    }
    const parsed = schema.type === "integer" ? (INTEGER.test(value.trim()) ? Number(value) : Number.NaN) : value;
    if (!Value.Check(schema, parsed)) throw new Error(`${name} must be ${schema.mustBe ?? "a string"}, not ${value}`);
    env[name] = parsed;
  }
  return env as Env;
};

/** Markdown for a table cell: pipes escaped, so a meaning cannot end its cell early. */
const cell = (s: string): string => s.replace(/\|/g, "\\|");

/** README's configuration table, from the schema. */
export const configurationTable = (): string => {
  const rows = envEntries().map(([name, schema]) => {
    const fallback = schema.defaultText ?? (schema.default !== undefined ? `\`${String(schema.default)}\`` : "unset");
    return `| \`${name}\` | ${cell(fallback)} | ${cell(schema.description)} |`;
  });
  return ["| Variable | Default | Meaning |", "|---|---|---|", ...rows].join("\n");
};

/** ADMIN_PORT, or PORT + 1: how the server and the CLI find the admin listener. */
export const adminPortOf = (env: Env): number => {
  const port = env.ADMIN_PORT ?? env.PORT + 1;
  if (port > 65535) throw new Error(`ADMIN_PORT must be a TCP port, not ${port}`);
  return port;
};
