import t from "tap";
import { pageCache } from "../../adapters/web/page_cache.ts";

t.test(
  "public pages: kept for their TTL on the given clock, bounded by bytes, dropped with their records",
  async (t) => {
    let now = new Date("2026-01-01T00:00:00Z");
    const pages = pageCache(() => now, { maxEntries: 100, maxBytes: 10_000, ttlMs: 5_000 });
    pages.put("a", 200, Buffer.from("page a"));
    pages.put("b", 404, Buffer.from("page b"));
    t.same(pages.get("a"), { status: 200, body: Buffer.from("page a") });
    now = new Date(now.getTime() + 4_999);
    t.ok(pages.get("b"), "still fresh just before the TTL");
    now = new Date(now.getTime() + 2);
    t.equal(pages.get("a"), undefined, "gone after the TTL");

    pages.put("a", 200, Buffer.from("page a"));
    pages.put("c", 200, Buffer.from("page c"));
    pages.drop("assertion", "a");
    t.equal(pages.get("a"), undefined, "its own badge's change drops a page");
    t.ok(pages.get("c"), "and only that one");
    pages.drop("badge_class");
    t.equal(pages.get("c"), undefined, "a template change drops every page");

    pages.put("popular", 200, Buffer.from("x"));
    for (let i = 0; i < 50; i++) {
      pages.get("popular");
      pages.put(`big-${i}`, 200, Buffer.from("y".repeat(1_000)));
    }
    t.ok(pages.get("popular"), "pages too large in total push out the least recently used, not everything");
    t.equal(pages.get("big-0"), undefined);
  },
);
