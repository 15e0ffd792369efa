import { isIP } from "node:net";
import type { Env } from "./env_schema.ts";

/** Server timeouts, connection and rate limits from the environment (README, "Configuration"). */
export interface LimitsConfig {
  /**
   * `TRUST_PROXY`: addresses or CIDRs of the balancers in front of the public listener, whose
   * `X-Forwarded-For` names the client (none: the peer is the client).
   */
  trustProxy: string[];
  http: {
    /** `HTTP_REQUEST_TIMEOUT_MS`: a whole request, headers and body, must arrive within it (30 s). */
    requestTimeoutMs: number;
    /** `HTTP_HEADERS_TIMEOUT_MS`: the request's headers must arrive within it (10 s). */
    headersTimeoutMs: number;
    /** `HTTP_KEEP_ALIVE_TIMEOUT_MS`: an idle kept-alive connection is closed after it (72 s). */
    keepAliveTimeoutMs: number;
    /** `HTTP_MAX_CONNECTIONS`: open connections per listener; more are refused (10,000). */
    maxConnections: number;
  };
  /** `RATE_LIMITS=off` turns every request limit off (the mail budget stays). */
  rate: RateLimits | null;
  /** `MAIL_PER_ORGANIZATION_PER_HOUR`: pending-badge notifications one organization may send (1,000). */
  mailPerOrganizationPerHour: number;
  /** `UPLOADS_IN_FLIGHT`: uploads one API process reads at once; a further one is answered 503 (4). */
  uploadsInFlight: number;
  /** `SMTP_MAX_CONNECTIONS`: SMTP connections of the pooled transport per process (5). */
  smtpMaxConnections: number;
  /**
   * Verifications of badges from other issuers that earners start (adding, "check again"):
   * `EXTERNAL_BADGE_CHECKS_PER_ACCOUNT_PER_HOUR` per account (60) and
   * `EXTERNAL_BADGE_CHECKS_PER_HOST_PER_HOUR` to one host from all accounts (600). They protect
   * other sites, so, like the mail budget, `RATE_LIMITS=off` leaves them on.
   */
  externalBadgeChecks: { perAccountPerHour: number; perHostPerHour: number };
}

/** Requests per minute. */
export interface RateLimits {
  /** `RATE_LIMIT_TOKEN_PER_MINUTE`: token endpoint requests per client address (600). */
  tokenPerMinute: number;
  /**
   * `RATE_LIMIT_AUTH_FAILURES_PER_MINUTE`: failed authentications per client address (30); over it
   * for a client id, only addresses that failed with it are refused.
   */
  authFailuresPerMinute: number;
  /** `RATE_LIMIT_ADMIN_PER_MINUTE`: admin API (`/trpc`) requests per client address (600). */
  adminPerMinute: number;
  /** `RATE_LIMIT_ISSUE_PER_MINUTE`: badge-issuing requests per organization (1,200). */
  issuePerMinute: number;
}

/** An IPv4 or IPv6 address, with or without a prefix length (`10.0.0.0/8`, `fd00::/8`). */
const isAddressOrCidr = (entry: string): boolean => {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
};

/** `TRUST_PROXY`: comma-separated addresses or CIDRs; empty or unset trusts no proxy. */
export const readTrustProxy = (raw: string | undefined): string[] => {
  const entries = (raw ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  for (const entry of entries) {
    if (!isAddressOrCidr(entry))
      throw new Error(`TRUST_PROXY must list IP addresses or CIDRs (such as 10.0.0.0/8), not ${entry}`);
  }
  return entries;
};

/** The limits, from the parsed environment (`apps/env_schema.ts`). */
export const readLimitsConfig = (env: Env): LimitsConfig => ({
  trustProxy: readTrustProxy(env.TRUST_PROXY),
  http: {
    requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: Math.min(env.HTTP_REQUEST_TIMEOUT_MS, env.HTTP_HEADERS_TIMEOUT_MS),
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: env.HTTP_MAX_CONNECTIONS,
  },
  rate:
    env.RATE_LIMITS === "off"
      ? null
      : {
          tokenPerMinute: env.RATE_LIMIT_TOKEN_PER_MINUTE,
          authFailuresPerMinute: env.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
          adminPerMinute: env.RATE_LIMIT_ADMIN_PER_MINUTE,
          issuePerMinute: env.RATE_LIMIT_ISSUE_PER_MINUTE,
        },
  mailPerOrganizationPerHour: env.MAIL_PER_ORGANIZATION_PER_HOUR,
  smtpMaxConnections: env.SMTP_MAX_CONNECTIONS,
  uploadsInFlight: env.UPLOADS_IN_FLIGHT,
  externalBadgeChecks: {
    perAccountPerHour: env.EXTERNAL_BADGE_CHECKS_PER_ACCOUNT_PER_HOUR,
    perHostPerHour: env.EXTERNAL_BADGE_CHECKS_PER_HOST_PER_HOUR,
  },
});
