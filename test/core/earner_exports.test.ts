import t from "tap";
import {
  type EarnerExportRecord,
  EXPORT_LINK_TTL_MS,
  type ExportStore,
  exportExpiry,
  exportForLink,
} from "../../core/earners/mod.ts";
import { bakedImageVisible } from "../../core/obi/mod.ts";
import { bakedBadgeInput } from "../../core/workforce/mod.ts";

const readyAt = new Date("2026-11-27T12:00:00Z");
const record: EarnerExportRecord = {
  id: "e1",
  user_id: "u1",
  state: "ready",
  token_digest: "digest:secret",
  size_bytes: 10,
  created_at: readyAt,
  ready_at: readyAt,
  expires_at: exportExpiry(readyAt),
};
const deps = (r: EarnerExportRecord | null) => ({
  store: { get: async () => r } as unknown as ExportStore,
  digest: (token: string) => `digest:${token}`,
  equal: (a: string, b: string) => a === b,
});
const at = (ms: number) => new Date(readyAt.getTime() + ms);

t.test("an export's link works for 7 days with its token, and is refused after", async (t) => {
  t.equal(EXPORT_LINK_TTL_MS, 7 * 86_400_000);
  t.equal(await exportForLink(deps(record), "e1", "secret", at(0)), record);
  t.equal(await exportForLink(deps(record), "e1", "secret", at(EXPORT_LINK_TTL_MS - 1)), record, "the last moment");
  t.equal(await exportForLink(deps(record), "e1", "secret", at(EXPORT_LINK_TTL_MS)), "expired", "7 days on");
  for (const [what, r, token] of [
    ["a wrong token", record, "guess"],
    ["no token", record, ""],
    ["an unknown export", null, "secret"],
    ["one still being written", { ...record, state: "pending", token_digest: null }, "secret"],
  ] as const) {
    await t.rejects(
      exportForLink(deps(r as EarnerExportRecord | null), "e1", token, at(0)),
      { code: "not_found" },
      what,
    );
  }
});

t.test("who may download a baked image, by state and privacy", async (t) => {
  const cases = [
    ["accepted", true, null, true],
    ["accepted", false, null, false],
    ["accepted", false, "u1", true],
    ["accepted", false, "u2", false],
    ["replaced", true, null, true],
    ["revoked", true, "u1", false],
    ["pending", true, "u1", false],
    ["rejected", true, "u1", false],
  ] as const;
  for (const [state, isPublic, viewer, expected] of cases) {
    t.equal(
      bakedImageVisible({ state, public: isPublic, user_id: "u1" }, viewer),
      expected,
      `${state} ${isPublic} ${viewer}`,
    );
  }
});

t.test("what a baked image amounts to as the add form", async (t) => {
  const url = "https://issuer.example/assertions/1";
  t.same(bakedBadgeInput({ kind: "assertion", text: url, verify: null }), { url });
  t.same(bakedBadgeInput({ kind: "assertion", text: JSON.stringify({ id: url }), verify: null }), { url });
  t.same(bakedBadgeInput({ kind: "assertion", text: "{}", verify: url }), { url }, "the SVG's verify attribute");
  t.same(bakedBadgeInput({ kind: "credential", text: "a.b.c" }), { credential: "a.b.c" });
  for (const [upload, message] of [
    ["not_an_image", /not a PNG or SVG/],
    ["no_record", /no Open Badges record/],
    ["too_large", /larger than 2 MiB/],
  ] as const) {
    t.throws(() => bakedBadgeInput(upload), { code: "validation_failed", message });
  }
  t.throws(() => bakedBadgeInput({ kind: "assertion", text: "{}", verify: null }), { code: "validation_failed" });
});
