import type { AttemptOutcome, NotDeliveredReason } from "../core/webhooks/mod.ts";

/** The pino-like logger the workers write to. */
export interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the workers count; the app fills it with Prometheus series. */
export interface PipelineMetrics {
  eventsPublished(n: number): void;
  dispatched(n: number): void;
  attempt(outcome: AttemptOutcome): void;
  /** A delivery succeeded `lagSeconds` after its event occurred. */
  delivered(lagSeconds: number): void;
  /** A delivery ended failed (window over, or the organization stopped wanting it). */
  failed(): void;
  notPosted(reason: NotDeliveredReason): void;
  deferred(): void;
}

export const NO_METRICS: PipelineMetrics = {
  eventsPublished: () => {},
  dispatched: () => {},
  attempt: () => {},
  delivered: () => {},
  failed: () => {},
  notPosted: () => {},
  deferred: () => {},
};

/** A sleep that `wake()` or `stop()` ends early. */
export const wakeableSleep = () => {
  let wakeUp: (() => void) | undefined;
  let woken = false;
  return {
    sleep: (ms: number): Promise<void> => {
      if (woken) {
        woken = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
        wakeUp = done;
      });
    },
    wake: (): void => {
      if (wakeUp) wakeUp();
      else woken = true;
    },
  };
};

/**
 * The wait between empty rounds of a poller: `baseMs` after a round that found work, doubling after
 * each empty one up to `maxMs`, so an idle process costs next to nothing while a busy one polls at
 * its interval.
 */
export const idleBackoff = (baseMs: number, maxMs: number) => {
  let waitMs = baseMs;
  return {
    /** The wait before the next round after an empty one; the one after it is longer. */
    next: (): number => {
      const ms = waitMs;
      waitMs = Math.min(Math.max(baseMs, maxMs), waitMs * 2);
      return ms;
    },
    reset: (): void => {
      waitMs = baseMs;
    },
  };
};

/**
 * Runs `round` until stopped: again at once after a full round (more may be waiting), after
 * `intervalMs` after one that found work, and after longer waits up to `idleMaxMs` while rounds find
 * nothing; `wake()` starts a round at once. A round that throws (the database away) is retried
 * after the interval; `onError` hears the first of a run of failures and every 20th after it.
 */
export const pollLoop = (
  round: () => Promise<{ full: boolean; found: boolean }>,
  options: { intervalMs: number; idleMaxMs?: number },
  onError: (err: unknown) => void,
): { wake(): void; stop(): Promise<void> } => {
  const { sleep, wake } = wakeableSleep();
  const backoff = idleBackoff(options.intervalMs, options.idleMaxMs ?? options.intervalMs);
  let stopped = false;
  const failures = failureLog(onError);
  const loop = async (): Promise<void> => {
    while (!stopped) {
      let full = false;
      let found = false;
      try {
        ({ full, found } = await round());
        failures.succeeded();
      } catch (err) {
        failures.failed(err);
        found = true;
      }
      if (found) backoff.reset();
      if (!full) await sleep(found ? options.intervalMs : backoff.next());
    }
  };
  const running = loop();
  return {
    wake: () => {
      backoff.reset();
      wake();
    },
    stop: async () => {
      stopped = true;
      wake();
      await running;
    },
  };
};

/** A counting semaphore; `acquire` resolves when a slot is free. */
export const semaphore = (size: number) => {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    /** Takes a slot if one is free, without waiting. */
    tryAcquire: (): boolean => {
      if (free <= 0) return false;
      free--;
      return true;
    },
    acquire: (): Promise<void> => {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    release: (): void => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
    inUse: (): number => size - free,
  };
};

/**
 * Counts a run of failures and reports the first of it and every 20th after it, so an outage
 * neither floods the log nor goes unheard.
 */
export const failureLog = (report: (err: unknown, failures: number) => void) => {
  let failures = 0;
  return {
    failed(err: unknown): void {
      if (failures % 20 === 0) report(err, failures + 1);
      failures++;
    },
    /** Ends the run; returns how many failures it had. */
    succeeded(): number {
      const run = failures;
      failures = 0;
      return run;
    },
    /** Failures in the current run. */
    count: (): number => failures,
  };
};

/** A notification listener (PostgreSQL LISTEN on its own connection). */
export interface Listener {
  alive(): boolean;
  close(): Promise<void>;
}

/**
 * A listener started by `listen` (none without it, nor where it returned null) that `relisten`
 * sets up again while it is gone (its connection broke, say a database restart), at most every
 * `relistenMs`; `restored` is called when a new one is alive.
 */
export const keptListener = async <N>(
  listen: ((onNotify: N) => Promise<Listener | null>) | undefined,
  onNotify: N,
  relistenMs: number,
  restored: () => void,
) => {
  let listener = listen ? await listen(onNotify) : null;
  let listenedAt = performance.now();
  return {
    alive: (): boolean => listener?.alive() ?? false,
    /** Called while the database answers: listens again if the listener is gone and it is time. */
    relisten: async (): Promise<void> => {
      if (!listen || listener?.alive() || performance.now() - listenedAt < relistenMs) return;
      listenedAt = performance.now();
      await listener?.close();
      listener = await listen(onNotify);
      if (listener?.alive()) restored();
    },
    close: async (): Promise<void> => {
      await listener?.close();
    },
  };
};
