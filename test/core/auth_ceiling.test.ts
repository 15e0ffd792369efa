import t from "tap";
import {
  type Action,
  allowedScopes,
  authorize,
  type Ceiling,
  type Credential,
  ceilingOf,
  checkScopeList,
  type Flags,
  FULL_CEILING,
  flagsOf,
  grantScopes,
  newTokenFlags,
  SCOPES,
  type Scope,
  scopesWithinCeiling,
  seesOnlyReadOnlyTokens,
} from "../../core/auth/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";

/** What a rule returns, or the CoreError it throws: both are answers these tables check. */
const caught = <T>(run: () => T): T | CoreError => {
  const result = resultOf(run);
  return result.ok ? result.value : result.error;
};

/** The CoreError a check throws, or null when it passes. */
const refusal = (run: () => void): CoreError | null => {
  const result = resultOf(run);
  return result.ok ? null : result.error;
};

const ORG = "0b1e6c43-53f2-4b1a-9f1d-6f0a9d0a2b11";
const flags = (r: boolean, w: boolean, d: boolean): Flags => ({
  read_enabled: r,
  write_enabled: w,
  delete_enabled: d,
});
const EVERY_FLAGS = [false, true].flatMap((r) =>
  [false, true].flatMap((w) => [false, true].map((d) => flags(r, w, d))),
);
const name = (f: Flags): string =>
  `${f.read_enabled ? "r" : "-"}${f.write_enabled ? "w" : "-"}${f.delete_enabled ? "d" : "-"}`;
const token = (f: Flags): Credential => ({ kind: "authorization_token", organizationId: ORG, tokenId: "t", ...f });
const bearer = (scopes: Scope[], ceiling: Flags): Credential => ({
  kind: "oauth",
  organizationId: ORG,
  applicationId: 1,
  clientId: "c",
  jti: "j",
  scopes,
  ceiling,
});
const full = (f: Flags) => f.read_enabled && f.write_enabled && f.delete_enabled;
const FLAG: Record<Action, keyof Flags> = { read: "read_enabled", write: "write_enabled", delete: "delete_enabled" };

t.test("ceiling x scope: authorization_tokens only under a full ceiling, every other scope always", async (t) => {
  for (const f of EVERY_FLAGS) {
    const within = scopesWithinCeiling({ flags: f, scopes: null });
    for (const s of SCOPES) {
      const expected = s !== "authorization_tokens" || full(f);
      t.equal(within.includes(s), expected, `${name(f)} ${s}`);
    }
  }
  t.same(scopesWithinCeiling(FULL_CEILING), [...SCOPES]);
});

t.test("ceiling scopes from an access token bound what an application may hold", async (t) => {
  const ceiling = { flags: flags(true, true, true), scopes: ["events", "badge_templates"] as Scope[] };
  t.same(scopesWithinCeiling(ceiling), ["badge_templates", "events"]);
  t.same(allowedScopes({ ceiling, scopes: null }), ["badge_templates", "events"]);
  t.same(allowedScopes({ ceiling, scopes: ["events", "workforce"] }), ["events"], "explicit list within the ceiling");
  t.same(allowedScopes({ ceiling: FULL_CEILING, scopes: ["workforce"] }), ["workforce"]);
});

t.test("grant: every requested scope must be allowed", async (t) => {
  const table: Array<[Scope[], Scope[], Scope[] | null]> = [
    [["events"], ["events", "workforce"], null],
    [["events", "workforce"], ["events", "workforce"], null],
    [["authorization_tokens"], ["events"], ["authorization_tokens"]],
    [["events", "authorization_tokens", "workforce"], ["events"], ["authorization_tokens", "workforce"]],
  ];
  for (const [requested, allowed, refused] of table) {
    const r = grantScopes(requested, allowed);
    if (refused === null) t.same(r, { ok: true, value: requested }, requested.join(" "));
    else t.same(r, { ok: false, error: refused }, requested.join(" "));
  }
});

t.test("ceilingOf: a Basic token gives its flags, a Bearer token its ceiling and scopes", async (t) => {
  for (const f of EVERY_FLAGS) {
    t.same(ceilingOf(token(f)), { flags: f, scopes: null }, name(f));
    t.same(ceilingOf(bearer(["events"], f)), { flags: f, scopes: ["events"] }, name(f));
  }
});

t.test("permission x ceiling: an access token never does more than its ceiling's flags", async (t) => {
  for (const f of EVERY_FLAGS) {
    for (const family of SCOPES) {
      for (const action of ["read", "write", "delete"] as const) {
        const cred = bearer([family], f);
        const refused = refusal(() => authorize(cred, { organizationId: ORG, family, action }));
        t.equal(refused === null, f[FLAG[action]], `${name(f)} ${family} ${action}`);
        const otherFamily = family === "events" ? "workforce" : "events";
        t.not(
          refusal(() => authorize(cred, { organizationId: ORG, family: otherFamily, action })),
          null,
          "scope still needed",
        );
      }
    }
    t.same(flagsOf(bearer(["authorization_tokens"], f), "authorization_tokens"), f);
    t.same(flagsOf(bearer(["events"], f), "authorization_tokens"), flags(false, false, false));
    t.equal(seesOnlyReadOnlyTokens(bearer(["authorization_tokens"], f)), !(f.write_enabled && f.delete_enabled));
    const minted = caught(() => newTokenFlags(bearer(["authorization_tokens"], f), {}));
    t.same(minted, f, "a token minted by an access token inherits at most the ceiling");
    const everything = caught(() => newTokenFlags(bearer(["authorization_tokens"], f), flags(true, true, true)));
    t.equal(isCoreError(everything), !full(f), `${name(f)} asking for every flag`);
  }
});

t.test("an explicit scope list lies within the application's ceiling and the caller's reach", async (t) => {
  const writeOnly = { flags: flags(false, true, false), scopes: null };
  const table: Array<[string, Scope[], Ceiling, Credential, Scope[] | null]> = [
    [
      "full creator, any list",
      ["workforce", "events"],
      FULL_CEILING,
      token(flags(true, true, true)),
      ["events", "workforce"],
    ],
    [
      "authorization_tokens under a write-only ceiling",
      ["authorization_tokens"],
      writeOnly,
      token(flags(true, true, true)),
      null,
    ],
    [
      "authorization_tokens by a lesser caller",
      ["authorization_tokens"],
      FULL_CEILING,
      token(flags(true, true, false)),
      null,
    ],
    [
      "a scope the calling access token lacks",
      ["workforce"],
      FULL_CEILING,
      bearer(["events"], flags(true, true, true)),
      null,
    ],
    [
      "a scope the calling access token holds",
      ["events"],
      FULL_CEILING,
      bearer(["events"], flags(true, true, true)),
      ["events"],
    ],
    [
      "a scope beyond the ceiling's scopes",
      ["workforce"],
      { flags: flags(true, true, true), scopes: ["events"] },
      token(flags(true, true, true)),
      null,
    ],
  ];
  for (const [label, list, ceiling, caller, expected] of table) {
    const r = caught(() => checkScopeList(list, ceiling, caller));
    if (expected === null) {
      t.ok(isCoreError(r) && r.code === "forbidden", label);
    } else {
      t.same(r, expected, label);
    }
  }
});
