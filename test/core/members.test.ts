import t from "tap";
import { renderMail } from "../../adapters/mail/mod.ts";
import type { AuditRecord } from "../../core/audit/mod.ts";
import { auditRecord, decodeAuditCursor, encodeAuditCursor, readAuditLog } from "../../core/audit/mod.ts";
import type { Credential } from "../../core/auth/mod.ts";
import type { SecretBox } from "../../core/credentials/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";
import {
  acceptInvitation,
  allowed,
  cancelInvitation,
  changeRole,
  createOrganizationBySignup,
  INVITATION_TTL_MS,
  type InvitationRecord,
  invitationForToken,
  invite,
  MEMBER_ACTIONS,
  type MemberAction,
  type MemberActor,
  type MemberStore,
  type MembershipRecord,
  mayChangeRole,
  mayInvite,
  mayRemove,
  memberOffers,
  membershipOf,
  organizationsOf,
  ROLES,
  type Role,
  removeMember,
  roleCeiling,
  updateOrganizationProfile,
  withinRoleCeiling,
} from "../../core/members/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";

/** The CoreError a check throws, or null when it passes. */
const refusal = (run: () => void): CoreError | null => {
  const result = resultOf(run);
  return result.ok ? null : result.error;
};

const ORG = "0b1e6c43-53f2-4b1a-9f1d-6f0a9d0a2b11";
const OTHER = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

// The table, spelled out row by row: a change to PERMISSIONS must change this too.
const EXPECTED: Record<Role, readonly MemberAction[]> = {
  owner: MEMBER_ACTIONS,
  admin: MEMBER_ACTIONS.filter((a) => a !== "ownership.change"),
  issuer: [
    "members.read",
    "profile.read",
    "templates.read",
    "badges.read",
    "badges.issue",
    "badges.revoke",
    "badges.replace",
    "employees.read",
  ],
  viewer: ["members.read", "profile.read", "templates.read", "badges.read", "employees.read"],
};

t.test("role x action: exactly the expected cells are allowed", async (t) => {
  for (const role of ROLES) {
    for (const action of MEMBER_ACTIONS) {
      t.equal(allowed(role, action), EXPECTED[role].includes(action), `${role} ${action}`);
    }
  }
});

t.test("issuer and viewer have no Developers section, no audit and change nothing of members", async (t) => {
  for (const role of ["issuer", "viewer"] as const) {
    for (const action of [
      "developers.read",
      "developers.write",
      "audit.read",
      "members.invite",
      "members.change_role",
      "members.remove",
      "profile.update",
    ] as const) {
      t.notOk(allowed(role, action), `${role} ${action}`);
    }
  }
  for (const action of MEMBER_ACTIONS.filter((a) => !a.endsWith(".read"))) {
    t.notOk(allowed("viewer", action), `viewer ${action}`);
  }
});

t.test("role ceilings of authorization tokens", async (t) => {
  const all = { read_enabled: true, write_enabled: true, delete_enabled: true };
  const none = { read_enabled: false, write_enabled: false, delete_enabled: false };
  t.same(roleCeiling("owner"), all);
  t.same(roleCeiling("admin"), all);
  t.same(roleCeiling("issuer"), none);
  t.same(roleCeiling("viewer"), none);
  t.ok(withinRoleCeiling("admin", all));
  t.notOk(withinRoleCeiling("issuer", { ...none, read_enabled: true }));
  t.ok(withinRoleCeiling("viewer", none));
});

const member = (role: Role, accountId = "acct-actor", organizationId = ORG): MemberActor => ({
  kind: "member",
  accountId,
  organizationId,
  role,
});
const token: Credential = {
  kind: "authorization_token",
  organizationId: ORG,
  tokenId: "tok",
  read_enabled: true,
  write_enabled: true,
  delete_enabled: true,
};
const credential: MemberActor = { kind: "credential", credential: token };
const operator: MemberActor = { kind: "operator" };
const ACTORS: Array<[string, MemberActor]> = [
  ...ROLES.map((r): [string, MemberActor] => [r, member(r)]),
  ["credential", credential],
  ["operator", operator],
];

t.test("who may change whom: role changes", async (t) => {
  // [actor, from, to] -> allowed (with two owners, so the last-owner rule does not interfere)
  const mayOwn = new Set(["owner", "operator"]);
  const mayManage = new Set(["owner", "admin", "credential", "operator"]);
  for (const [name, actor] of ACTORS) {
    for (const from of ROLES) {
      for (const to of ROLES) {
        const touchesOwner = from === "owner" || to === "owner";
        const expected = touchesOwner ? mayOwn.has(name) : mayManage.has(name);
        const refused = refusal(() => mayChangeRole(actor, ORG, { from, to, owners: 2 }));
        t.equal(refused === null, expected, `${name}: ${from} -> ${to}`);
        if (refused) t.equal(refused.code, "forbidden");
      }
    }
  }
});

t.test("who may change whom: removal and invitations", async (t) => {
  const mayOwn = new Set(["owner", "operator"]);
  const mayManage = new Set(["owner", "admin", "credential", "operator"]);
  for (const [name, actor] of ACTORS) {
    for (const role of ROLES) {
      const expected = role === "owner" ? mayOwn.has(name) : mayManage.has(name);
      t.equal(
        refusal(() => mayRemove(actor, ORG, { accountId: "someone", role, owners: 2 })) === null,
        expected,
        `${name} removes ${role}`,
      );
      t.equal(refusal(() => mayInvite(actor, ORG, role)) === null, expected, `${name} invites ${role}`);
    }
  }
});

t.test("every member may leave, save the last owner", async (t) => {
  for (const role of ROLES) {
    t.equal(
      refusal(() => mayRemove(member(role), ORG, { accountId: "acct-actor", role, owners: 2 })),
      null,
      `${role} leaves`,
    );
  }
  const last = refusal(() => mayRemove(member("owner"), ORG, { accountId: "acct-actor", role: "owner", owners: 1 }));
  t.equal(last?.code, "validation_failed", "the last owner cannot leave");
});

t.test("last owner: cannot be demoted or removed by anyone", async (t) => {
  for (const [name, actor] of ACTORS) {
    for (const to of ["admin", "issuer", "viewer"] as const) {
      t.ok(
        refusal(() => mayChangeRole(actor, ORG, { from: "owner", to, owners: 1 })),
        `${name}: last owner -> ${to}`,
      );
    }
    t.ok(
      refusal(() => mayRemove(actor, ORG, { accountId: "x", role: "owner", owners: 1 })),
      `${name}: removes last owner`,
    );
  }
  t.equal(
    refusal(() => mayChangeRole(operator, ORG, { from: "owner", to: "admin", owners: 1 }))?.code,
    "validation_failed",
  );
  t.equal(
    refusal(() => mayChangeRole(member("owner"), ORG, { from: "owner", to: "owner", owners: 1 })),
    null,
  );
});

t.test("another organization's member or credential: 403", async (t) => {
  t.equal(refusal(() => mayInvite(member("owner", "a", OTHER), ORG, "viewer"))?.code, "forbidden");
  t.equal(
    refusal(() => mayInvite({ kind: "credential", credential: { ...token, organizationId: OTHER } }, ORG, "viewer"))
      ?.code,
    "forbidden",
  );
  t.equal(
    refusal(() => mayRemove(member("viewer", "a", OTHER), ORG, { accountId: "a", role: "viewer", owners: 2 }))?.code,
    "forbidden",
  );
});

// An in-memory store: enough to run the use cases and watch what they wrote.
const memoryStore = () => {
  const org: OrganizationRecord = {
    id: ORG,
    name: "Acme <Labs>",
    description: null,
    email: "hello@acme.test",
    website_url: null,
    image_url: null,
    created_at: new Date(0),
    updated_at: new Date(0),
  };
  const orgs = new Map<string, OrganizationRecord>([[ORG, org]]);
  const memberships = new Map<string, MembershipRecord>();
  const invitations = new Map<string, InvitationRecord>();
  const addresses = new Map<string, { user_id: string; confirmed: boolean }>();
  const audit: AuditRecord[] = [];
  const mails: Array<{ to: string; subject: string; text: string; html: string }> = [];
  const store: MemberStore = {
    transaction: (work) =>
      work({
        organizations: {
          lock: async (id) => orgs.has(id),
          get: async (id) => orgs.get(id) ?? null,
          insert: async (o) => {
            orgs.set(o.id, o);
          },
          update: async (o) => {
            orgs.set(o.id, o);
          },
        },
        memberships: {
          countOwners: async (id) =>
            [...memberships.values()].filter((m) => m.organization_id === id && m.role === "owner").length,
          get: async (o, id) => {
            const m = memberships.get(id);
            return m && m.organization_id === o ? m : null;
          },
          of: async (a, o) => [...memberships.values()].find((m) => m.user_id === a && m.organization_id === o) ?? null,
          insert: async (m) => {
            memberships.set(m.id, m);
          },
          setRole: async (id, role, now) => {
            const m = memberships.get(id);
            if (m) memberships.set(id, { ...m, role, updated_at: now });
          },
          delete: async (id) => {
            memberships.delete(id);
          },
        },
        invitations: {
          put: async (i) => {
            for (const [k, v] of invitations)
              if (v.organization_id === i.organization_id && v.email_key === i.email_key) invitations.delete(k);
            invitations.set(i.id, i);
          },
          get: async (o, id) => {
            const i = invitations.get(id);
            return i && i.organization_id === o ? i : null;
          },
          delete: async (id) => {
            invitations.delete(id);
          },
        },
        enqueueMail: async (m) => {
          mails.push(renderMail(m.content));
        },
        appendAudit: async (e) => {
          audit.push(e);
        },
      }),
    organization: async (id) => orgs.get(id) ?? null,
    listMembers: async () => ({ items: [], total: 0 }),
    getMember: async (o, id) => {
      const m = memberships.get(id);
      return m && m.organization_id === o ? { membership: m, first_name: "F", last_name: "L", email: null } : null;
    },
    membershipOf: async (a, o) =>
      [...memberships.values()].find((m) => m.user_id === a && m.organization_id === o) ?? null,
    organizationsOf: async (a) =>
      [...memberships.values()]
        .filter((m) => m.user_id === a)
        .map((m) => ({ organization: orgs.get(m.organization_id) as OrganizationRecord, role: m.role })),
    listInvitations: async () => ({ items: [], total: 0 }),
    getInvitation: async (o, id) => {
      const i = invitations.get(id);
      return i && i.organization_id === o ? i : null;
    },
    invitationByDigest: async (d) => [...invitations.values()].find((i) => i.token_digest === d) ?? null,
    account: async (id) => ({ id, first_name: "Olive", last_name: "Owner", email: "olive@acme.test", closed: false }),
    addressOwner: async (k) => addresses.get(k) ?? null,
    pruneInvitations: async () => 0,
  };
  return { store, memberships, invitations, addresses, audit, mails, orgs };
};

let secretN = 0;
const secrets: SecretBox = {
  newSecret: () => `secret-${++secretN}`,
  digest: (s) => `digest(${s})`,
  seal: (s) => s,
  open: (s) => s,
  equal: (a, b) => a === b,
};
let idN = 0;
const ctxAt = (ms: number) => ({
  now: new Date(ms),
  newId: () => `00000000-0000-4000-8000-${String(++idN).padStart(12, "0")}`,
});
const T0 = Date.UTC(2026, 10, 27, 12);

t.test("invite, re-invite replaces, accept with the confirmed address, expiry", async (t) => {
  const s = memoryStore();
  const deps = { members: s.store, secrets, publicUrl: "https://laurel.test/" };
  const first = await invite(deps, ctxAt(T0), operator, null, ORG, { email: " New@Example.test ", role: "owner" });
  t.equal(first.invitation.token_digest, `digest(${first.token})`, "only the digest is kept");
  t.equal(first.invitation.expires_at.getTime() - T0, INVITATION_TTL_MS, "seven days");
  t.equal(s.mails.length, 1);
  const mail = s.mails[0];
  t.match(mail?.text, `https://laurel.test/console/invitations/${first.token}`);
  t.match(mail?.html, "Acme &lt;Labs>", "the organization's name, escaped in HTML");
  t.notMatch(mail?.html, "<Labs>");
  t.match(mail?.text, /as owner/);
  t.match(mail?.text, /The Laurel operator/);

  const second = await invite(deps, ctxAt(T0 + 1000), operator, "192.0.2.1", ORG, {
    email: "new@example.test",
    role: "admin",
  });
  t.equal(s.invitations.size, 1, "re-inviting the address replaces its invitation");
  t.equal(await invitationForToken(deps, first.token, new Date(T0 + 2000)), null, "the replaced link is dead");
  t.equal((await invitationForToken(deps, second.token, new Date(T0 + 2000)))?.invitation.role, "admin");

  const wrongAccount = await acceptInvitation(deps, ctxAt(T0 + 3000), "acct-new", second.token, null).catch((e) => e);
  t.equal(wrongAccount.code, "forbidden", "no account holds the address yet");
  s.addresses.set("new@example.test", { user_id: "acct-new", confirmed: false });
  const unconfirmed = await acceptInvitation(deps, ctxAt(T0 + 3000), "acct-new", second.token, null).catch((e) => e);
  t.equal(unconfirmed.code, "forbidden", "the address must be confirmed");
  s.addresses.set("new@example.test", { user_id: "acct-new", confirmed: true });
  const expired = await acceptInvitation(
    deps,
    ctxAt(T0 + 1000 + INVITATION_TTL_MS),
    "acct-new",
    second.token,
    null,
  ).catch((e) => e);
  t.equal(expired.code, "not_found", "an expired invitation is gone");
  const accepted = await acceptInvitation(deps, ctxAt(T0 + 4000), "acct-new", second.token, "198.51.100.7");
  t.equal(accepted.membership.role, "admin");
  t.equal(await membershipOf(deps, "acct-new", ORG), "admin");
  t.same(
    (await organizationsOf(deps, "acct-new")).map((o) => o.role),
    ["admin"],
  );
  t.equal(s.invitations.size, 0, "used up");
  const again = await acceptInvitation(deps, ctxAt(T0 + 5000), "acct-new", second.token, null).catch((e) => e);
  t.equal(again.code, "not_found", "a token works once");
  t.same(
    s.audit.map((a) => [a.action, a.actor.kind, a.client_address]),
    [
      ["invitation.created", "operator", null],
      ["invitation.created", "operator", "192.0.2.1"],
      ["invitation.accepted", "member", "198.51.100.7"],
    ],
  );

  const dup = await invite(deps, ctxAt(T0 + 6000), operator, null, ORG, {
    email: "NEW@example.test",
    role: "viewer",
  }).catch((e) => e);
  t.equal(dup.code, "validation_failed", "a member's address is not invited again");
  const byCredential = await invite(deps, ctxAt(T0), credential, null, ORG, {
    email: "x@example.test",
    role: "owner",
  }).catch((e) => e);
  t.equal(byCredential.code, "forbidden", "a credential invites no owner");
});

t.test("change role and remove over the store: the last owner stays", async (t) => {
  const s = memoryStore();
  const deps = { members: s.store, secrets, publicUrl: "https://laurel.test" };
  const add = (id: string, user: string, role: Role) =>
    s.memberships.set(id, {
      id,
      organization_id: ORG,
      user_id: user,
      role,
      created_at: new Date(T0),
      updated_at: new Date(T0),
    });
  add("m1", "u1", "owner");
  add("m2", "u2", "admin");
  const owner = member("owner", "u1");
  const demote = await changeRole(deps, ctxAt(T0), owner, null, ORG, "m1", "admin").catch((e) => e);
  t.equal(demote.code, "validation_failed", "the last owner cannot be demoted");
  const leave = await removeMember(deps, ctxAt(T0), owner, null, ORG, "m1").catch((e) => e);
  t.equal(leave.code, "validation_failed", "the last owner cannot leave");
  const viewerNoop = await changeRole(deps, ctxAt(T0), member("viewer", "u9"), null, ORG, "m2", "admin").catch(
    (e) => e,
  );
  t.equal(viewerNoop.code, "forbidden", "a viewer is refused even a change to the same role");
  const adminPromotes = await changeRole(deps, ctxAt(T0), member("admin", "u2"), null, ORG, "m2", "owner").catch(
    (e) => e,
  );
  t.equal(adminPromotes.code, "forbidden", "an admin makes no owner, not even themself");
  const credentialPromotes = await changeRole(deps, ctxAt(T0), credential, null, ORG, "m2", "owner").catch((e) => e);
  t.equal(credentialPromotes.code, "forbidden", "a credential makes no owner");
  await changeRole(deps, ctxAt(T0), owner, "203.0.113.9", ORG, "m2", "owner");
  t.equal(s.memberships.get("m2")?.role, "owner");
  await removeMember(deps, ctxAt(T0), owner, null, ORG, "m1");
  t.notOk(s.memberships.has("m1"), "with another owner, an owner may leave");
  const missing = await removeMember(deps, ctxAt(T0), credential, null, ORG, "m9").catch((e) => e);
  t.equal(missing.code, "not_found");
  t.same(
    s.audit.map((a) => [a.action, a.target, a.details]),
    [
      ["membership.role_changed", "membership:m2", { user_id: "u2", from: "admin", to: "owner" }],
      ["membership.removed", "membership:m1", { user_id: "u1", role: "owner" }],
    ],
  );
  t.equal(s.audit[0]?.client_address, "203.0.113.9");
});

t.test("cancel an invitation; only an owner cancels an owner's", async (t) => {
  const s = memoryStore();
  const deps = { members: s.store, secrets, publicUrl: "https://laurel.test" };
  const { invitation } = await invite(deps, ctxAt(T0), operator, null, ORG, { email: "o@example.test", role: "owner" });
  const refused = await cancelInvitation(deps, ctxAt(T0), member("admin"), null, ORG, invitation.id).catch((e) => e);
  t.equal(refused.code, "forbidden");
  await cancelInvitation(deps, ctxAt(T0), member("owner"), null, ORG, invitation.id);
  t.equal(s.invitations.size, 0);
  t.equal(s.audit.at(-1)?.action, "invitation.cancelled");
});

t.test("organization signup", async (t) => {
  const s = memoryStore();
  const deps = { members: s.store, secrets, publicUrl: "https://laurel.test" };
  const input = { name: "New Org", email: "olive@acme.test" };
  const closed = await createOrganizationBySignup(deps, ctxAt(T0), "closed", "u1", null, input).catch((e) => e);
  t.equal(closed.code, "forbidden", "closed signup");
  const unconfirmed = await createOrganizationBySignup(deps, ctxAt(T0), "open", "u1", null, input).catch((e) => e);
  t.equal(unconfirmed.code, "validation_failed", "the contact address must be the account's, confirmed");
  s.addresses.set("olive@acme.test", { user_id: "u1", confirmed: true });
  const made = await createOrganizationBySignup(deps, ctxAt(T0), "open", "u1", null, input);
  t.equal(await membershipOf(deps, "u1", made.organization.id), "owner");
  t.same(
    s.audit.map((a) => a.action),
    ["organization.created", "membership.created"],
  );
});

t.test("audit pages: keyset, newest first", async (t) => {
  const rows = Array.from({ length: 5 }, (_, i) =>
    auditRecord(
      { now: new Date(T0 + i), newId: () => `00000000-0000-4000-8000-00000000000${i}` },
      { actor: { kind: "operator", id: null }, client_address: null },
      ORG,
      "organization.updated",
      null,
    ),
  ).reverse();
  const log = {
    page: async (_o: string, after: { occurred_at: Date; id: string } | null, limit: number) =>
      rows.filter((r) => !after || r.occurred_at < after.occurred_at).slice(0, limit),
  };
  const first = await readAuditLog(log, ORG, null, 2);
  t.same(
    first.items.map((r) => r.occurred_at.getTime() - T0),
    [4, 3],
  );
  const cursor = decodeAuditCursor(encodeAuditCursor(first.next as NonNullable<typeof first.next>));
  const second = await readAuditLog(log, ORG, cursor, 2);
  t.same(
    second.items.map((r) => r.occurred_at.getTime() - T0),
    [2, 1],
  );
  const last = await readAuditLog(log, ORG, second.next, 2);
  t.equal(last.next, null);
  t.equal(decodeAuditCursor("garbage"), null);
  t.ok(isCoreError(refusal(() => mayInvite(member("viewer"), ORG, "viewer"))));
});

t.test("organization profile: who may change it, what the audit row says", async (t) => {
  const s = memoryStore();
  const deps = { members: s.store };
  const viewer = await updateOrganizationProfile(deps, ctxAt(T0), member("viewer"), null, ORG, { name: "X" }).catch(
    (e) => e,
  );
  t.equal(viewer.code, "forbidden");
  const issuer = await updateOrganizationProfile(deps, ctxAt(T0), member("issuer"), null, ORG, { name: "X" }).catch(
    (e) => e,
  );
  t.equal(issuer.code, "forbidden");
  const blank = await updateOrganizationProfile(deps, ctxAt(T0), member("admin"), null, ORG, { name: "  " }).catch(
    (e) => e,
  );
  t.equal(blank.code, "validation_failed");
  const badEmail = await updateOrganizationProfile(deps, ctxAt(T0), member("admin"), null, ORG, {
    email: "nope",
  }).catch((e) => e);
  t.equal(badEmail.code, "validation_failed");
  const updated = await updateOrganizationProfile(deps, ctxAt(T0 + 5), member("admin"), "192.0.2.8", ORG, {
    name: " Acme Labs ",
    website_url: "https://acme.test/",
    description: null,
  });
  t.equal(updated.name, "Acme Labs");
  t.equal(s.orgs.get(ORG)?.website_url, "https://acme.test/");
  t.same(
    s.audit.map((a) => [a.action, a.client_address, a.details]),
    [
      [
        "organization.updated",
        "192.0.2.8",
        { changed: ["name", "website_url"], name: "Acme Labs", website_url: "https://acme.test/" },
      ],
    ],
  );
  await updateOrganizationProfile(deps, ctxAt(T0 + 6), member("owner"), null, ORG, { name: "Acme Labs" });
  t.equal(s.audit.length, 1, "no change, no row");
});

t.test("invitations: the address is checked, and the organization's invitation budget applies", async (t) => {
  const s = memoryStore();
  const budget = { perWindow: 1, windowMs: 3_600_000, used: new Map() };
  const deps = { members: s.store, secrets, publicUrl: "https://laurel.test", budget };
  const bad = await invite(deps, ctxAt(T0), operator, null, ORG, { email: "not an address", role: "viewer" }).catch(
    (e) => e,
  );
  t.equal(bad.code, "validation_failed");
  await invite(deps, ctxAt(T0), operator, null, ORG, { email: "one@example.test", role: "viewer" });
  const over = await invite(deps, ctxAt(T0 + 1), operator, null, ORG, {
    email: "two@example.test",
    role: "viewer",
  }).catch((e) => e);
  t.equal(over.code, "rate_limited");
  t.equal(s.mails.length, 1, "nothing mailed over the budget");
  await invite(deps, ctxAt(T0 + 3_600_000), operator, null, ORG, { email: "two@example.test", role: "viewer" });
  t.equal(s.mails.length, 2, "the next window has room again");
});

t.test("what a member is offered on another is what the change rules allow", async (t) => {
  const rows: Array<[Role, Role, number, { remove: boolean; roles: Role[] }]> = [
    // An admin may neither remove nor change an owner, nor make anyone an owner.
    ["admin", "owner", 2, { remove: false, roles: [] }],
    ["admin", "viewer", 1, { remove: true, roles: ["admin", "issuer"] }],
    ["owner", "owner", 2, { remove: true, roles: ["admin", "issuer", "viewer"] }],
    // The last owner stays one.
    ["owner", "owner", 1, { remove: false, roles: [] }],
    ["owner", "issuer", 1, { remove: true, roles: ["owner", "admin", "viewer"] }],
    ["issuer", "viewer", 1, { remove: false, roles: [] }],
    ["viewer", "admin", 1, { remove: false, roles: [] }],
  ];
  for (const [actor, target, owners, expected] of rows) {
    t.same(
      memberOffers(member(actor), ORG, { accountId: "someone", role: target, owners }),
      expected,
      `${actor} on ${target} (${owners} owner${owners === 1 ? "" : "s"})`,
    );
  }
  t.same(
    memberOffers(member("viewer"), ORG, { accountId: "acct-actor", role: "viewer", owners: 1 }),
    { remove: true, roles: [] },
    "anyone may leave",
  );
  t.same(
    memberOffers(member("owner"), ORG, { accountId: "acct-actor", role: "owner", owners: 1 }).remove,
    false,
    "but the last owner",
  );
  t.same(memberOffers(member("owner", "acct-actor", OTHER), ORG, { accountId: "x", role: "viewer", owners: 1 }), {
    remove: false,
    roles: [],
  });
});
