import t from "tap";
import {
  ACCEPT_LINK_SIGN_IN_MS,
  acceptLinkSignsIn,
  acceptTokenMintedAt,
  mintAcceptToken,
} from "../../core/issuing/mod.ts";

/**
 * A pending-badge link's token carries when it was made, under the stored digest; it signs its
 * recipient in for 14 days from then, never before it was made (beyond a few minutes of clock
 * difference between processes), and a token without its time never does.
 */
const random = "Q2xvY2tz_aW4tdGhlLXRva2VuLTI1Ni1iaXRzLWxvbmc";
const made = new Date("2026-12-01T10:00:00Z");
const token = mintAcceptToken({ newToken: () => random }, made);

t.test("the token: its time, then the random part, in the base64url alphabet", async (t) => {
  t.match(token, /^[0-9a-z]{10}[A-Za-z0-9_-]+$/);
  t.ok(token.endsWith(random));
  t.same(acceptTokenMintedAt(token), made);
  t.equal(acceptTokenMintedAt(random), null, "a token of before (random only) has no time");
  t.equal(acceptTokenMintedAt(""), null);
  t.equal(acceptTokenMintedAt(`${token.slice(0, 10)}short`), null, "too short a random part");
});

t.test("when it signs in", async (t) => {
  const at = (ms: number) => new Date(made.getTime() + ms);
  for (const [label, now, signs] of [
    ["at once", at(0), true],
    ["a day later", at(86_400_000), true],
    ["just before 14 days", at(ACCEPT_LINK_SIGN_IN_MS - 1), true],
    ["at 14 days", at(ACCEPT_LINK_SIGN_IN_MS), false],
    ["a month later", at(30 * 86_400_000), false],
    ["on a process a minute behind", at(-60_000), true],
    ["made an hour from now", at(-3_600_000), false],
  ] as const) {
    t.equal(acceptLinkSignsIn(token, now), signs, label);
  }
  t.equal(acceptLinkSignsIn(random, made), false, "a token without its time never signs in");
});
