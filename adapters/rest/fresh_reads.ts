import type { FastifyReply } from "fastify";

/**
 * Read batching that stays strictly fresh (group-commit style, for reads).
 *
 * Requests for one key that arrive while a read for that key is under way do not join it: that read
 * may have begun before a write they must see. They wait together and share the NEXT read, which is
 * started only after every one of them has arrived. So each answer comes from a read begun after its
 * request arrived (under READ COMMITTED, a statement sees every transaction committed before it
 * started), and a burst of identical requests costs one read per round trip instead of one each.
 *
 * At most one read per key runs at a time; a request arriving when none runs starts one at once,
 * so a quiet server adds no latency. The key must name everything the result depends on: every
 * caller of one key gets the same value (the same bytes, when the value is a serialized body).
 */
export interface FreshReads<V> {
  /** `read()` of a batch begun after this call, shared with the other callers of `key` in it. */
  load(key: string, read: () => Promise<V>): Promise<V>;
  /** Keys with a read under way or waiting (for tests and metrics). */
  readonly size: number;
}

interface Batch<V> {
  read: () => Promise<V>;
  waiters: Array<{ resolve(v: V): void; reject(e: unknown): void }>;
}

interface KeyState<V> {
  running: boolean;
  next: Batch<V> | null;
}

export const freshReads = <V>(): FreshReads<V> => {
  const keys = new Map<string, KeyState<V>>();

  const start = (key: string, state: KeyState<V>): void => {
    const batch = state.next as Batch<V>;
    state.next = null;
    state.running = true;
    const settle = (fn: (w: Batch<V>["waiters"][number]) => void): void => {
      for (const w of batch.waiters) fn(w);
      state.running = false;
      if (state.next) start(key, state);
      else keys.delete(key);
    };
    let pending: Promise<V>;
    try {
      pending = batch.read();
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      (value) => settle((w) => w.resolve(value)),
      (err) => settle((w) => w.reject(err)),
    );
  };

  return {
    load(key, read) {
      return new Promise<V>((resolve, reject) => {
        let state = keys.get(key);
        if (!state) {
          state = { running: false, next: null };
          keys.set(key, state);
        }
        // Only a batch that has not started may be joined: its read begins after this request.
        if (state.next) {
          state.next.waiters.push({ resolve, reject });
          return;
        }
        state.next = { read, waiters: [{ resolve, reject }] };
        if (!state.running) start(key, state);
      });
    },
    get size() {
      return keys.size;
    },
  };
};

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Answers a GET with a body read through `reads`: the batch's first request serializes the value
 * with its route's 200 response schema once, and every request of the batch is sent those bytes.
 */
export const sendFreshBody = async (
  reads: FreshReads<Buffer>,
  reply: FastifyReply,
  key: string,
  read: () => Promise<unknown>,
): Promise<FastifyReply> => {
  const body = await reads.load(key, async () => {
    const serialize = reply.getSerializationFunction("200") as ((v: unknown) => string) | undefined;
    const value = await read();
    return Buffer.from(serialize ? serialize(value) : JSON.stringify(value));
  });
  return reply.type(JSON_TYPE).send(body);
};
