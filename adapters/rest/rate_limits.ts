import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { CoreError } from "../../core/errors/mod.ts";
import { boundedCache } from "../cache/mod.ts";
import { organizationParam } from "./guard.ts";

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

/** The counting shared by `@fastify/rate-limit`'s store and the failed-authentication checks. */
interface Counters {
  /** Counts one hit of `key` in a window of `timeWindow` ms (shared keys: in the shared counter). */
  incr(key: string, timeWindow: number, cb: Callback): void;
  /** The count of `key`'s current window as this process last saw it; no I/O. */
  read(key: string, now: number): StoreState;
  /** Whether a window of some shared key that this process counted is still open at `now`. */
  sharedOpen(now: number): boolean;
}

/**
 * Request rates are counted in this process, bounded, for free on the hot path; keys under
 * `shared:` (failed authentications) go to the shared counter, and `read` answers from the last
 * count this process saw, so checking a caller before authenticating costs no round trip.
 */
const counters = (shared: SharedCounter | undefined): Counters => {
  // Counters of one window; a flood of new keys evicts the least recently used, never the store.
  const windows = boundedCache<Window>({ maxEntries: 100_000, maxBytes: 16 * 1024 * 1024, ttlMs: 0 });
  const state = (w: Window | undefined, now: number): StoreState =>
    !w || w.endsAt <= now ? { current: 0, ttl: 0 } : { current: w.hits, ttl: w.endsAt - now };
  // The latest end of a shared key's window: before it nothing is open, and a check before
  // authenticating (every request with credentials) needs no look-up at all.
  let sharedUntil = 0;
  return {
    incr(key, timeWindow, cb) {
      const now = Date.now();
      const isShared = key.startsWith(SHARED);
      if (shared && isShared) {
        shared.hit(key, timeWindow).then(
          ({ hits, ttlMs }) => {
            windows.set(key, { hits, endsAt: now + ttlMs }, Math.max(1, ttlMs));
            sharedUntil = Math.max(sharedUntil, now + ttlMs);
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
      if (isShared) sharedUntil = Math.max(sharedUntil, w.endsAt);
      cb(null, state(w, now));
    },
    read: (key, now) => state(windows.get(key), now),
    sharedOpen: (now) => now < sharedUntil,
  };
};

/** The store behind the per-route limits (`@fastify/rate-limit`'s custom store interface). */
const storeClass = (counts: Counters) =>
  class LaurelRateStore {
    incr(key: string, cb: Callback, timeWindow: number): void {
      counts.incr(key, timeWindow, cb);
    }
    read(key: string, cb: Callback): void {
      cb(null, counts.read(key, Date.now()));
    }
    child(): LaurelRateStore {
      return this;
    }
  };

const tooMany = (_request: FastifyRequest, context: { after: string }): CoreError =>
  new CoreError("rate_limited", `Too many requests; try again in ${context.after}`);

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The limits one listener applies, as hooks and checks its routes call. With the limits off the
 * hooks are undefined, so that no route pays even an empty hook for them.
 */
export interface RateLimits {
  /** False: every limit is off; the checks below do nothing and the hooks are undefined. */
  on: boolean;
  /** Token endpoint requests per client address. */
  token: Hook | undefined;
  /** Badge-issuing requests per organization (a preHandler: only authenticated callers count). */
  issue: Hook | undefined;
  /** Admin API requests per client address. */
  admin: Hook | undefined;
  /**
   * Throws the 429 (`rate_limited`, with Retry-After on `reply`) when `key` failed authentication
   * too often in this window, as this process last saw it; else counts nothing. Synchronous, and
   * no look-up while this process has seen no failure in an open window: it runs before every
   * authenticated request.
   */
  refuseIfFailing(reply: FastifyReply, key: string): void;
  /**
   * Whether this process saw a failure whose window is still open; false: every check above passes,
   * so a caller may skip working out the key (behind a balancer, reading X-Forwarded-For).
   */
  failuresSeen(): boolean;
  /**
   * `refuseIfFailing` for an address presenting a client id's secret, and, while that client id
   * failed too often, for an address that failed at all in this window: a guesser's address is
   * refused even with a right guess, and an address that has not failed is still served. Same
   * cost as `refuseIfFailing`.
   */
  refuseIfFailingClient(reply: FastifyReply, addressKey: string, clientKey: string): void;
  /** Counts one failed authentication against `key`; settles once counted, never rejects. */
  failed(key: string): Promise<void>;
}

export const NO_LIMITS: RateLimits = {
  on: false,
  token: undefined,
  issue: undefined,
  admin: undefined,
  refuseIfFailing: () => {},
  failuresSeen: () => false,
  refuseIfFailingClient: () => {},
  failed: async () => {},
};

/**
 * The config of a route that never authenticates (a hosted record): the failed-authentication
 * hooks are not attached to it.
 */
export const ANONYMOUS = { anonymous: true };
export const isAnonymous = (config: { anonymous?: boolean } | undefined): boolean => config?.anonymous === true;

declare module "fastify" {
  interface FastifyContextConfig {
    anonymous?: boolean;
  }
}

/**
 * Registers `@fastify/rate-limit` on `app` (no global limit: each route names its own) and
 * returns the limits' hooks. With `settings` null nothing is registered: `NO_LIMITS`.
 */
export const registerRateLimits = async (app: FastifyInstance, deps: RateLimitDeps): Promise<RateLimits> => {
  const settings = deps.settings;
  if (!settings) return NO_LIMITS;
  const counts = counters(deps.shared);
  await app.register(rateLimit, {
    global: false,
    store: storeClass(counts),
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
  // Failed authentications are counted like `@fastify/rate-limit`'s limits (same store, window and
  // `count > max` rule) but checked by a plain read: `createRateLimit` costs promises, a key
  // generator and a route lookup on every authenticated request.
  const failureKey = (key: string) => `${SHARED}auth-failures:${key}`;
  const maxFailures = settings.authFailuresPerMinute;
  const refuse = (reply: FastifyReply, ttlMs: number): never => {
    reply.header("retry-after", String(Math.max(1, Math.ceil(ttlMs / 1000))));
    throw new CoreError("rate_limited", "Too many failed authentications; try again later");
  };
  return {
    on: true,
    token: perMinute(settings.tokenPerMinute, (request) => `token:${request.ip}`),
    issue: perMinute(settings.issuePerMinute, (request) => `issue:${organizationParam(request)}`),
    admin: perMinute(settings.adminPerMinute, (request) => `admin:${request.ip}`),
    refuseIfFailing(reply, key) {
      const now = Date.now();
      if (!counts.sharedOpen(now)) return;
      const { current, ttl } = counts.read(failureKey(key), now);
      if (current > maxFailures) refuse(reply, ttl);
    },
    failuresSeen: () => counts.sharedOpen(Date.now()),
    refuseIfFailingClient(reply, addressKey, clientKey) {
      const now = Date.now();
      if (!counts.sharedOpen(now)) return;
      const address = counts.read(failureKey(addressKey), now);
      if (address.current > maxFailures) refuse(reply, address.ttl);
      const client = counts.read(failureKey(clientKey), now);
      if (client.current > maxFailures && address.current > 0) refuse(reply, Math.min(client.ttl, address.ttl));
    },
    failed: (key) =>
      // An unreachable shared counter lets the request through, as the per-route limits do (skipOnError).
      new Promise((settle) => counts.incr(failureKey(key), MINUTE, () => settle())),
  };
};
