import t from "tap";
import { BADGE_STATES, badgeVisibleOn, recordAnswer } from "../../core/badges/mod.ts";

/**
 * Every surface for every state, public or private, seen by anyone, by the earner and by another
 * account: the expected answers written out here, not derived from the table under test.
 */
const EXPECTED: Record<string, { page: string; profile: string; baked: string; records: string }> = {
  // state: who sees it (A anyone, E the earner, - no one) while public / while private
  pending: { page: "E/E", profile: "-/-", baked: "-/-", records: "not_found/not_found" },
  accepted: { page: "A/E", profile: "A/-", baked: "A/E", records: "served/not_found" },
  rejected: { page: "E/E", profile: "-/-", baked: "-/-", records: "not_found/not_found" },
  revoked: { page: "A/E", profile: "-/-", baked: "-/-", records: "gone/not_found" },
  replaced: { page: "A/E", profile: "-/-", baked: "A/E", records: "served/not_found" },
};

t.test("one visibility table: state x privacy x viewer x surface", async (t) => {
  t.same([...BADGE_STATES].sort(), Object.keys(EXPECTED).sort(), "every state has a row");
  for (const state of BADGE_STATES) {
    const row = EXPECTED[state] as (typeof EXPECTED)[string];
    for (const [i, isPublic] of [true, false].entries()) {
      const badge = { state, public: isPublic, user_id: "earner" };
      for (const surface of ["page", "profile", "baked"] as const) {
        const who = row[surface].split("/")[i] as string;
        const label = `${state}, ${isPublic ? "public" : "private"}, ${surface}`;
        t.equal(badgeVisibleOn(surface, badge, null), who === "A", `${label}: anyone`);
        t.equal(badgeVisibleOn(surface, badge, "someone else"), who === "A", `${label}: another account`);
        // The profile is public by nature: the earner's own view of it is the public one.
        t.equal(
          badgeVisibleOn(surface, badge, "earner"),
          who !== "-" && (surface !== "profile" || who === "A"),
          `${label}: the earner`,
        );
      }
      t.equal(recordAnswer(badge), row.records.split("/")[i], `${state}, ${isPublic ? "public" : "private"}, records`);
    }
  }
});
