import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { CoreError } from "../../core/errors/mod.ts";
import { boundedCache } from "../cache/mod.ts";

/** Requests per minute; null turns request limits off. */
export interface RateLimitSettings {
  tokenPerMinute: number;
  authFailuresPerMinute: number;
  adminPerMinute: number;
  issuePerMinute: number;
}

/** A fixed-window counter every API process shares (PostgreSQL). */
export interface SharedCounter {
  hit(key: string, windowMs: number): Promise<{ hits: number; ttlMs: number }>;
}

export interface RateLimitDeps {
  settings: RateLimitSettings | null;
  /** Counts failed authentications for every process; none: this process only. */
  shared?: SharedCounter;
}

const MINUTE = 60_000;
/** Keys counted in the shared store; the rest in this process's memory. */
const SHARED = "shared:";

interface StoreState {
  current: number;
  ttl: number;
}
type Callback = (err: Error | null, state: StoreState) => void;
interface Window {
  hits: number;
  endsAt: number;
}

/**
 * The store behind every limit (`@fastify/rate-limit`'s custom store interface). Request rates are
 * counted in this process, bounded, for free on the hot path; keys under `shared:` (failed
 * authentications) go to the shared counter, and `read` answers from the last count this process
 * saw, so checking a caller before authenticating costs no round trip.
 */
const storeClass = (shared: SharedCounter | undefined) => {
  // Counters of one window; a flood of new keys evicts the least recently used, never the store.
  const windows = boundedCache<Window>({ maxEntries: 100_000, maxBytes: 16 * 1024 * 1024, ttlMs: 0 });
  const state = (w: Window | undefined, now: number): StoreState =>
    !w || w.endsAt <= now ? { current: 0, ttl: 0 } : { current: w.hits, ttl: w.endsAt - now };
  return class LaurelRateStore {
    incr(key: string, cb: Callback, timeWindow: number): void {
      const now = Date.now();
      if (shared && key.startsWith(SHARED)) {
        shared.hit(key, timeWindow).then(
          ({ hits, ttlMs }) => {
            windows.set(key, { hits, endsAt: now + ttlMs }, Math.max(1, ttlMs));
            cb(null, { current: hits, ttl: ttlMs });
          },
          (err: Error) => cb(err, { current: 0, ttl: 0 }),
        );
        return;
      }
      let w = windows.get(key);
      if (!w || w.endsAt <= now) {
        w = { hits: 0, endsAt: now + timeWindow };
        windows.set(key, w, timeWindow);
      }
      w.hits++;
      cb(null, state(w, now));
    }
    read(key: string, cb: Callback): void {
      cb(null, state(windows.get(key), Date.now()));
    }
    child(): LaurelRateStore {
      return this;
    }
  };
};

const tooMany = (_request: FastifyRequest, context: { after: string }): CoreError =>
  new CoreError("rate_limited", `Too many requests; try again in ${context.after}`);

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
const NO_LIMIT: Hook = async () => {};

/** The limits one listener applies, as hooks and checks its routes call. */
export interface RateLimits {
  /** Token endpoint requests per client address. */
  token: Hook;
  /** Badge-issuing requests per organization (a preHandler: only authenticated callers count). */
  issue: Hook;
  /** Admin API requests per client address. */
  admin: Hook;
  /** 429 now when `key` failed authentication too often lately; else counts nothing. */
  refuseIfFailing(request: FastifyRequest, reply: FastifyReply, key: string): Promise<void>;
  /** Counts one failed authentication against `key`. */
  failed(request: FastifyRequest, key: string): Promise<void>;
}

export const NO_LIMITS: RateLimits = {
  token: NO_LIMIT,
  issue: NO_LIMIT,
  admin: NO_LIMIT,
  refuseIfFailing: async () => {},
  failed: async () => {},
};

/**
 * Registers `@fastify/rate-limit` on `app` (no global limit: each route names its own) and
 * returns the limits' hooks. With `settings` null every hook lets everything through.
 */
export const registerRateLimits = async (app: FastifyInstance, deps: RateLimitDeps): Promise<RateLimits> => {
  const settings = deps.settings;
  if (!settings) return NO_LIMITS;
  await app.register(rateLimit, {
    global: false,
    store: storeClass(deps.shared),
    skipOnError: true,
    errorResponseBuilder: tooMany,
    // Only a refused request carries the limit's headers (Retry-After among them).
    addHeadersOnExceeding: {
      "x-ratelimit-limit": false,
      "x-ratelimit-remaining": false,
      "x-ratelimit-reset": false,
    },
  });
  const perMinute = (max: number, keyOf: (request: FastifyRequest) => string): Hook =>
    app.rateLimit({ max, timeWindow: MINUTE, keyGenerator: keyOf }) as Hook;
  const failureKey = new WeakMap<FastifyRequest, string>();
  const failures = app.createRateLimit({
    max: settings.authFailuresPerMinute,
    timeWindow: MINUTE,
    keyGenerator: (request) => `${SHARED}auth-failures:${failureKey.get(request) ?? `ip:${request.ip}`}`,
  });
  return {
    token: perMinute(settings.tokenPerMinute, (request) => `token:${request.ip}`),
    issue: perMinute(
      settings.issuePerMinute,
      (request) => `issue:${(request.params as { organization_id?: string }).organization_id}`,
    ),
    admin: perMinute(settings.adminPerMinute, (request) => `admin:${request.ip}`),
    async refuseIfFailing(request, reply, key) {
      failureKey.set(request, key);
      const status = await failures(request, { increment: false });
      if (!status.isAllowed && status.isExceeded) {
        reply.header("retry-after", String(Math.max(1, status.ttlInSeconds)));
        throw new CoreError("rate_limited", "Too many failed authentications; try again later");
      }
    },
    async failed(request, key) {
      failureKey.set(request, key);
      await failures(request);
    },
  };
};
