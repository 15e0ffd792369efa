import t from "tap";
import { boundedCache, keyBytes } from "../../adapters/cache/mod.ts";

t.test("bounded by count: the least recently used entry goes, never the whole cache", async (t) => {
  const cache = boundedCache<string>({ maxEntries: 3, maxBytes: 1_000_000, ttlMs: 0 });
  cache.set("a", "1");
  cache.set("b", "2");
  cache.set("c", "3");
  t.equal(cache.get("a"), "1", "a is now the most recently used");
  cache.set("d", "4");
  t.equal(cache.size, 3);
  t.equal(cache.get("b"), undefined, "b, the least recently used, went");
  t.same([...cache.entries()].map(([k]) => k).sort(), ["a", "c", "d"]);
});

t.test("bounded by bytes, as sizeOf counts them; an entry over the bound is not kept", async (t) => {
  const cache = boundedCache<Buffer>(
    { maxEntries: 100, maxBytes: 1_000, ttlMs: 0 },
    { sizeOf: (value, key) => keyBytes(key) + value.length },
  );
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, Buffer.alloc(200));
  t.ok(cache.bytes <= 1_000, `holds ${cache.bytes} bytes`);
  t.ok(cache.get("k9"), "the newest is kept");
  t.equal(cache.get("k0"), undefined, "the oldest went");
  cache.set("huge", Buffer.alloc(5_000));
  t.equal(cache.get("huge"), undefined, "larger than the whole bound: not kept");
  t.ok(cache.get("k9"), "and it evicted nothing");
});

t.test("entries expire after the TTL on the injected clock; a shorter TTL per entry", async (t) => {
  let now = 1_000;
  const cache = boundedCache<string>({ maxEntries: 10, maxBytes: 10_000, ttlMs: 500 }, { now: () => now });
  cache.set("long", "x");
  cache.set("short", "y", 100);
  now += 99;
  t.equal(cache.get("short"), "y");
  now += 2;
  t.equal(cache.get("short"), undefined, "its own TTL passed");
  t.equal(cache.get("long"), "x");
  now += 400;
  t.equal(cache.get("long"), undefined, "the cache's TTL passed");
  cache.set("z", "z");
  cache.delete("z");
  t.equal(cache.get("z"), undefined);
  cache.set("w", "w");
  cache.clear();
  t.equal(cache.size, 0);
});
