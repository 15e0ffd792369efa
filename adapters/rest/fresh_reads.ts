import type { FastifyReply } from "fastify";
import { batcher } from "../batch/mod.ts";
import { type BoundedCache, boundedCache, keyBytes } from "../cache/mod.ts";

/**
 * Read batching that stays strictly fresh (group commit, for reads), on the one batching primitive.
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
}

interface ReadCall<V> {
  key: string;
  read: () => Promise<V>;
}

export const freshReads = <V>(): FreshReads<V> => {
  // A lane per key, one read in flight (`maxInFlight: 1`), started in the caller's turn (`eager`):
  // the batcher's batch holds exactly the calls that arrived before it started.
  const load = batcher<ReadCall<V>, V>(
    async (calls) => {
      const value = await (calls[0] as ReadCall<V>).read();
      return calls.map(() => value);
    },
    { maxItems: Number.POSITIVE_INFINITY, maxInFlight: 1, eager: true, key: (c) => c.key },
  );
  return { load: (key, read) => load({ key, read }) };
};

const JSON_TYPE = "application/json; charset=utf-8";

/** A body sent before and the version of the data it was made from. */
export interface KeptBody {
  version: number;
  bytes: Buffer;
}

/** The bodies of one route kept for `sendFreshBody`: pages of lists, so small and few per organization. */
export const keptBodies = (): BoundedCache<KeptBody> =>
  boundedCache<KeptBody>(
    { maxEntries: 5_000, maxBytes: 32 * 1024 * 1024, ttlMs: 0 },
    { sizeOf: (body, key) => keyBytes(key) + body.bytes.length },
  );

/** How a body's data is versioned: `version()` reads it (a version moves with every committed change). */
export interface BodyVersion {
  kept: BoundedCache<KeptBody>;
  version: () => Promise<number>;
}

/**
 * Answers a GET with a body read through `reads`: the batch's first request serializes the value
 * with its route's 200 response schema once, and every request of the batch is sent those bytes.
 *
 * With `versioned`, the batch reads the data's version first and sends the body kept for `key` while
 * that version has not moved: one key lookup instead of the read. The batch still begins after its
 * requests arrived, so each answer stays as fresh as a read. The version is read before the data, so
 * a change committed between the two makes the kept body look older than it is, never the reverse.
 */
export const sendFreshBody = async (
  reads: FreshReads<Buffer>,
  reply: FastifyReply,
  key: string,
  read: () => Promise<unknown>,
  versioned?: BodyVersion,
): Promise<FastifyReply> => {
  const body = await reads.load(key, async () => {
    const version = versioned ? await versioned.version() : 0;
    const kept = versioned?.kept.get(key);
    if (kept && kept.version === version) return kept.bytes;
    const serialize = reply.getSerializationFunction("200") as ((v: unknown) => string) | undefined;
    const value = await read();
    const bytes = Buffer.from(serialize ? serialize(value) : JSON.stringify(value));
    versioned?.kept.set(key, { version, bytes });
    return bytes;
  });
  return reply.type(JSON_TYPE).send(body);
};
