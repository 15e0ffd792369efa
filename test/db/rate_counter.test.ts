import { randomUUID } from "node:crypto";
import t from "tap";
import { type Database, postgresRateCounter } from "../../adapters/db/mod.ts";
import { openStoreDatabase } from "../support/store_database.ts";

/**
 * The shared fixed-window counter (mail budgets, failed authentications) on real PostgreSQL: hits
 * of one key that arrive together share one statement, and each still gets its own count.
 */
const db = await openStoreDatabase(t);

/** `db`, counting the statements sent through it. */
const counted = () => {
  let statements = 0;
  const q = new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "all" && prop !== "run") return value;
      return (text: string, params?: readonly unknown[]) => {
        statements++;
        return (value as (text: string, params?: readonly unknown[]) => Promise<unknown>).call(target, text, params);
      };
    },
  }) as Database;
  return { q, statements: () => statements };
};

t.test("fifty hits at once: counts 1 to 50, in a few statements", async (t) => {
  const { q, statements } = counted();
  const counter = postgresRateCounter(q);
  const key = `mail:${randomUUID()}`;
  const states = await Promise.all(Array.from({ length: 50 }, () => counter.hit(key, 60_000)));
  t.same(
    states.map((s) => s.hits).sort((a, b) => a - b),
    Array.from({ length: 50 }, (_, i) => i + 1),
    "every hit has a count of its own",
  );
  t.ok(
    states.every((s) => s.ttlMs > 59_000 && s.ttlMs <= 60_000),
    "in the window the first hit opened",
  );
  t.ok(statements() <= 3, `${statements()} statements for 50 hits`);
  const [row] = await db.all<{ hits: number }>("select hits from rate_limit_counters where key = ?", [key]);
  t.equal(row?.hits, 50, "the stored count is the sum");
  const next = await counter.hit(key, 60_000);
  t.equal(next.hits, 51, "a later hit counts on");
});

t.test("keys and windows count apart; an ended window starts again at 1", async (t) => {
  const counter = postgresRateCounter(db);
  const a = `a:${randomUUID()}`;
  const b = `b:${randomUUID()}`;
  const [a1, b1, a2] = await Promise.all([counter.hit(a, 60_000), counter.hit(b, 60_000), counter.hit(a, 60_000)]);
  t.same([a1?.hits, a2?.hits, b1?.hits].sort(), [1, 1, 2], "b counts apart from a");
  const short = `short:${randomUUID()}`;
  t.equal((await counter.hit(short, 300)).hits, 1);
  t.equal((await counter.hit(short, 300)).hits, 2);
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.equal((await counter.hit(short, 300)).hits, 1, "a new window after the old one ended");
});
