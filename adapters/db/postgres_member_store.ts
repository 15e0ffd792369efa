import type { AuditCursor, AuditLog, AuditRecord } from "../../core/audit/mod.ts";
import type { InvitationRecord, MemberStore, MembershipRecord, MemberTx, MemberView } from "../../core/members/mod.ts";
import { AUDIT_COLUMNS, appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import {
  ORGANIZATION_COLUMNS,
  ORGANIZATION_FIELDS,
  type OrganizationFields,
  organizationRecord,
  page,
} from "./postgres_credential_stores.ts";
import { enqueueMails } from "./postgres_mail_outbox.ts";
import type { AuditLogRow, Int8, MemberInvitationRow, MembershipRow, UserRow } from "./rows.ts";
import { insertRow, type Queryable, toJson } from "./sql.ts";
import { addressOwner } from "./user_rows.ts";

const MEMBERSHIP_FIELDS = ["id", "organization_id", "user_id", "role", "created_at", "updated_at"] as const;
const MEMBERSHIP_COLUMNS = MEMBERSHIP_FIELDS.map((c) => `m.${c}`).join(", ");

const membershipOf = (r: MembershipRow): MembershipRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  user_id: r.user_id,
  role: r.role,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const MEMBER_SELECT = `${MEMBERSHIP_COLUMNS}, u.first_name, u.last_name,
  (select e.email from user_emails e where e.user_id = u.id order by e.position limit 1) as email`;
const MEMBER_FROM = "memberships m join users u on u.id = m.user_id";

/** What `MEMBER_SELECT` reads: the membership, its account's name and first address. */
type MemberViewRow = MembershipRow & Pick<UserRow, "first_name" | "last_name"> & { email: string | null };

const memberViewOf = (r: MemberViewRow): MemberView => ({
  membership: membershipOf(r),
  first_name: r.first_name,
  last_name: r.last_name,
  email: r.email ?? null,
});

const INVITATION_COLUMNS =
  "id, organization_id, email, email_key, role, token_digest, invited_by_kind, invited_by_id, invited_by_name, created_at, expires_at";

const invitationOf = (r: MemberInvitationRow): InvitationRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  email: r.email,
  email_key: r.email_key,
  role: r.role,
  token_digest: r.token_digest,
  invited_by: { kind: r.invited_by_kind, id: r.invited_by_id ?? null },
  invited_by_name: r.invited_by_name,
  created_at: r.created_at,
  expires_at: r.expires_at,
});

const auditOf = (r: AuditLogRow): AuditRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  occurred_at: r.occurred_at,
  actor: { kind: r.actor_kind, id: r.actor_id ?? null },
  action: r.action,
  target: r.target ?? null,
  client_address: r.client_address ?? null,
  details: toJson(r.details) ?? {},
});

const memberTx = (q: Queryable): MemberTx => ({
  organizations: {
    async lock(organizationId) {
      const rows = await q.all("select id from organizations where id = ? for update", [organizationId]);
      return rows.length > 0;
    },
    async get(id) {
      const r = await q.one<OrganizationFields>(`select ${ORGANIZATION_COLUMNS} from organizations where id = ?`, [id]);
      return r ? organizationRecord(r) : null;
    },
    async insert(org) {
      await insertRow(q, "organizations", ORGANIZATION_FIELDS, org);
    },
    async update(org) {
      await q.run(
        "update organizations set name = ?, description = ?, email = ?, website_url = ?, image_url = ?, updated_at = ? where id = ?",
        [org.name, org.description, org.email, org.website_url, org.image_url, org.updated_at, org.id],
      );
    },
  },
  memberships: {
    async countOwners(organizationId) {
      const r = await q.one<{ n: Int8 }>(
        "select count(*) as n from memberships where organization_id = ? and role = 'owner'",
        [organizationId],
      );
      return Number(r?.n ?? 0);
    },
    async get(organizationId, id) {
      const r = await q.one<MembershipRow>(
        `select ${MEMBERSHIP_COLUMNS} from memberships m where m.organization_id = ? and m.id = ?`,
        [organizationId, id],
      );
      return r ? membershipOf(r) : null;
    },
    async of(accountId, organizationId) {
      const r = await q.one<MembershipRow>(
        `select ${MEMBERSHIP_COLUMNS} from memberships m where m.user_id = ? and m.organization_id = ?`,
        [accountId, organizationId],
      );
      return r ? membershipOf(r) : null;
    },
    async insert(m) {
      await insertRow(q, "memberships", MEMBERSHIP_FIELDS, m);
    },
    async setRole(id, role, now) {
      await q.run("update memberships set role = ?, updated_at = ? where id = ?", [role, now, id]);
    },
    async delete(id) {
      await q.run("delete from memberships where id = ?", [id]);
    },
  },
  invitations: {
    async put(i) {
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
    async get(organizationId, id) {
      const r = await q.one<MemberInvitationRow>(
        `select ${INVITATION_COLUMNS} from member_invitations where organization_id = ? and id = ? for update`,
        [organizationId, id],
      );
      return r ? invitationOf(r) : null;
    },
    async delete(id) {
      await q.run("delete from member_invitations where id = ?", [id]);
    },
  },
  async enqueueMail(mail) {
    await enqueueMails(q, [mail]);
  },
  appendAudit: (entry) => appendAudit(q, [entry]),
});

/** Memberships and invitations on PostgreSQL (or PGlite); members are the earner accounts of `users`. */
export const postgresMemberStore = (db: Database): MemberStore => ({
  transaction: (work) => db.transaction((q) => work(memberTx(q))),
  organization: (id) => memberTx(db).organizations.get(id),
  listMembers: (organizationId, req) =>
    page(
      db,
      { select: MEMBER_SELECT, from: MEMBER_FROM, where: "m.organization_id = ?", orderBy: "m.created_at, m.id" },
      [organizationId],
      req,
      memberViewOf,
    ),
  async getMember(organizationId, membershipId) {
    const r = await db.one<MemberViewRow>(
      `select ${MEMBER_SELECT} from ${MEMBER_FROM} where m.organization_id = ? and m.id = ?`,
      [organizationId, membershipId],
    );
    return r ? memberViewOf(r) : null;
  },
  membershipOf: (accountId, organizationId) => memberTx(db).memberships.of(accountId, organizationId),
  async organizationsOf(accountId) {
    const rows = await db.all<OrganizationFields & Pick<MembershipRow, "role">>(
      `select ${ORGANIZATION_FIELDS.map((c) => `o.${c}`).join(", ")}, m.role
       from memberships m join organizations o on o.id = m.organization_id
       where m.user_id = ? order by lower(o.name), o.id`,
      [accountId],
    );
    return rows.map((r) => ({ organization: organizationRecord(r), role: r.role }));
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
    const r = await db.one<MemberInvitationRow>(
      `select ${INVITATION_COLUMNS} from member_invitations where organization_id = ? and id = ?`,
      [organizationId, id],
    );
    return r ? invitationOf(r) : null;
  },
  async invitationByDigest(digest) {
    const r = await db.one<MemberInvitationRow>(
      `select ${INVITATION_COLUMNS} from member_invitations where token_digest = ?`,
      [digest],
    );
    return r ? invitationOf(r) : null;
  },
  async account(accountId) {
    const r = await db.one<Pick<UserRow, "id" | "first_name" | "last_name" | "closed_at"> & { email: string | null }>(
      `select u.id, u.first_name, u.last_name, u.closed_at,
         (select e.email from user_emails e where e.user_id = u.id order by e.position limit 1) as email
       from users u where u.id = ?`,
      [accountId],
    );
    if (!r) return null;
    return {
      id: r.id,
      first_name: r.first_name,
      last_name: r.last_name,
      email: r.email ?? null,
      closed: r.closed_at !== null && r.closed_at !== undefined,
    };
  },
  addressOwner: (emailKey) => addressOwner(db, emailKey),
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
      ? await db.all<AuditLogRow>(
          `select ${AUDIT_COLUMNS} from audit_log where organization_id = ? and (occurred_at, id) < (?, ?)
           order by occurred_at desc, id desc limit ?`,
          [organizationId, after.occurred_at, after.id, limit],
        )
      : await db.all<AuditLogRow>(
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
