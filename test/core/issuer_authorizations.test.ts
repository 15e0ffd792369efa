import t from "tap";
import { type CoreError, isCoreError } from "../../core/errors/mod.ts";
import {
  AUTHORIZATION_STATES,
  type AuthorizationAction,
  type AuthorizationSide,
  type AuthorizationState,
  covers,
  getIssuerAuthorization,
  grantIssuer,
  type IssuerAuthorizationRecord,
  type IssuerAuthorizationStore,
  mayGrant,
  transition,
} from "../../core/issuer_authorizations/mod.ts";
import type { MemberActor, Role } from "../../core/members/mod.ts";

const G = "00000000-0000-4000-8000-00000000000a";
const I = "00000000-0000-4000-8000-00000000000b";
const X = "00000000-0000-4000-8000-00000000000c";
const T1 = "00000000-0000-4000-8000-0000000000f1";
const T2 = "00000000-0000-4000-8000-0000000000f2";
const now = new Date("2026-12-07T10:00:00.123Z");

const refusal = (run: () => unknown): CoreError | null => {
  try {
    run();
    return null;
  } catch (err) {
    if (isCoreError(err)) return err;
    throw err;
  }
};

const record = (state: AuthorizationState, fields: Partial<IssuerAuthorizationRecord> = {}) =>
  ({
    id: "00000000-0000-4000-8000-0000000000a1",
    grantor_id: G,
    issuer_id: I,
    state,
    all_templates: false,
    badge_template_ids: [T1],
    created_at: now,
    updated_at: now,
    accepted_at: null,
    ended_at: null,
    ended_by: null,
    ...fields,
  }) satisfies IssuerAuthorizationRecord;

t.test("state × action × organization: the whole table", async (t) => {
  // [organization, the path it came by] -> the answer for each state and action.
  const who: Array<[string, string, AuthorizationSide]> = [
    ["the grantor", G, "grantor"],
    ["the issuer", I, "issuer"],
    ["the grantor by the issuer's path", G, "issuer"],
    ["the issuer by the grantor's path", I, "grantor"],
    ["a stranger", X, "grantor"],
    ["a stranger", X, "issuer"],
  ];
  const expected = (
    org: string,
    side: AuthorizationSide,
    state: AuthorizationState,
    action: AuthorizationAction,
  ): string => {
    const real = org === G ? "grantor" : org === I ? "issuer" : null;
    if (real !== side) return "not_found";
    if (action === "accept" && side === "grantor") return "forbidden";
    if (state === "ended") return "validation_failed";
    if (action === "accept") return state === "pending" ? "accepted" : "validation_failed";
    return "ended";
  };
  for (const [name, org, side] of who)
    for (const state of AUTHORIZATION_STATES)
      for (const action of ["accept", "end"] as const) {
        const err = refusal(() => transition(record(state), org, side, action));
        const got = err ? err.code : transition(record(state), org, side, action);
        t.equal(got, expected(org, side, state, action), `${name} (${side} path), ${state}, ${action}`);
      }
});

t.test("no authorization of oneself; what an authorization covers", async (t) => {
  t.equal(refusal(() => mayGrant(G, G))?.code, "validation_failed");
  t.equal(
    refusal(() => mayGrant(G, I)),
    null,
  );
  t.ok(covers(record("accepted"), T1), "a named template, accepted");
  t.ok(covers(record("accepted"), T1.toUpperCase()), "whatever the id's case");
  t.notOk(covers(record("accepted"), T2), "a template it does not name");
  t.ok(covers(record("accepted", { all_templates: true, badge_template_ids: [] }), T2), "every template");
  t.notOk(covers(record("pending"), T1), "not before it is accepted");
  t.notOk(covers(record("ended", { all_templates: true }), T1), "nothing once ended");
});

t.test("roles: owners and admins grant; issuers and viewers of the grantor may not; the issuer reads", async (t) => {
  const store = {
    organizationExists: async () => true,
    foreignTemplates: async () => [],
    transaction: async () => {
      throw new Error("not reached in this test");
    },
    get: async () => ({ ...record("pending"), grantor_name: "G", issuer_name: "I", badge_templates: [] }),
    list: async () => ({ items: [], total: 0 }),
  } satisfies IssuerAuthorizationStore;
  const ctx = { now, newId: () => "00000000-0000-4000-8000-0000000000a2" };
  const member = (role: Role, organizationId = G): MemberActor => ({
    kind: "member",
    accountId: "acc",
    organizationId,
    role,
  });
  for (const role of ["issuer", "viewer"] as const) {
    const err = await grantIssuer(store, ctx, member(role), null, G, { issuer_organization_id: I }).then(
      () => null,
      (e: CoreError) => e,
    );
    t.equal(err?.code, "forbidden", `a grantor's ${role} cannot grant`);
  }
  const other = await grantIssuer(store, ctx, member("owner", X), null, G, { issuer_organization_id: I }).then(
    () => null,
    (e: CoreError) => e,
  );
  t.equal(other?.code, "forbidden", "a member of another organization cannot grant");
  t.equal(
    (await getIssuerAuthorization(store, member("viewer", I), I, "issuer", "x")).issuer_id,
    I,
    "an issuer's viewer reads what it may issue",
  );
});
