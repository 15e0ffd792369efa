/**
 * Coalesces single calls into batched ones (application-level group commit): a call waits for the
 * batch being formed, which runs as soon as a runner of its lane is free. Under light load a batch
 * is one call and runs at the next turn of the event loop; under heavy load batches grow instead
 * of round trips. Every call resolves only with its own answer, once its batch finished (for a
 * write: committed).
 */
export interface BatcherOptions<I, O> {
  /** At most this many calls in one batch. */
  maxItems: number;
  /** Batches of one lane running at once. */
  maxInFlight: number;
  /** How long a batch that is not full may wait for more (off the latency path only). */
  lingerMs?: number;
  /**
   * A lane with a runner free runs its waiting calls at once, in the caller's turn of the event
   * loop, instead of at the next turn: a lone call adds no wait, and batches form only out of the
   * calls that arrive while the lane's runners are busy. (A batch then holds only calls that
   * arrived before it started, which a read that must see every earlier write relies on.)
   */
  eager?: boolean;
  /** Calls of different keys never share a batch; each key is a lane of its own. Default: one lane. */
  key?(item: I): string;
  /**
   * When a batch fails with an error this accepts (a row refused, not a store that is away), its
   * calls run again one by one, so one fails alone and the others get their answers.
   */
  isolateFailures?(err: unknown): boolean;
  /** A call on its own, after its batch failed; default: a batch of one. */
  runOne?(item: I): Promise<O>;
}

interface Waiting<I, O> {
  item: I;
  resolve(o: O): void;
  reject(e: unknown): void;
}

interface Lane<I, O> {
  queue: Waiting<I, O>[];
  inFlight: number;
  scheduled: boolean;
}

export const batcher = <I, O>(
  run: (items: I[], key: string) => Promise<O[]>,
  options: BatcherOptions<I, O>,
): ((item: I) => Promise<O>) => {
  const lanes = new Map<string, Lane<I, O>>();
  const later = (fn: () => void): void => {
    if (options.eager) fn();
    else if (options.lingerMs) setTimeout(fn, options.lingerMs);
    else setImmediate(fn);
  };
  const runOne = (key: string, item: I): Promise<O> =>
    options.runOne ? options.runOne(item) : run([item], key).then((out) => out[0] as O);

  const settle = async (key: string, batch: Waiting<I, O>[]): Promise<void> => {
    let out: O[];
    try {
      out = await run(
        batch.map((b) => b.item),
        key,
      );
      if (out.length !== batch.length) throw new Error("batcher: a batch answered the wrong number of calls");
    } catch (err) {
      if (!options.isolateFailures?.(err) || batch.length === 1) {
        for (const b of batch) b.reject(err);
        return;
      }
      await Promise.all(
        batch.map((b) =>
          runOne(key, b.item).then(
            (o) => b.resolve(o),
            (itemErr: unknown) => b.reject(itemErr),
          ),
        ),
      );
      return;
    }
    for (const [i, b] of batch.entries()) b.resolve(out[i] as O);
  };

  const flush = (key: string, lane: Lane<I, O>): void => {
    lane.scheduled = false;
    while (lane.queue.length > 0 && lane.inFlight < options.maxInFlight) {
      const batch = lane.queue.splice(0, options.maxItems);
      lane.inFlight++;
      void settle(key, batch).finally(() => {
        lane.inFlight--;
        if (lane.queue.length === 0) {
          if (lane.inFlight === 0) lanes.delete(key);
          return;
        }
        if (!lane.scheduled) {
          lane.scheduled = true;
          if (lane.queue.length >= options.maxItems) setImmediate(() => flush(key, lane));
          else later(() => flush(key, lane));
        }
      });
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      const key = options.key ? options.key(item) : "";
      let lane = lanes.get(key);
      if (!lane) {
        lane = { queue: [], inFlight: 0, scheduled: false };
        lanes.set(key, lane);
      }
      lane.queue.push({ item, resolve, reject });
      if (!lane.scheduled && lane.inFlight < options.maxInFlight) {
        lane.scheduled = true;
        const ready = lane;
        later(() => flush(key, ready));
      }
    });
};
