import { batcher } from "../batch/mod.ts";
import type { Database } from "./database.ts";
import { toNumber } from "./sql.ts";

/** Hits of one key in its current window, and the milliseconds left in that window. */
export interface CounterState {
  hits: number;
  ttlMs: number;
}

/** A fixed-window counter shared by every process on the database. */
export interface RateCounter {
  /** Counts one hit of `key`, starting a window of `windowMs` when none is open. */
  hit(key: string, windowMs: number): Promise<CounterState>;
}

const SWEEP_EVERY = 1_000;
/** Hits of one key counted by one statement at most. */
const MAX_BATCH = 500;

interface Hit {
  key: string;
  windowMs: number;
}

/**
 * Hits of one key that arrive together are counted by one statement that adds them all: every
 * issued badge takes its organization's mail budget, and with one upsert per hit the issues of an
 * organization would queue on that row's lock, one commit after another. Each caller still gets its own
 * count, the hits before it in its batch included, so a budget refuses exactly the hits over it.
 * The statement commits without waiting for the disk (`synchronous_commit` off for its own
 * transaction): a count is not worth a flush, and a crash loses at most the window's last hits.
 */
export const postgresRateCounter = (db: Database): RateCounter => {
  let hitsSinceSweep = 0;
  const count = batcher<Hit, CounterState>(
    async (hits) => {
      const { key, windowMs } = hits[0] as Hit;
      hitsSinceSweep += hits.length;
      if (hitsSinceSweep >= SWEEP_EVERY) {
        hitsSinceSweep = 0;
        await db.run("delete from rate_limit_counters where window_ends_at < now() - interval '1 minute'");
      }
      const n = hits.length;
      const rows = await db.all<{ hits: number | string; ttl_ms: number | string }>(
        `with no_flush as (select set_config('synchronous_commit', 'off', true))
         insert into rate_limit_counters as c (key, hits, window_ends_at)
           select ?, ?::int, now() + ? * interval '1 millisecond' from no_flush
         on conflict (key) do update set
           hits = case when c.window_ends_at <= now() then excluded.hits else c.hits + excluded.hits end,
           window_ends_at = case when c.window_ends_at <= now() then excluded.window_ends_at else c.window_ends_at end
         returning hits, greatest(0, ceil(extract(epoch from (window_ends_at - now())) * 1000)) as ttl_ms`,
        [key, n, windowMs],
      );
      const row = rows[0] as { hits: number | string; ttl_ms: number | string };
      const total = toNumber(row.hits);
      const ttlMs = toNumber(row.ttl_ms);
      return hits.map((_, i) => ({ hits: total - n + 1 + i, ttlMs }));
    },
    // One statement per key at a time, begun at once when none is under way: a lone hit waits for nothing.
    { maxItems: MAX_BATCH, maxInFlight: 1, eager: true, key: (h) => `${h.windowMs} ${h.key}` },
  );
  return { hit: (key, windowMs) => count({ key, windowMs }) };
};
