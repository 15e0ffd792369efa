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

export const postgresRateCounter = (db: Database): RateCounter => {
  let hitsSinceSweep = 0;
  return {
    async hit(key, windowMs) {
      if (++hitsSinceSweep >= SWEEP_EVERY) {
        hitsSinceSweep = 0;
        await db.run("delete from rate_limit_counters where window_ends_at < now() - interval '1 minute'");
      }
      const rows = await db.all<{ hits: number | string; ttl_ms: number | string }>(
        `insert into rate_limit_counters as c (key, hits, window_ends_at)
           values (?, 1, now() + ? * interval '1 millisecond')
         on conflict (key) do update set
           hits = case when c.window_ends_at <= now() then 1 else c.hits + 1 end,
           window_ends_at = case when c.window_ends_at <= now() then excluded.window_ends_at else c.window_ends_at end
         returning hits, greatest(0, ceil(extract(epoch from (window_ends_at - now())) * 1000)) as ttl_ms`,
        [key, windowMs],
      );
      const row = rows[0] as { hits: number | string; ttl_ms: number | string };
      return { hits: toNumber(row.hits), ttlMs: toNumber(row.ttl_ms) };
    },
  };
};
