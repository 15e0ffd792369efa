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
 * Runs `round` until stopped: again at once after a full round (more may be waiting), after
 * `intervalMs` otherwise. A round that throws (the database away) is retried after the interval;
 * `onError` hears the first of a run of failures and every 20th after it.
 */
export const pollLoop = (
  round: () => Promise<{ full: boolean }>,
  intervalMs: number,
  onError: (err: unknown) => void,
): { wake(): void; stop(): Promise<void> } => {
  const { sleep, wake } = wakeableSleep();
  let stopped = false;
  let failures = 0;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      let full = false;
      try {
        full = (await round()).full;
        failures = 0;
      } catch (err) {
        if (failures % 20 === 0) onError(err);
        failures++;
      }
      if (!full) await sleep(intervalMs);
    }
  };
  const running = loop();
  return {
    wake,
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
 * Coalesces single calls into batched ones: a call waits for the batch being formed, which runs as
 * soon as a runner is free (at most `maxInFlight` at once, `maxItems` each). Under light load a
 * batch is one item and runs at once; under heavy load batches grow instead of queries.
 */
export const batcher = <I, O>(
  run: (items: I[]) => Promise<O[]>,
  options: {
    maxItems: number;
    maxInFlight: number;
    /** How long a batch that is not full may wait for more (off the latency path only). */
    lingerMs?: number;
    /**
     * When a batch fails with an error this accepts (a row refused, not a store that is away), its
     * items run again one by one, so one item fails alone instead of taking the whole batch's
     * bookkeeping with it.
     */
    isolateFailures?: (err: unknown) => boolean;
  },
): ((item: I) => Promise<O>) => {
  const later = (fn: () => void): void => {
    if (options.lingerMs) setTimeout(fn, options.lingerMs);
    else setImmediate(fn);
  };
  let queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  let inFlight = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    while (queue.length > 0 && inFlight < options.maxInFlight) {
      const batch = queue.slice(0, options.maxItems);
      queue = queue.slice(batch.length);
      inFlight++;
      run(batch.map((b) => b.item))
        .then(
          (out) => {
            for (const [i, b] of batch.entries()) b.resolve(out[i] as O);
          },
          async (err) => {
            if (!options.isolateFailures?.(err) || batch.length === 1) {
              for (const b of batch) b.reject(err);
              return;
            }
            for (const b of batch) {
              try {
                b.resolve((await run([b.item]))[0] as O);
              } catch (itemErr) {
                b.reject(itemErr);
              }
            }
          },
        )
        .finally(() => {
          inFlight--;
          if (queue.length > 0 && !scheduled) {
            scheduled = true;
            if (queue.length >= options.maxItems) setImmediate(flush);
            else later(flush);
          }
        });
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled && inFlight < options.maxInFlight) {
        scheduled = true;
        later(flush);
      }
    });
};
