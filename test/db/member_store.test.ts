import t from "tap";
import { postgresAuditLog, postgresMemberStore } from "../../adapters/db/mod.ts";
import { auditRecord, readAuditLog } from "../../core/audit/mod.ts";
import type { SecretBox } from "../../core/credentials/mod.ts";
import {
  acceptInvitation,
  changeRole,
  invite,
  listInvitations,
  listMembers,
  membershipOf,
  organizationsOf,
  removeMember,
  updateOrganizationProfile,
} from "../../core/members/mod.ts";
import { openStoreDatabase } from "../support/store_database.ts";

// The member store on real PostgreSQL: the migration, the one-invitation-per-address rule, the
// owner lock, the outbox mail and the audit rows written with each change.
const db = await openStoreDatabase(t);

const ORG = "0b1e6c43-53f2-4b1a-9f1d-6f0a9d0a2b11";
const U1 = "11111111-1111-4111-8111-111111111111";
const U2 = "22222222-2222-4222-8222-222222222222";
const now = new Date("2026-11-27T12:00:00Z");
await db.run(
  "insert into organizations (id, name, email, created_at, updated_at) values (?, 'Acme', 'a@acme.test', ?, ?)",
  [ORG, now, now],
);
for (const [id, email] of [
  [U1, "one@acme.test"],
  [U2, "two@acme.test"],
]) {
  await db.run("insert into users (id, first_name, last_name, created_at, updated_at) values (?, 'F', 'L', ?, ?)", [
    id,
    now,
    now,
  ]);
  await db.run(
    "insert into user_emails (email_key, user_id, email, position, confirmed, created_at) values (?, ?, ?, 0, true, ?)",
    [email, id, email, now],
  );
}

let n = 0;
const ctx = (ms = 0) => ({
  now: new Date(now.getTime() + ms),
  newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
});
const secrets: SecretBox = {
  newSecret: () => `tok-${n}-${Math.random()}`,
  digest: (s) => `d:${s}`,
  seal: (s) => s,
  open: (s) => s,
  equal: (a, b) => a === b,
};
const members = postgresMemberStore(db);
const deps = { members, secrets, publicUrl: "https://laurel.test" };
const operator = { kind: "operator" } as const;

t.test("invitations, acceptance, roles, the last owner, audit", async (t) => {
  await invite(deps, ctx(), operator, null, ORG, { email: "One@acme.test", role: "viewer" });
  const { token } = await invite(deps, ctx(1), operator, null, ORG, { email: "one@ACME.test", role: "owner" });
  const pending = await listInvitations(deps, ctx(2), operator, ORG, { page: 1, per: 50, offset: 0 });
  t.equal(pending.total, 1, "the second invitation replaced the first");
  t.equal(pending.items[0]?.role, "owner");
  const mails = await db.all<{ kind: string; content: { template: string; to: string; link: string } }>(
    "select kind, content from mail_outbox order by created_at",
  );
  t.equal(mails.length, 2);
  t.match(mails[1]?.content, {
    template: "member_invitation",
    to: "one@ACME.test",
    link: `https://laurel.test/console/invitations/${token}`,
  });

  await acceptInvitation(deps, ctx(3), U1, token, "192.0.2.4");
  t.equal(await membershipOf(deps, U1, ORG), "owner");
  t.same(
    (await organizationsOf(deps, U1)).map((o) => [o.organization.name, o.role]),
    [["Acme", "owner"]],
  );

  const second = await invite(deps, ctx(4), operator, null, ORG, { email: "two@acme.test", role: "issuer" });
  await acceptInvitation(deps, ctx(5), U2, second.token, null);
  const list = await listMembers(deps, operator, ORG, { page: 1, per: 50, offset: 0 });
  t.same(
    list.items.map((m) => [m.email, m.membership.role]),
    [
      ["one@acme.test", "owner"],
      ["two@acme.test", "issuer"],
    ],
  );
  const owner = { kind: "member", accountId: U1, organizationId: ORG, role: "owner" } as const;
  const ownerMembership = list.items[0]?.membership.id as string;
  const refused = await removeMember(deps, ctx(6), owner, null, ORG, ownerMembership).catch((e) => e);
  t.equal(refused.code, "validation_failed", "the last owner cannot leave");
  await changeRole(deps, ctx(7), owner, "192.0.2.5", ORG, list.items[1]?.membership.id as string, "admin");
  t.equal(await membershipOf(deps, U2, ORG), "admin");

  const audit = await readAuditLog(postgresAuditLog(db), ORG, null, 3);
  t.same(
    audit.items.map((a) => a.action),
    ["membership.role_changed", "invitation.accepted", "invitation.created"],
    "newest first",
  );
  t.equal(audit.items[0]?.client_address, "192.0.2.5");
  t.same(audit.items[0]?.details, { user_id: U2, from: "issuer", to: "admin" });
  const rest = await readAuditLog(postgresAuditLog(db), ORG, audit.next, 50);
  t.same(
    rest.items.map((a) => a.action),
    ["invitation.accepted", "invitation.created", "invitation.created"],
  );
  t.equal(rest.next, null);
});

t.test("retention prunes old audit rows and expired invitations", async (t) => {
  const log = postgresAuditLog(db);
  const old = auditRecord(
    { now: new Date("2025-01-01T00:00:00Z"), newId: () => "99999999-9999-4999-8999-999999999999" },
    { actor: { kind: "operator", id: null }, client_address: null },
    ORG,
    "organization.updated",
    null,
  );
  await members.transaction((tx) => tx.appendAudit(old));
  t.equal(await log.prune(new Date("2025-06-01T00:00:00Z"), 100), 1);
  t.equal(await log.prune(new Date("2025-06-01T00:00:00Z"), 100), 0);
  await invite(deps, ctx(), operator, null, ORG, { email: "late@acme.test", role: "viewer" });
  t.equal(await members.pruneInvitations(new Date(now.getTime() + 8 * 86_400_000), 100), 1);
});

t.test("the organization profile and its audit row", async (t) => {
  const owner = { kind: "member", accountId: U1, organizationId: ORG, role: "owner" } as const;
  await updateOrganizationProfile({ members }, ctx(100), owner, "192.0.2.9", ORG, {
    description: "Makers",
    email: "contact@acme.test",
  });
  const org = await members.organization(ORG);
  t.equal(org?.description, "Makers");
  t.equal(org?.email, "contact@acme.test");
  const [last] = (await readAuditLog(postgresAuditLog(db), ORG, null, 1)).items;
  t.equal(last?.action, "organization.updated");
  t.same(last?.details.changed, ["description", "email"]);
});
