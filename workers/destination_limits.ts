import { deferralSeconds } from "../core/webhooks/mod.ts";

/** A guess for a destination not heard from yet: fast, so a first burst is not put off for long. */
const FIRST_GUESS_MS = 10;

export interface DestinationLimitOptions {
  /** Requests in flight per destination in this process. */
  capacity: number;
  /** Messages that may wait here for one destination (the rest of the process serves others). */
  maxWaiters: number;
  /** A message waits here only while the destination's queue should clear this soon. */
  maxWaitMs: number;
}

/**
 * At most `capacity` requests in flight per destination in this process. A message that finds its
 * destination full waits here only while the queue is short and should clear soon (a burst to a
 * healthy receiver); otherwise the caller puts it off, for about as long as the destination's queue
 * needs, so one slow receiver never holds the process's capacity that other organizations need.
 */
export const destinationLimits = (options: DestinationLimitOptions) => {
  const { capacity } = options;
  const inFlight = new Map<string, number>();
  const waiters = new Map<string, Array<(granted: boolean) => void>>();
  const averageMs = new Map<string, number>();
  const putOffUntil = new Map<string, number[]>();
  const average = (dest: string): number => averageMs.get(dest) ?? FIRST_GUESS_MS;

  return {
    /** True with a slot held (perhaps after a short wait), or false: put the delivery off. */
    acquire(dest: string): boolean | Promise<boolean> {
      const n = inFlight.get(dest) ?? 0;
      if (n < capacity) {
        inFlight.set(dest, n + 1);
        return true;
      }
      const queue = waiters.get(dest) ?? [];
      const expectedWaitMs = ((queue.length + 1) * average(dest)) / capacity;
      if (queue.length >= options.maxWaiters || expectedWaitMs > options.maxWaitMs) return false;
      waiters.set(dest, queue);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          const i = queue.indexOf(grant);
          if (i >= 0) queue.splice(i, 1);
          resolve(false);
        }, 2 * options.maxWaitMs);
        function grant(granted: boolean): void {
          clearTimeout(timer);
          resolve(granted);
        }
        queue.push(grant);
      });
    },
    /** Hands the slot to the next waiter, or frees it. */
    release(dest: string): void {
      const queue = waiters.get(dest);
      const next = queue?.shift();
      if (next) {
        next(true);
        return;
      }
      if (queue) waiters.delete(dest);
      const n = (inFlight.get(dest) ?? 1) - 1;
      if (n <= 0) inFlight.delete(dest);
      else inFlight.set(dest, n);
    },
    /** A moving average of attempt durations per destination. */
    observe(dest: string, ms: number): void {
      const prev = averageMs.get(dest);
      averageMs.set(dest, prev === undefined ? ms : prev * 0.8 + ms * 0.2);
      if (averageMs.size > 10_000) averageMs.clear();
    },
    /** How long (ms) a delivery that found `dest` full should be put off: about its queue's time. */
    putOffMs(dest: string, random: number): number {
      const t = performance.now();
      const pending = (putOffUntil.get(dest) ?? []).filter((u) => u > t);
      const ms = Math.round(
        1000 *
          deferralSeconds({
            waiting: pending.length,
            capacity,
            averageAttemptSeconds: average(dest) / 1000,
            random,
          }),
      );
      pending.push(t + ms);
      putOffUntil.set(dest, pending);
      if (putOffUntil.size > 10_000) putOffUntil.clear();
      return ms;
    },
  };
};
