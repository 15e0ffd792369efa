import type { AuditCursor, AuditLog, AuditRecord } from "../../core/audit/mod.ts";
import type {
  InvitationRecord,
  MemberStore,
  MembershipRecord,
  MemberTx,
  MemberView,
  Role,
} from "../../core/members/mod.ts";
import { AUDIT_COLUMNS, appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import { ORGANIZATION_COLUMNS, ORGANIZATION_FIELDS, organizationRecord, page } from "./postgres_credential_stores.ts";
import { outboxInsertCte, outboxRows } from "./postgres_mail_outbox.ts";
import { insertRow, type Queryable, toDate, toJson } from "./sql.ts";

type Row = Record<string, unknown>;

const MEMBERSHIP_FIELDS = ["id", "organization_id", "user_id", "role", "created_at", "updated_at"];
const MEMBERSHIP_COLUMNS = MEMBERSHIP_FIELDS.map((c) => `m.${c}`).join(", ");

const membershipOf = (r: Row): MembershipRecord => ({
  id: r.id as string,
  organization_id: r.organization_id as string,
  user_id: r.user_id as string,
  role: r.role as Role,
  created_at: toDate(r.created_at),
  updated_at: toDate(r.updated_at),
});

const MEMBER_SELECT = `${MEMBERSHIP_COLUMNS}, u.first_name, u.last_name,
  (select e.email from user_emails e where e.user_id = u.id order by e.position limit 1) as email`;
const MEMBER_FROM = "memberships m join users u on u.id = m.user_id";

const memberViewOf = (r: Row): MemberView => ({
  membership: membershipOf(r),
  first_name: r.first_name as string,
  last_name: r.last_name as string,
  email: (r.email as string | null) ?? null,
});

const INVITATION_COLUMNS =
  "id, organization_id, email, email_key, role, token_digest, invited_by_kind, invited_by_id, invited_by_name, created_at, expires_at";

const invitationOf = (r: Row): InvitationRecord => ({
  id: r.id as string,
  organization_id: r.organization_id as string,
  email: r.email as string,
  email_key: r.email_key as string,
  role: r.role as Role,
  token_digest: r.token_digest as string,
  invited_by: {
    kind: r.invited_by_kind as InvitationRecord["invited_by"]["kind"],
    id: (r.invited_by_id as string | null) ?? null,
  },
  invited_by_name: r.invited_by_name as string,
  created_at: toDate(r.created_at),
  expires_at: toDate(r.expires_at),
});

const auditOf = (r: Row): AuditRecord => ({
  id: r.id as string,
  organization_id: r.organization_id as string,
  occurred_at: toDate(r.occurred_at),
  actor: { kind: r.actor_kind as AuditRecord["actor"]["kind"], id: (r.actor_id as string | null) ?? null },
  action: r.action as AuditRecord["action"],
  target: (r.target as string | null) ?? null,
  client_address: (r.client_address as string | null) ?? null,
  details: toJson<Record<string, unknown>>(r.details) ?? {},
});

const memberTx = (q: Queryable): MemberTx => ({
  async lockOrganization(organizationId) {
    const rows = await q.all("select id from organizations where id = ? for update", [organizationId]);
    return rows.length > 0;
  },
  async countOwners(organizationId) {
    const [r] = await q.all<{ n: string | number }>(
      "select count(*) as n from memberships where organization_id = ? and role = 'owner'",
      [organizationId],
    );
    return Number(r?.n ?? 0);
  },
  async getMembership(organizationId, id) {
    const [r] = await q.all<Row>(
      `select ${MEMBERSHIP_COLUMNS} from memberships m where m.organization_id = ? and m.id = ?`,
      [organizationId, id],
    );
    return r ? membershipOf(r) : null;
  },
  async membershipOf(accountId, organizationId) {
    const [r] = await q.all<Row>(
      `select ${MEMBERSHIP_COLUMNS} from memberships m where m.user_id = ? and m.organization_id = ?`,
      [accountId, organizationId],
    );
    return r ? membershipOf(r) : null;
  },
  async insertMembership(m) {
    await insertRow(q, "memberships", MEMBERSHIP_FIELDS, m);
  },
  async setRole(id, role, now) {
    await q.run("update memberships set role = ?, updated_at = ? where id = ?", [role, now, id]);
  },
  async deleteMembership(id) {
    await q.run("delete from memberships where id = ?", [id]);
  },
  async putInvitation(i) {
    await q.run(
      `insert into member_invitations (${INVITATION_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (organization_id, email_key) do update set id = excluded.id, email = excluded.email,
         role = excluded.role, token_digest = excluded.token_digest, invited_by_kind = excluded.invited_by_kind,
         invited_by_id = excluded.invited_by_id, invited_by_name = excluded.invited_by_name,
         created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [
        i.id,
        i.organization_id,
        i.email,
        i.email_key,
        i.role,
        i.token_digest,
        i.invited_by.kind,
        i.invited_by.id,
        i.invited_by_name,
        i.created_at,
        i.expires_at,
      ],
    );
  },
  async getInvitation(organizationId, id) {
    const [r] = await q.all<Row>(
      `select ${INVITATION_COLUMNS} from member_invitations where organization_id = ? and id = ? for update`,
      [organizationId, id],
    );
    return r ? invitationOf(r) : null;
  },
  async deleteInvitation(id) {
    await q.run("delete from member_invitations where id = ?", [id]);
  },
  async insertOrganization(org) {
    await insertRow(q, "organizations", ORGANIZATION_FIELDS, org);
  },
  async organization(id) {
    const [r] = await q.all<Row>(`select ${ORGANIZATION_COLUMNS} from organizations where id = ?`, [id]);
    return r ? organizationRecord(r) : null;
  },
  async updateOrganization(org) {
    await q.run(
      "update organizations set name = ?, description = ?, email = ?, website_url = ?, image_url = ?, updated_at = ? where id = ?",
      [org.name, org.description, org.email, org.website_url, org.image_url, org.updated_at, org.id],
    );
  },
  async enqueueMail(mail) {
    await q.run(`with ${outboxInsertCte("w", "")} select 1`, [outboxRows([{ mail }])]);
  },
  appendAudit: (entry) => appendAudit(q, [entry]),
});

/** Memberships and invitations on PostgreSQL (or PGlite); members are the earner accounts of `users`. */
export const postgresMemberStore = (db: Database): MemberStore => ({
  transaction: (work) => db.transaction((q) => work(memberTx(q))),
  organization: (id) => memberTx(db).organization(id),
  listMembers: (organizationId, req) =>
    page(
      db,
      { select: MEMBER_SELECT, from: MEMBER_FROM, where: "m.organization_id = ?", orderBy: "m.created_at, m.id" },
      [organizationId],
      req,
      memberViewOf,
    ),
  async getMember(organizationId, membershipId) {
    const [r] = await db.all<Row>(
      `select ${MEMBER_SELECT} from ${MEMBER_FROM} where m.organization_id = ? and m.id = ?`,
      [organizationId, membershipId],
    );
    return r ? memberViewOf(r) : null;
  },
  membershipOf: (accountId, organizationId) => memberTx(db).membershipOf(accountId, organizationId),
  async organizationsOf(accountId) {
    const rows = await db.all<Row>(
      `select ${ORGANIZATION_FIELDS.map((c) => `o.${c}`).join(", ")}, m.role
       from memberships m join organizations o on o.id = m.organization_id
       where m.user_id = ? order by lower(o.name), o.id`,
      [accountId],
    );
    return rows.map((r) => ({ organization: organizationRecord(r), role: r.role as Role }));
  },
  listInvitations: (organizationId, req, now) =>
    page(
      db,
      {
        select: INVITATION_COLUMNS,
        from: "member_invitations",
        where: "organization_id = ? and expires_at > ?",
        orderBy: "created_at desc, id desc",
      },
      [organizationId, now],
      req,
      invitationOf,
    ),
  async getInvitation(organizationId, id) {
    const [r] = await db.all<Row>(
      `select ${INVITATION_COLUMNS} from member_invitations where organization_id = ? and id = ?`,
      [organizationId, id],
    );
    return r ? invitationOf(r) : null;
  },
  async invitationByDigest(digest) {
    const [r] = await db.all<Row>(`select ${INVITATION_COLUMNS} from member_invitations where token_digest = ?`, [
      digest,
    ]);
    return r ? invitationOf(r) : null;
  },
  async account(accountId) {
    const [r] = await db.all<Row>(
      `select u.id, u.first_name, u.last_name, u.closed_at,
         (select e.email from user_emails e where e.user_id = u.id order by e.position limit 1) as email
       from users u where u.id = ?`,
      [accountId],
    );
    if (!r) return null;
    return {
      id: r.id as string,
      first_name: r.first_name as string,
      last_name: r.last_name as string,
      email: (r.email as string | null) ?? null,
      closed: r.closed_at !== null && r.closed_at !== undefined,
    };
  },
  async addressOwner(emailKey) {
    const [r] = await db.all<Row>("select user_id, confirmed from user_emails where email_key = ?", [emailKey]);
    return r ? { user_id: r.user_id as string, confirmed: r.confirmed === true } : null;
  },
  pruneInvitations: (before, limit) =>
    db.run(
      "delete from member_invitations where id in (select id from member_invitations where expires_at < ? limit ? for update skip locked)",
      [before, limit],
    ),
});

/** The audit log: read newest first in keyset pages, pruned oldest first in small batches. */
export const postgresAuditLog = (db: Database): AuditLog => ({
  async page(organizationId, after: AuditCursor | null, limit) {
    const rows = after
      ? await db.all<Row>(
          `select ${AUDIT_COLUMNS} from audit_log where organization_id = ? and (occurred_at, id) < (?, ?)
           order by occurred_at desc, id desc limit ?`,
          [organizationId, after.occurred_at, after.id, limit],
        )
      : await db.all<Row>(
          `select ${AUDIT_COLUMNS} from audit_log where organization_id = ? order by occurred_at desc, id desc limit ?`,
          [organizationId, limit],
        );
    return rows.map(auditOf);
  },
  prune: (before, limit) =>
    db.run(
      "delete from audit_log where id in (select id from audit_log where occurred_at < ? limit ? for update skip locked)",
      [before, limit],
    ),
});
