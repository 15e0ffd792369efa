import t from "tap";
import type { BadgeRecord, BadgeState } from "../../core/badges/mod.ts";
import {
  badgePageVisible,
  badgeStatus,
  canDecide,
  checkLink,
  type EarnerLink,
  LINK_LIMITS,
  linkRequestAllowed,
  onPublicProfile,
  safeNext,
  sessionActive,
  validVanity,
} from "../../core/earners/mod.ts";

const now = new Date("2026-01-01T12:00:00Z");
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);

const badge = (state: BadgeState, fields: Partial<BadgeRecord> = {}): BadgeRecord =>
  ({
    id: "b",
    state,
    public: true,
    user_id: "u1",
    recipient_email: "Ada@Example.org",
    expires_at: null,
    revocation_reason: null,
    replacement_badge_id: null,
    ...fields,
  }) as BadgeRecord;

t.test("safeNext keeps paths inside Laurel only", async (t) => {
  const table: [string | undefined, string | null][] = [
    ["/badges/1", "/badges/1"],
    ["/wallet?x=1", "/wallet?x=1"],
    [undefined, null],
    ["", null],
    ["https://evil.example/", null],
    ["//evil.example/", null],
    ["/\\evil.example", null],
    ["javascript:alert(1)", null],
    ["/a\r\nSet-Cookie: x=1", null],
    [`/${"a".repeat(600)}`, null],
  ];
  for (const [input, expected] of table) t.equal(safeNext(input), expected, JSON.stringify(input));
});

t.test("links: unknown, used, expired, ok", async (t) => {
  const link = { used_at: null, expires_at: minutes(15) } as EarnerLink;
  t.equal(checkLink(null, now), "unknown");
  t.equal(checkLink(link, now), "ok");
  t.equal(checkLink({ ...link, used_at: now }, now), "used");
  t.equal(checkLink({ ...link, expires_at: now }, now), "expired");
  t.equal(checkLink(link, minutes(16)), "expired");
});

t.test("link request limits per address and per client", async (t) => {
  t.ok(linkRequestAllowed({ address: 0, client: 0 }));
  t.ok(linkRequestAllowed({ address: LINK_LIMITS.perAddress - 1, client: LINK_LIMITS.perClient - 1 }));
  t.notOk(linkRequestAllowed({ address: LINK_LIMITS.perAddress, client: 0 }));
  t.notOk(linkRequestAllowed({ address: 0, client: LINK_LIMITS.perClient }));
});

t.test("sessions: active until revoked or expired", async (t) => {
  const s = { token_hash: "h", user_id: "u", created_at: now, expires_at: minutes(1), revoked_at: null };
  t.ok(sessionActive(s, now));
  t.notOk(sessionActive(null, now));
  t.notOk(sessionActive({ ...s, revoked_at: now }, now));
  t.notOk(sessionActive(s, minutes(1)));
});

t.test("badge page visibility: state x public x viewer", async (t) => {
  const visible: Record<BadgeState, boolean> = {
    pending: false,
    accepted: true,
    rejected: false,
    revoked: true,
    replaced: true,
  };
  for (const [state, expected] of Object.entries(visible) as [BadgeState, boolean][]) {
    t.equal(badgePageVisible(badge(state), null), expected, `${state}, public, visitor`);
    t.equal(badgePageVisible(badge(state, { public: false }), null), false, `${state}, private, visitor`);
    t.equal(badgePageVisible(badge(state, { public: false }), "u1"), true, `${state}, private, its earner`);
    t.equal(badgePageVisible(badge(state, { public: false }), "u2"), false, `${state}, private, another earner`);
    t.equal(onPublicProfile(badge(state)), state === "accepted", `${state} on the profile`);
  }
});

t.test("status line", async (t) => {
  t.same(badgeStatus(badge("accepted"), now), { kind: "valid" });
  t.same(badgeStatus(badge("accepted", { expires_at: now }), now), { kind: "expired" });
  t.same(badgeStatus(badge("revoked", { revocation_reason: "why" }), now), { kind: "revoked", reason: "why" });
  t.same(badgeStatus(badge("replaced", { replacement_badge_id: "n" }), now), { kind: "replaced", replacement_id: "n" });
  t.same(badgeStatus(badge("pending"), now), { kind: "pending" });
  t.same(badgeStatus(badge("rejected"), now), { kind: "rejected" });
});

t.test("deciding needs the badge's address confirmed on the account", async (t) => {
  const user = (confirmed: boolean) => ({
    id: "u1",
    first_name: "Ada",
    last_name: "L",
    emails: [{ email: "ada@example.org", confirmed }],
    created_at: now,
    updated_at: now,
  });
  t.ok(canDecide(badge("pending"), user(true)), "confirmed, compared normalized");
  t.notOk(canDecide(badge("pending"), user(false)), "unconfirmed");
  t.notOk(canDecide(badge("pending", { user_id: "u2" }), user(true)), "another account's badge");
});

t.test("vanity names", async (t) => {
  for (const ok of ["ada", "ada-lovelace", "A1b"]) t.ok(validVanity(ok), ok);
  for (const bad of [
    "ab",
    "1ada",
    "ada lovelace",
    "ada!",
    "-ada",
    "a".repeat(41),
    "0190b0a0-0000-7000-8000-000000000000",
    "abcdef01-2345-4789-8abc-def012345678",
    "ABCDEF01-2345-4789-8ABC-DEF012345678",
    "abcdef0123454789abcdef0123456789",
  ])
    t.notOk(validVanity(bad), bad);
});
