import t from "tap";
import type { BadgeRecord } from "../../core/badges/mod.ts";
import { isCoreError } from "../../core/errors/mod.ts";
import {
  checkPlatformAuthorizeRequest,
  credentialPage,
  OB_SCOPES,
  type PlatformRecord,
  type PlatformStore,
  pageRelations,
  parseObScopeParam,
  profileNameOf,
  readCredentialQuery,
  readRegistration,
  registerPlatform,
} from "../../core/ob_api/mod.ts";

const HOST = "https://platform.example";
const good = {
  client_name: "Backpack",
  client_uri: `${HOST}/`,
  logo_uri: `${HOST}/logo.png`,
  tos_uri: `${HOST}/terms`,
  policy_uri: `${HOST}/privacy`,
  software_id: "sw",
  software_version: "1",
  redirect_uris: [`${HOST}/cb`],
  scope: `${OB_SCOPES[0]} offline_access`,
};

t.test("registration requests as the Open Badges API profiles RFC 7591", async (t) => {
  const ok = readRegistration(good);
  t.ok(ok.ok);
  if (ok.ok) t.equal(ok.value.scopes, OB_SCOPES[0], "offline_access accepted and dropped");
  const loopback = readRegistration({
    ...good,
    ...Object.fromEntries(["client_uri", "logo_uri", "tos_uri", "policy_uri"].map((k) => [k, "http://127.0.0.1:5/x"])),
    redirect_uris: ["http://127.0.0.1:5/cb"],
  });
  t.ok(loopback.ok, "http on a loopback host, for development");
  const cases: [string, Record<string, unknown>, string][] = [
    ["no name", { client_name: undefined }, "invalid_client_metadata"],
    ["blank name", { client_name: "  " }, "invalid_client_metadata"],
    ["name too long", { client_name: "x".repeat(201) }, "invalid_client_metadata"],
    ["no logo", { logo_uri: undefined }, "invalid_client_metadata"],
    ["logo over http", { logo_uri: "http://platform.example/logo.png" }, "invalid_client_metadata"],
    ["terms on another host", { tos_uri: "https://other.example/terms" }, "invalid_client_metadata"],
    ["no software id", { software_id: undefined }, "invalid_client_metadata"],
    ["no redirect URIs", { redirect_uris: [] }, "invalid_redirect_uri"],
    ["a string, not an array", { redirect_uris: `${HOST}/cb` }, "invalid_redirect_uri"],
    ["eleven", { redirect_uris: Array.from({ length: 11 }, (_, i) => `${HOST}/${i}`) }, "invalid_redirect_uri"],
    ["a fragment", { redirect_uris: [`${HOST}/cb#x`] }, "invalid_redirect_uri"],
    ["redirect on another host", { redirect_uris: ["https://other.example/cb"] }, "invalid_client_metadata"],
    ["no scope", { scope: undefined }, "invalid_client_metadata"],
    ["an organization scope", { scope: "issued_badges" }, "invalid_client_metadata"],
    ["auth method none", { token_endpoint_auth_method: "none" }, "invalid_client_metadata"],
    ["implicit grant", { grant_types: ["implicit"] }, "invalid_client_metadata"],
    ["token response type", { response_types: ["token"] }, "invalid_client_metadata"],
    ["six contacts", { contacts: ["a", "b", "c", "d", "e", "f"] }, "invalid_client_metadata"],
  ];
  for (const [what, change, error] of cases) {
    const read = readRegistration({ ...good, ...change });
    t.equal(read.ok ? "accepted" : read.error.error, error, what);
  }
  t.equal(readRegistration([]).ok, false, "an array");
  t.equal(readRegistration(null).ok, false, "null");
});

t.test("registration is capped in all", async (t) => {
  const rows: PlatformRecord[] = [];
  const store: PlatformStore = {
    count: async () => rows.length,
    insert: async (p) => {
      const row = { ...p, id: rows.length + 1 };
      rows.push(row);
      return row;
    },
    findByClientId: async (id) => rows.find((r) => r.client_id === id) ?? null,
    list: async () => rows,
    remove: async () => false,
  };
  let n = 0;
  const deps = { store, secrets: { newSecret: () => `s${n++}`, digest: (s: string) => `d(${s})` }, maxPlatforms: 2 };
  const request = readRegistration(good);
  if (!request.ok) throw new Error("a good request");
  const first = await registerPlatform(deps, { now: new Date(0) }, request.value);
  t.not(first.platform.secret_digest, first.secret, "only the digest is kept");
  t.equal(first.platform.secret_digest, `d(${first.secret})`);
  await registerPlatform(deps, { now: new Date(0) }, request.value);
  const third = await registerPlatform(deps, { now: new Date(0) }, request.value).catch((e: unknown) => e);
  t.ok(isCoreError(third) && third.code === "rate_limited", "the third of two is refused");
});

const platform = { id: 1, redirect_uris: `${HOST}/cb`, scopes: `${OB_SCOPES[0]} ${OB_SCOPES[2]}` } as PlatformRecord;
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

t.test("a platform's authorization request: OB scopes, only those it registered", async (t) => {
  const params = {
    client_id: "c",
    redirect_uri: `${HOST}/cb`,
    response_type: "code",
    state: "s",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
  };
  const ok = checkPlatformAuthorizeRequest(
    { ...params, scope: `${OB_SCOPES[2]} ${OB_SCOPES[0]} offline_access` },
    platform,
  );
  t.equal(ok.kind, "ok");
  if (ok.kind === "ok") t.same(ok.request.scopes, [OB_SCOPES[0], OB_SCOPES[2]]);
  const beyond = checkPlatformAuthorizeRequest({ ...params, scope: OB_SCOPES[1] }, platform);
  t.match(beyond, { kind: "redirect_error", location: /error=invalid_scope/ }, "upsert was not registered");
  const userScope = checkPlatformAuthorizeRequest({ ...params, scope: "profile" }, platform);
  t.match(userScope, { kind: "redirect_error", location: /error=invalid_scope/ }, "user scopes are not OB scopes");
  t.match(checkPlatformAuthorizeRequest({ ...params, code_challenge_method: "plain" }, platform), {
    kind: "redirect_error",
    location: /code_challenge_method/,
  });
  t.equal(checkPlatformAuthorizeRequest({ ...params, scope: OB_SCOPES[0] }, null).kind, "refuse");
  t.same(parseObScopeParam("offline_access"), { ok: false, error: "scope is required" });
});

t.test("getCredentials' query, page and links", async (t) => {
  const parse = (iso: string) => new Date(iso);
  t.same(readCredentialQuery({}, parse), { ok: true, value: { limit: 50, offset: 0, since: null } });
  t.same(readCredentialQuery({ limit: "500" }, parse), { ok: true, value: { limit: 100, offset: 0, since: null } });
  for (const bad of [
    { limit: "0" },
    { limit: "-1" },
    { limit: "x" },
    { offset: "1.5" },
    { since: "yesterday" },
    { limit: ["1", "2"] },
  ]) {
    t.equal(readCredentialQuery(bad, parse).ok, false, JSON.stringify(bad));
  }
  const since = readCredentialQuery({ since: "2025-01-01T00:00:00Z" }, parse);
  t.ok(since.ok && since.value.since?.getTime() === Date.UTC(2025, 0, 1));

  const table: [number, number, number, Record<string, number>][] = [
    [50, 0, 120, { next: 50, last: 100, first: 0 }],
    [50, 50, 120, { next: 100, last: 100, first: 0, prev: 0 }],
    [50, 100, 120, { last: 100, first: 0, prev: 50 }],
    [50, 0, 0, { last: 0, first: 0 }],
    [10, 5, 12, { last: 10, first: 0, prev: 0 }],
    [10, 5, 16, { next: 15, last: 10, first: 0, prev: 0 }],
  ];
  for (const [limit, offset, total, want] of table) {
    const got = Object.fromEntries(pageRelations({ limit, offset }, total).map((r) => [r.rel, r.offset]));
    t.same(got, want, `limit ${limit} offset ${offset} of ${total}`);
  }

  const badge = (id: string, state: string, pub: boolean, minute: number) => ({
    badge: { id, state, public: pub, issued_at: new Date(Date.UTC(2025, 0, 1, 0, minute)) } as BadgeRecord,
  });
  const views = [
    badge("c", "accepted", true, 3),
    badge("a", "accepted", true, 1),
    badge("p", "pending", true, 0),
    badge("h", "accepted", false, 2),
    badge("r", "rejected", true, 4),
  ];
  const all = { limit: 50, offset: 0, since: null };
  const ids = (r: { page: { badge: BadgeRecord }[]; total: number }) => [r.page.map((v) => v.badge.id), r.total];
  t.same(ids(credentialPage(views, { private_badges: false }, all)), [["a", "c"], 2], "accepted public, oldest first");
  t.same(ids(credentialPage(views, { private_badges: true }, all)), [["a", "h", "c"], 3], "private when allowed");
  t.same(
    ids(credentialPage(views, { private_badges: true }, { ...all, since: new Date(Date.UTC(2025, 0, 1, 0, 1)) })),
    [["h", "c"], 2],
  );
});

t.test("putProfile's name", async (t) => {
  t.same(profileNameOf({ givenName: "Ada", familyName: "Lovelace", name: "x" }), {
    first_name: "Ada",
    last_name: "Lovelace",
  });
  t.same(profileNameOf({ name: "Ada Lovelace" }), { first_name: "Ada Lovelace", last_name: "" });
  t.throws(() => profileNameOf({ phone: "1" }));
  t.throws(() => profileNameOf("Ada"));
});
