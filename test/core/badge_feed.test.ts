import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import { type BadgeView, feedCursor, type IssuingDeps, searchIssuedBadges } from "../../core/issuing/mod.ts";

// 120 badges with increasing ids; the fake store answers as the port says (ids above, in order).
const ids = Array.from({ length: 120 }, (_, i) => `0190c0de-0000-7000-8000-${String(i).padStart(12, "0")}`);
const asked: Array<{ after: string | null; limit: number }> = [];
const deps = {
  store: {
    badgeFeed: async (_org: string, _q: unknown, after: string | null, limit: number) => {
      asked.push({ after, limit });
      return ids
        .filter((id) => after === null || id > after)
        .slice(0, limit)
        .map((id) => ({ badge: { id } }) as BadgeView);
    },
  },
} as unknown as IssuingDeps;

t.test("the feed walks every badge once, in order, and says where it ends", async (t) => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await searchIssuedBadges(deps, "org", { filters: {} }, cursor, 50);
    seen.push(...page.items.map((v) => v.badge.id));
    cursor = page.next;
    pages++;
  } while (cursor !== null);
  t.same(seen, ids);
  t.equal(pages, Math.ceil(ids.length / 50));
  t.same(
    asked.map((a) => a.limit),
    [51, 51, 51],
    "one row more than a page tells whether another follows",
  );
  t.equal(asked[1]?.after, ids[49], "the cursor resumes after the last badge sent");
  t.match(feedCursor(ids[0] as string), /^c1[0-9a-f]{32}$/);
});

t.test("the page size is the caller's: 100 a page takes two pages", async (t) => {
  asked.length = 0;
  const first = await searchIssuedBadges(deps, "org", { filters: {} }, null, 100);
  const second = await searchIssuedBadges(deps, "org", { filters: {} }, first.next, 100);
  t.equal(first.items.length, 100);
  t.equal(second.items.length, 20);
  t.equal(second.next, null);
  t.same(
    asked.map((a) => a.limit),
    [101, 101],
  );
});

t.test("a cursor the feed did not give is a 400", async (t) => {
  for (const bad of ["", "abc", `c1${"g".repeat(32)}`, "c1", ids[0] as string, `${feedCursor(ids[0] as string)}0`]) {
    try {
      await searchIssuedBadges(deps, "org", { filters: {} }, bad, 50);
      t.fail(`accepted ${bad}`);
    } catch (err) {
      t.ok(isCoreError(err) && err.code === "bad_request" && err.errors[0]?.field === "cursor", bad || "(empty)");
    }
  }
});
