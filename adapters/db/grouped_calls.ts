interface Waiting<A, R> {
  arg: A;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export interface GroupedCallsOptions<A, R> {
  /** Calls with the same key may share a batch; batches of different keys run side by side. */
  key(arg: A): string;
  /** One round trip for the whole batch: one answer per call, in the order of `args`. */
  runBatch(key: string, args: A[]): Promise<R[]>;
  /**
   * The call on its own, used when its batch failed: each call then gets its own answer or error,
   * exactly as if it had never been grouped (a request whose data breaks the batch statement
   * cannot fail the others).
   */
  runOne(arg: A): Promise<R>;
  /** At most this many calls in one batch. */
  max: number;
}

/**
 * Application-level group commit. A call runs at once when nothing of its key is under way;
 * calls arriving meanwhile wait and then go together in the next batch. Under load N calls cost
 * one statement (and, for writes, one commit); an idle server adds no delay. Every call resolves
 * only with its own answer, after its batch finished (for a write: committed).
 */
export const groupedCalls = <A, R>(options: GroupedCallsOptions<A, R>): ((arg: A) => Promise<R>) => {
  const queues = new Map<string, Waiting<A, R>[]>();
  const settle = async (key: string, batch: Waiting<A, R>[]): Promise<void> => {
    let answers: R[] | undefined;
    try {
      answers = await options.runBatch(
        key,
        batch.map((w) => w.arg),
      );
      if (answers.length !== batch.length) throw new Error("groupedCalls: runBatch answered the wrong number");
    } catch {
      answers = undefined;
    }
    if (answers) {
      for (const [i, w] of batch.entries()) w.resolve(answers[i] as R);
      return;
    }
    await Promise.all(
      batch.map((w) =>
        options.runOne(w.arg).then(
          (r) => w.resolve(r),
          (err: unknown) => w.reject(err),
        ),
      ),
    );
  };
  const drain = async (key: string, queue: Waiting<A, R>[]): Promise<void> => {
    while (queue.length > 0) await settle(key, queue.splice(0, options.max));
    queues.delete(key);
  };
  return (arg) =>
    new Promise<R>((resolve, reject) => {
      const key = options.key(arg);
      const queue = queues.get(key);
      if (queue) {
        queue.push({ arg, resolve, reject });
        return;
      }
      const fresh: Waiting<A, R>[] = [{ arg, resolve, reject }];
      queues.set(key, fresh);
      void drain(key, fresh);
    });
};
