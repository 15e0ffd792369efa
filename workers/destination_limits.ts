import {
  DESTINATION_POLICY,
  type DestinationPolicy,
  destinationIsFailing,
  putOffSeconds,
} from "../core/webhooks/mod.ts";

/** A guess for a destination not heard from yet: fast, so a first burst is not put off for long. */
const FIRST_GUESS_MS = 10;
/** Hand-overs the pace of a saturated destination is measured over, and the fewest it is taken from. */
const HAND_OVERS = 256;
const MIN_HAND_OVERS = 16;

interface Destination {
  inFlight: number;
  /** When the destination last went from no request in flight to one, and last freed a slot. */
  busySince: number;
  freedAt: number;
  /** Deliveries waiting for a slot, oldest first, each with the time it stops waiting. */
  waiters: Array<{ grant: (granted: boolean) => void; until: number }>;
  /** The timer that drops waiters past their time (set while any wait). */
  expiry: ReturnType<typeof setTimeout> | undefined;
  averageMs: number;
  /**
   * When the last HAND_OVERS slots were handed from one delivery to a waiting one (a ring; made when
   * the destination is first saturated), and how many of the current saturated stretch it holds.
   */
  handOvers: Float64Array | undefined;
  handOverCount: number;
  consecutiveFailures: number;
  /** Probes left to a failing destination, refilled at the policy's rate. */
  tokens: number;
  refilledAt: number;
  /** When the queue of put-off deliveries ahead of a new one ends (ms, performance clock). */
  horizon: number;
  touched: number;
  /** Organizations with deliveries put off while the destination was failing, released when it recovers. */
  heldBack: Set<string>;
  /** How many times held-back deliveries were released (a put-off written across one is released too). */
  recoveries: number;
}

/**
 * The worker's per-destination state (see core `DestinationPolicy`): slots, a short in-memory
 * queue, the failing state and its probe rate, and where put-off deliveries go in line.
 */
export const destinationLimits = (
  capacity: number,
  policy: DestinationPolicy = DESTINATION_POLICY,
  now: () => number = () => performance.now(),
) => {
  const all = new Map<string, Destination>();
  const get = (dest: string): Destination => {
    let d = all.get(dest);
    if (!d) {
      if (all.size > 10_000) {
        for (const [k, v] of all) if (v.inFlight === 0 && v.waiters.length === 0) all.delete(k);
      }
      d = {
        inFlight: 0,
        busySince: 0,
        freedAt: 0,
        waiters: [],
        averageMs: FIRST_GUESS_MS,
        handOvers: undefined,
        handOverCount: 0,
        consecutiveFailures: 0,
        tokens: policy.failingAttemptsPerSecond,
        refilledAt: now(),
        horizon: 0,
        touched: 0,
        expiry: undefined,
        heldBack: new Set(),
        recoveries: 0,
      };
      all.set(dest, d);
    }
    d.touched = now();
    return d;
  };
  const failing = (d: Destination): boolean => destinationIsFailing(d.consecutiveFailures, policy);
  const takeToken = (d: Destination): boolean => {
    const t = now();
    d.tokens = Math.min(
      policy.failingAttemptsPerSecond,
      d.tokens + ((t - d.refilledAt) / 1000) * policy.failingAttemptsPerSecond,
    );
    d.refilledAt = t;
    if (d.tokens < 1) return false;
    d.tokens -= 1;
    return true;
  };

  /**
   * The time one slot takes to come free, the smaller of two guesses: the attempt time shared by
   * the slots, and, once the destination has stayed saturated for a while, the mean interval of its
   * last HAND_OVERS hand-overs. Each guess errs on the slow side in its own way. A stall of this
   * process (the CPU taken by others, a garbage collection) makes every answer in flight look slow
   * at once and inflates the attempt time, while the hand-overs after it come bunched, so over a few
   * hundred of them the pace stays the destination's; the first hand-overs of a burst (new
   * connections, code not yet optimized) are spaced out, while the attempt time starts from a fast
   * guess and grows at most about 20% per answer. A destination that really is slow is slow by both.
   */
  const paceMs = (d: Destination): number => {
    const byTime = d.averageMs / capacity;
    const n = Math.min(d.handOverCount, HAND_OVERS);
    if (n < MIN_HAND_OVERS || !d.handOvers) return Math.max(byTime, stalledMs(d) / capacity);
    const newest = d.handOvers[(d.handOverCount - 1) % HAND_OVERS] as number;
    const oldest = d.handOvers[(d.handOverCount - n) % HAND_OVERS] as number;
    return Math.max(Math.min(byTime, (newest - oldest) / (n - 1)), stalledMs(d) / capacity);
  };
  /**
   * How long the destination has kept every request of this process without freeing a slot: a
   * floor under every guess of the pace. The average learns only from answers, about 20% a time,
   * so a receiver that takes 10 s looked fast for half a minute while deliveries queued for it and
   * held the worker's slots; ten seconds without an answer say at once that a slot will not come
   * free sooner. A stall of this process itself ends with its first answer handled, which frees a
   * slot.
   */
  const stalledMs = (d: Destination): number => (d.inFlight === 0 ? 0 : now() - Math.max(d.busySince, d.freedAt));

  const waitLimitMs = 2 * policy.maxWaitSeconds * 1000;
  /** Drops the waiters whose time is over, then waits for the next oldest one's. */
  const armExpiry = (d: Destination): void => {
    const head = d.waiters[0];
    if (!head) {
      d.expiry = undefined;
      return;
    }
    d.expiry = setTimeout(
      () => {
        const t = now();
        while (d.waiters.length > 0 && (d.waiters[0] as { until: number }).until <= t) {
          (d.waiters.shift() as { grant: (granted: boolean) => void }).grant(false);
        }
        armExpiry(d);
      },
      Math.max(1, head.until - now()),
    );
  };

  return {
    /** True with a slot held (perhaps after a short wait), or false: put the delivery off. */
    acquire(dest: string): boolean | Promise<boolean> {
      const d = get(dest);
      if (failing(d)) {
        if (d.inFlight >= capacity || !takeToken(d)) return false;
        if (d.inFlight++ === 0) d.busySince = now();
        return true;
      }
      if (d.inFlight < capacity) {
        if (d.inFlight++ === 0) d.busySince = now();
        return true;
      }
      const expectedWaitMs = (d.waiters.length + 1) * paceMs(d);
      if (expectedWaitMs > policy.maxWaitSeconds * 1000) return false;
      // No timer per waiter: the queue is in arrival order, so one timer per destination, set for
      // the oldest waiter's deadline, drops those that waited too long (a burst waiting for a busy
      // destination's slots then costs no timer per message).
      return new Promise<boolean>((resolve) => {
        d.waiters.push({ grant: resolve, until: now() + waitLimitMs });
        if (!d.expiry) armExpiry(d);
      });
    },
    /** Hands the slot to the next waiter, or frees it. */
    release(dest: string): void {
      const d = get(dest);
      d.freedAt = d.touched;
      const next = d.waiters.shift();
      if (next) {
        const ring = d.handOvers ?? new Float64Array(HAND_OVERS);
        d.handOvers = ring;
        ring[d.handOverCount % HAND_OVERS] = d.touched;
        d.handOverCount++;
        next.grant(true);
        return;
      }
      d.handOverCount = 0;
      d.inFlight = Math.max(0, d.inFlight - 1);
    },
    /**
     * An attempt ended: its duration feeds the average, its result the failing state; returns the
     * organizations whose held-back deliveries to release (a success after failures). One sample
     * moves the average at most to about twice what it was: the requests in flight share every
     * stall of this process (a TLS handshake on each new connection, a pause of the event loop),
     * and an outlier taken at face value made the average ten times the real time per request, so
     * the deliveries arriving next were all put off, came back, and were put off again. A
     * destination that really slows down still raises it, by about 20% per answer.
     */
    observe(dest: string, ms: number, succeeded: boolean): string[] {
      const d = get(dest);
      d.averageMs = d.averageMs * 0.8 + Math.min(ms, 2 * d.averageMs + 1) * 0.2;
      d.consecutiveFailures = succeeded ? 0 : d.consecutiveFailures + 1;
      if (!succeeded || d.heldBack.size === 0) {
        if (succeeded) d.horizon = 0;
        return [];
      }
      // The first success after failures: what was put off for them is due now, and new put-offs
      // go in line at the healthy pace.
      d.horizon = 0;
      d.recoveries++;
      const released = [...d.heldBack];
      d.heldBack.clear();
      return released;
    },
    /** Whether `dest` counts as failing (attempts after `failingAfter` failures in a row). */
    isFailing(dest: string): boolean {
      return failing(get(dest));
    },
    /** Changes when `observe` releases held-back deliveries of `dest`. */
    recoveries(dest: string): number {
      return get(dest).recoveries;
    },
    /**
     * Notes a delivery of `organizationId` put off from `dest`: while the destination is failing,
     * its organization's deliveries are released at its first success (`observe`).
     */
    heldBack(dest: string, organizationId: string): void {
      const d = get(dest);
      if (d.consecutiveFailures > 0) d.heldBack.add(organizationId);
    },
    /**
     * How long (ms) a delivery that found `dest` full should be put off: behind those already put
     * off, at the destination's pace (its slots and attempt time, or the probe rate when failing).
     */
    putOffMs(dest: string, random: number): number {
      const d = get(dest);
      const t = now();
      const stalled = stalledMs(d);
      const spacingMs = failing(d) ? 1000 / policy.failingAttemptsPerSecond : Math.max(d.averageMs, stalled) / capacity;
      d.horizon = Math.max(d.horizon, t) + spacingMs;
      // Not back before the destination has had as long again as it has kept every request: a
      // delivery put off from a receiver silent for 2 s returning every 0.2 s would cost a
      // message round trip each time for nothing, and those round trips took the CPU the healthy
      // destinations' deliveries needed.
      return Math.round(1000 * putOffSeconds(Math.max(d.horizon - t, stalled) / 1000, random, policy));
    },
    /** Put-offs this long or shorter stay in the bus. */
    shortPutOffMs: policy.shortPutOffSeconds * 1000,
  };
};
