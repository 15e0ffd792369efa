import {
  DESTINATION_POLICY,
  type DestinationPolicy,
  destinationIsFailing,
  putOffSeconds,
} from "../core/webhooks/mod.ts";

/** A guess for a destination not heard from yet: fast, so a first burst is not put off for long. */
const FIRST_GUESS_MS = 10;

interface Destination {
  inFlight: number;
  waiters: Array<(granted: boolean) => void>;
  averageMs: number;
  consecutiveFailures: number;
  /** Probes left to a failing destination, refilled at the policy's rate. */
  tokens: number;
  refilledAt: number;
  /** When the queue of put-off deliveries ahead of a new one ends (ms, performance clock). */
  horizon: number;
  touched: number;
}

/**
 * The worker's per-destination state (see core `DestinationPolicy`): slots, a short in-memory
 * queue, the failing state and its probe rate, and where put-off deliveries go in line.
 */
export const destinationLimits = (capacity: number, policy: DestinationPolicy = DESTINATION_POLICY) => {
  const all = new Map<string, Destination>();
  const get = (dest: string): Destination => {
    let d = all.get(dest);
    if (!d) {
      if (all.size > 10_000) {
        for (const [k, v] of all) if (v.inFlight === 0 && v.waiters.length === 0) all.delete(k);
      }
      d = {
        inFlight: 0,
        waiters: [],
        averageMs: FIRST_GUESS_MS,
        consecutiveFailures: 0,
        tokens: policy.failingAttemptsPerSecond,
        refilledAt: performance.now(),
        horizon: 0,
        touched: 0,
      };
      all.set(dest, d);
    }
    d.touched = performance.now();
    return d;
  };
  const failing = (d: Destination): boolean => destinationIsFailing(d.consecutiveFailures, policy);
  const takeToken = (d: Destination): boolean => {
    const t = performance.now();
    d.tokens = Math.min(
      policy.failingAttemptsPerSecond,
      d.tokens + ((t - d.refilledAt) / 1000) * policy.failingAttemptsPerSecond,
    );
    d.refilledAt = t;
    if (d.tokens < 1) return false;
    d.tokens -= 1;
    return true;
  };

  return {
    /** True with a slot held (perhaps after a short wait), or false: put the delivery off. */
    acquire(dest: string): boolean | Promise<boolean> {
      const d = get(dest);
      if (failing(d)) {
        if (d.inFlight >= capacity || !takeToken(d)) return false;
        d.inFlight++;
        return true;
      }
      if (d.inFlight < capacity) {
        d.inFlight++;
        return true;
      }
      const expectedWaitMs = ((d.waiters.length + 1) * d.averageMs) / capacity;
      if (expectedWaitMs > policy.maxWaitSeconds * 1000) return false;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(
          () => {
            const i = d.waiters.indexOf(grant);
            if (i >= 0) d.waiters.splice(i, 1);
            resolve(false);
          },
          2 * policy.maxWaitSeconds * 1000,
        );
        function grant(granted: boolean): void {
          clearTimeout(timer);
          resolve(granted);
        }
        d.waiters.push(grant);
      });
    },
    /** Hands the slot to the next waiter, or frees it. */
    release(dest: string): void {
      const d = get(dest);
      const next = d.waiters.shift();
      if (next) {
        next(true);
        return;
      }
      d.inFlight = Math.max(0, d.inFlight - 1);
    },
    /** An attempt ended: its duration feeds the average, its result the failing state. */
    observe(dest: string, ms: number, succeeded: boolean): void {
      const d = get(dest);
      d.averageMs = d.averageMs * 0.8 + ms * 0.2;
      d.consecutiveFailures = succeeded ? 0 : d.consecutiveFailures + 1;
      if (succeeded) d.horizon = 0;
    },
    /**
     * How long (ms) a delivery that found `dest` full should be put off: behind those already put
     * off, at the destination's pace (its slots and attempt time, or the probe rate when failing).
     */
    putOffMs(dest: string, random: number): number {
      const d = get(dest);
      const t = performance.now();
      const spacingMs = failing(d) ? 1000 / policy.failingAttemptsPerSecond : d.averageMs / capacity;
      d.horizon = Math.max(d.horizon, t) + spacingMs;
      return Math.round(1000 * putOffSeconds((d.horizon - t) / 1000, random, policy));
    },
    /** Put-offs this long or shorter stay in the bus. */
    shortPutOffMs: policy.shortPutOffSeconds * 1000,
  };
};
