import t from "tap";
import { parseUserGrantRequest, parseUserScopeParam } from "../../core/auth/mod.ts";
import {
  type BadgeVisibility,
  checkAuthorizeRequest,
  type GrantRecord,
  grantCovers,
  mergeConnectEvents,
  publicBadgesEventFor,
  publicBadgesEvents,
  redirectWith,
  templateChangeEvents,
} from "../../core/connect/mod.ts";
import {
  checkRedirectUris,
  type OAuthApplicationRecord,
  redirectUriProblem,
  redirectUriRegistered,
} from "../../core/credentials/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";

/** What a rule returns, or the CoreError it throws: both are answers these tables check. */
const caught = <T>(run: () => T): T | CoreError => {
  const result = resultOf(run);
  return result.ok ? result.value : result.error;
};

const USER = "0193a7e0-0000-7000-8000-000000000001";
const badge = (state: string, isPublic: boolean, user: string | null = USER): BadgeVisibility => ({
  state,
  public: isPublic,
  user_id: user,
});

t.test("public badge events: one row per rule", async (t) => {
  const rows: Array<[string, BadgeVisibility | null, BadgeVisibility | null, boolean, string | null]> = [
    ["accept a public badge", badge("pending", true), badge("accepted", true), true, "user.public_badges.added"],
    ["accept a private badge", badge("pending", false), badge("accepted", false), true, null],
    ["reject", badge("pending", true), badge("rejected", true), true, null],
    ["make private", badge("accepted", true), badge("accepted", false), true, "user.public_badges.removed"],
    ["make public", badge("accepted", false), badge("accepted", true), true, "user.public_badges.added"],
    [
      "revoke an accepted public badge",
      badge("accepted", true),
      badge("revoked", true),
      true,
      "user.public_badges.removed",
    ],
    ["revoke a pending badge", badge("pending", true), badge("revoked", true), true, null],
    [
      "replace an accepted public badge",
      badge("accepted", true),
      badge("replaced", true),
      true,
      "user.public_badges.removed",
    ],
    ["delete an accepted public badge", badge("accepted", true), null, false, "user.public_badges.removed"],
    ["delete a private badge", badge("accepted", false), null, false, null],
    ["changing hands is the merge rule's", badge("accepted", true), badge("accepted", true, "other"), false, null],
    [
      "visible badge whose shape changed",
      badge("accepted", true),
      badge("accepted", true),
      true,
      "user.public_badges.changed",
    ],
    ["visible badge, nothing changed", badge("accepted", true), badge("accepted", true), false, null],
    ["no earner yet", badge("accepted", true, null), badge("accepted", true, null), true, null],
    ["issued", null, badge("pending", true), true, null],
  ];
  for (const [name, before, after, shapeChanged, expected] of rows) {
    t.equal(publicBadgesEventFor(before, after, shapeChanged), expected, name);
  }
  const events = publicBadgesEvents("user.public_badges.added", USER, { id: "b" } as never, ["org-a", "org-b"], {
    now: new Date(0),
    newEventId: (() => {
      let n = 0;
      return () => `e${++n}`;
    })(),
  });
  t.same(
    events.map((e) => [e.id, e.organization_id, e.detail.user_id]),
    [
      ["e1", "org-a", USER],
      ["e2", "org-b", USER],
    ],
  );
});

t.test("public badge events of a merge: one row per situation", async (t) => {
  const [SOURCE, DEST] = ["source-user", "destination-user"];
  const moved = (id: string, state: string, isPublic: boolean) => ({
    visibility: badge(state, isPublic, SOURCE),
    shape: { id } as never,
  });
  const shown = moved("shown", "accepted", true);
  const rows: Array<[string, ReturnType<typeof moved>[], string[], string[], string[]]> = [
    ["nobody connected", [shown], [], [], []],
    [
      "connected to the merged-away account only: its badges go, and so does access",
      [shown],
      ["org-s"],
      [],
      ["org-s user.public_badges.removed source-user shown", "org-s user.connect_access.removed source-user -"],
    ],
    [
      "connected to the surviving account only: the moved badges arrive",
      [shown],
      [],
      ["org-d"],
      ["org-d user.public_badges.added destination-user shown"],
    ],
    [
      "connected to both: gone under one id, arrived under the other",
      [shown],
      ["org-b"],
      ["org-b"],
      [
        "org-b user.public_badges.removed source-user shown",
        "org-b user.connect_access.removed source-user -",
        "org-b user.public_badges.added destination-user shown",
      ],
    ],
    [
      "badges nobody saw move silently",
      [moved("private", "accepted", false), moved("pending", "pending", true), moved("revoked", "revoked", true)],
      ["org-s"],
      ["org-d"],
      ["org-s user.connect_access.removed source-user -"],
    ],
    ["nothing moved, nobody lost access", [], [], ["org-d"], []],
  ];
  for (const [name, badges, sourceOrganizations, destinationOrganizations, expected] of rows) {
    let n = 0;
    const events = mergeConnectEvents(
      { source: SOURCE, destination: DEST, sourceOrganizations, destinationOrganizations },
      badges,
      { now: new Date(0), newEventId: () => `e${++n}` },
    );
    t.same(
      events.map(
        (e) =>
          `${e.organization_id} ${e.event_type} ${e.detail.user_id} ${(e.detail.badge as { id: string } | undefined)?.id ?? "-"}`,
      ),
      expected,
      name,
    );
    t.same(new Set(events.map((e) => e.id)).size, events.length, `${name}: an id each`);
  }
});

t.test("public badge events of a template edit: one row per situation", async (t) => {
  const shape = (name: string, state = "accepted") => ({ id: "b", state, badge_template: { name } }) as never;
  const rows: Array<[string, BadgeVisibility, string, string, string[], string[]]> = [
    ["renamed, visible", badge("accepted", true), "Rust", "Rust 2", ["org-a", "org-b"], ["org-a", "org-b"]],
    ["an edit the badge does not show", badge("accepted", true), "Rust", "Rust", ["org-a"], []],
    ["renamed, private", badge("accepted", false), "Rust", "Rust 2", ["org-a"], []],
    ["renamed, pending", badge("pending", true), "Rust", "Rust 2", ["org-a"], []],
    ["renamed, revoked", badge("revoked", true), "Rust", "Rust 2", ["org-a"], []],
    ["renamed, nobody connected", badge("accepted", true), "Rust", "Rust 2", [], []],
  ];
  for (const [name, visibility, before, after, organizations, expected] of rows) {
    let n = 0;
    const events = templateChangeEvents([{ visibility, before: shape(before), after: shape(after), organizations }], {
      now: new Date(0),
      newEventId: () => `e${++n}`,
    });
    t.same(
      events.map((e) => e.organization_id),
      expected,
      name,
    );
    for (const e of events) {
      t.equal(e.event_type, "user.public_badges.changed", `${name}: changed`);
      t.same(
        [e.detail.user_id, (e.detail.badge as { badge_template: { name: string } }).badge_template.name],
        [USER, after],
      );
    }
  }
});

t.test("redirect URIs", async (t) => {
  for (const ok of [
    "https://a.example/cb",
    "https://a.example:8443/cb?x=1",
    "http://127.0.0.1:9/cb",
    "http://localhost/",
    "http://[::1]:80/x",
  ]) {
    t.equal(redirectUriProblem(ok), null, ok);
  }
  for (const bad of [
    "http://a.example/cb",
    "ftp://a.example/",
    "https://a.example/#f",
    "https://u@a.example/",
    "cb",
    "https://",
  ]) {
    t.not(redirectUriProblem(bad), null, bad);
  }
  t.equal(
    caught(() => checkRedirectUris(["https://a.example/", "https://a.example/"])),
    "https://a.example/",
    "duplicates fold",
  );
  const refused = caught(() => checkRedirectUris(["https://ok.example/", "https://a b.example/"]));
  t.ok(isCoreError(refused) && refused.errors[0]?.field === "redirect_uris.1");
  const registered = ["https://a.example/cb", "http://127.0.0.1:8080/cb"];
  t.ok(redirectUriRegistered(registered, "https://a.example/cb"));
  t.notOk(redirectUriRegistered(registered, "https://a.example/cb/"), "exact match for https");
  t.ok(redirectUriRegistered(registered, "http://127.0.0.1:51234/cb"), "loopback: any port (RFC 8252)");
  t.notOk(redirectUriRegistered(registered, "http://127.0.0.1:51234/other"));
  t.notOk(redirectUriRegistered(registered, "http://localhost:8080/cb"), "the host must match");
  t.notOk(redirectUriRegistered(registered, "not a uri"));
});

const app = { id: 7, organization_id: "org", redirect_uris: "https://a.example/cb" } as OAuthApplicationRecord;
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

t.test("authorization requests", async (t) => {
  const good = {
    client_id: "c",
    redirect_uri: "https://a.example/cb",
    response_type: "code",
    scope: "public_badges profile profile",
    state: "s",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
  };
  const ok = checkAuthorizeRequest(good, app);
  t.equal(ok.kind, "ok");
  if (ok.kind === "ok") t.same(ok.request.scopes, ["profile", "public_badges"]);
  t.same(checkAuthorizeRequest({ ...good, client_id: undefined }, app).kind, "refuse");
  t.same(checkAuthorizeRequest(good, null).kind, "refuse");
  t.same(checkAuthorizeRequest({ ...good, redirect_uri: ["a", "b"] }, app).kind, "refuse");
  t.same(checkAuthorizeRequest({ ...good, redirect_uri: "https://b.example/cb" }, app).kind, "refuse");
  for (const [params, error] of [
    [{ state: ["a", "b"] }, "invalid_request"],
    [{ scope: ["a", "b"] }, "invalid_request"],
    [{ response_type: "token" }, "unsupported_response_type"],
    [{ code_challenge: undefined }, "invalid_request"],
    [{ code_challenge_method: "plain" }, "invalid_request"],
    [{ code_challenge: "short" }, "invalid_request"],
    [{ scope: "events" }, "invalid_scope"],
    [{ scope: "" }, "invalid_scope"],
  ] as const) {
    const r = checkAuthorizeRequest({ ...good, ...params }, app);
    t.equal(r.kind, "redirect_error", JSON.stringify(params));
    if (r.kind === "redirect_error") t.match(r.location, `error=${error}`);
  }
  t.equal(
    redirectWith("https://a.example/cb?x=1", { code: "a b", state: null }),
    "https://a.example/cb?x=1&code=a%20b",
  );
  const grant = { scopes: "profile" } as GrantRecord;
  t.ok(grantCovers(grant, ["profile"]));
  t.notOk(grantCovers(grant, ["profile", "public_badges"]));
  t.notOk(grantCovers(null, ["profile"]));
  t.same(parseUserScopeParam("x"), { ok: false, error: "unknown scope: x" });
});

/** The RFC 6749 name a request reader throws, or null when it reads the request. */
const oauthRefusal = (read: () => unknown): string | null => {
  try {
    read();
    return null;
  } catch (err) {
    if (!isCoreError(err)) throw err;
    return err.oauth ?? err.code;
  }
};

t.test("token requests of the user grants", async (t) => {
  const creds = { clientId: "c", clientSecret: "s" };
  const code = {
    grant_type: "authorization_code",
    code: "k",
    redirect_uri: "https://a.example/cb",
    code_verifier: "v",
  };
  t.same(parseUserGrantRequest(code, creds), {
    grant: "authorization_code",
    ...creds,
    code: "k",
    redirectUri: "https://a.example/cb",
    codeVerifier: "v",
  });
  for (const [params, error] of [
    [{ ...code, code: "" }, "invalid_request"],
    [{ ...code, redirect_uri: "" }, "invalid_request"],
    [{ ...code, code_verifier: "" }, "invalid_request"],
    [{ ...code, code: ["a"] }, "invalid_request"],
    [{ grant_type: "refresh_token" }, "invalid_request"],
  ] as const) {
    t.equal(
      oauthRefusal(() => parseUserGrantRequest(params, creds)),
      error,
      JSON.stringify(params),
    );
  }
  const refresh = parseUserGrantRequest({ grant_type: "refresh_token", refresh_token: "r" }, creds);
  t.equal(refresh.grant, "refresh_token");
  const noClient = oauthRefusal(() => parseUserGrantRequest({ grant_type: "refresh_token", refresh_token: "r" }, null));
  t.equal(noClient, "invalid_client");
});
