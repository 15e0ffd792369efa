import type { BadgeRecord, BadgeState } from "../../core/badges/mod.ts";
import type { EarnerAccount, EarnerLink, EarnerSession, EarnerStore, EarnerTx } from "../../core/earners/mod.ts";
import { ROLES } from "../../core/members/mod.ts";
import {
  BADGE_FROM,
  type BadgeJoinRow,
  badgeViewOf,
  type IssuerJoinRow,
  ORGANIZATION_SELECT,
  organizationOf,
  type TemplateJoinRow,
  templateFrom,
  templateViewOf,
} from "./badge_rows.ts";
import type { Database } from "./database.ts";
import { connectionTx } from "./postgres_connection_store.ts";
import { appendEvents } from "./postgres_event_log.ts";
import type { EarnerLinkRow, EarnerSessionRow, UserRow } from "./rows.ts";
import { placeholders, type Queryable, toJson } from "./sql.ts";
import { addressOwner, insertUser, linkBadges } from "./user_rows.ts";

const linkOf = (r: EarnerLinkRow): EarnerLink => ({
  token_hash: r.token_hash,
  purpose: r.purpose,
  email: r.email,
  email_key: r.email_key,
  user_id: r.user_id ?? null,
  next_path: r.next_path ?? null,
  client_key: r.client_key ?? null,
  created_at: r.created_at,
  expires_at: r.expires_at,
  used_at: r.used_at,
});

const sessionOf = (r: EarnerSessionRow): EarnerSession => ({
  token_hash: r.token_hash,
  user_id: r.user_id,
  created_at: r.created_at,
  expires_at: r.expires_at,
  revoked_at: r.revoked_at,
});

const ACCOUNT_SELECT = `select u.id, u.first_name, u.last_name, u.created_at, u.updated_at, u.public_profile,
    u.vanity_name, u.closed_at,
    coalesce((select json_agg(json_build_object('email', e.email, 'confirmed', e.confirmed) order by e.position)
      from user_emails e where e.user_id = u.id), '[]'::json) as emails
  from users u`;

/** What `ACCOUNT_SELECT` reads: the account and its addresses in order. */
type AccountRow = Pick<
  UserRow,
  "id" | "first_name" | "last_name" | "created_at" | "updated_at" | "public_profile" | "vanity_name" | "closed_at"
> & { emails: EarnerAccount["user"]["emails"] };

const accountOf = (r: AccountRow | undefined): EarnerAccount | null => {
  if (!r) return null;
  return {
    user: {
      id: r.id,
      first_name: r.first_name,
      last_name: r.last_name,
      emails: toJson(r.emails),
      created_at: r.created_at,
      updated_at: r.updated_at,
    },
    public_profile: r.public_profile === true,
    vanity_name: r.vanity_name ?? null,
    closed_at: r.closed_at,
  };
};

const unique = (err: unknown): boolean => (err as { code?: string } | null)?.code === "23505";

const revokeSessions = (q: Queryable, userId: string, now: Date) =>
  q.run("update earner_sessions set revoked_at = ? where user_id = ? and revoked_at is null", [now, userId]);

const earnerTx = (q: Queryable): EarnerTx => ({
  async lockLink(tokenHash) {
    const r = await q.one<EarnerLinkRow>("select * from earner_links where token_hash = ? for update", [tokenHash]);
    return r ? linkOf(r) : null;
  },
  async markLinkUsed(tokenHash, now) {
    await q.run("update earner_links set used_at = ? where token_hash = ?", [now, tokenHash]);
  },
  async lockBadgeLink(badgeId) {
    const r = await q.one<{ state: BadgeState; recipient_email: string; accept_token_digest: string | null }>(
      "select state, recipient_email, accept_token_digest from badges where id = ? for update",
      [badgeId],
    );
    return r ?? null;
  },
  async endBadgeLink(badgeId) {
    await q.run("update badges set accept_token_digest = null where id = ?", [badgeId]);
  },
  ownerOf: (emailKey) => addressOwner(q, emailKey),
  insertUser: (user, emailKeys) => insertUser(q, user, emailKeys),
  async confirmEmail(userId, email, emailKey, now) {
    await q.run(
      `insert into user_emails (email_key, user_id, email, position, confirmed, created_at)
       values (?, ?, ?, (select coalesce(max(position) + 1, 0) from user_emails where user_id = ?), true, ?)
       on conflict (email_key) do update set confirmed = true where user_emails.user_id = excluded.user_id`,
      [emailKey, userId, email, userId, now],
    );
  },
  linkBadges: (userId, emailKeys, now) => linkBadges(q, userId, emailKeys, now),
  async insertSession(s) {
    await q.run(
      "insert into earner_sessions (token_hash, user_id, created_at, expires_at, revoked_at) values (?, ?, ?, ?, null)",
      [s.token_hash, s.user_id, s.created_at, s.expires_at],
    );
  },
  async latestRecipientName(emailKey) {
    const r = await q.one<Pick<BadgeRecord, "issued_to_first_name" | "issued_to_last_name">>(
      `select issued_to_first_name, issued_to_last_name from badges where recipient_email_key = ?
       order by issued_at desc, id desc limit 1`,
      [emailKey],
    );
    return r ? { first_name: r.issued_to_first_name, last_name: r.issued_to_last_name } : null;
  },
  async mergeAccounts(sourceId, destinationId, now) {
    await q.run(
      `update user_emails set user_id = ?,
         position = position + (select coalesce(max(position) + 1, 0) from user_emails where user_id = ?)
       where user_id = ?`,
      [destinationId, destinationId, sourceId],
    );
    await q.run("update badges set user_id = ?, updated_at = ? where user_id = ?", [destinationId, now, sourceId]);
    // External badges follow the badges; one both accounts added stays once, the survivor's.
    await q.run(
      `update external_badges x set user_id = ? where x.user_id = ?
         and not exists (select 1 from external_badges y where y.user_id = ? and y.source_key = x.source_key)`,
      [destinationId, sourceId, destinationId],
    );
    await q.run("delete from external_badges where user_id = ?", [sourceId]);
    // Memberships follow the account; where both were members, the survivor keeps the stronger role
    // (ROLES is strongest first), so an organization whose owner merged into a viewer keeps its owner.
    await q.run(
      `update memberships d set role = s.role, updated_at = ?
       from memberships s
       where s.user_id = ? and d.user_id = ? and d.organization_id = s.organization_id
         and array_position(?::text[], s.role) < array_position(?::text[], d.role)`,
      [now, sourceId, destinationId, ROLES, ROLES],
    );
    await q.run(
      `update memberships x set user_id = ?, updated_at = ? where x.user_id = ?
         and not exists (select 1 from memberships y where y.user_id = ? and y.organization_id = x.organization_id)`,
      [destinationId, now, sourceId, destinationId],
    );
    await q.run("delete from memberships where user_id = ?", [sourceId]);
    await q.run("update users set closed_at = ?, merged_into_user_id = ?, updated_at = ? where id = ?", [
      now,
      destinationId,
      now,
      sourceId,
    ]);
  },
  async organizationsHoldingBadges(userIds) {
    const found = await q.all<Pick<BadgeRecord, "organization_id">>(
      `select distinct organization_id from badges where user_id in (${placeholders(userIds.length)}) order by 1`,
      userIds,
    );
    return found.map((r) => r.organization_id);
  },
  async connectedOrganizations(userIds) {
    const found = await q.all<{ organization_id: string }>(
      `select distinct organization_id from connect_grants
       where user_id in (${placeholders(userIds.length)}) and revoked_at is null and organization_id is not null
       order by 1`,
      userIds,
    );
    return found.map((r) => r.organization_id);
  },
  async endGrants(userId, now) {
    await q.run(
      `update connect_sessions set revoked_at = ? where revoked_at is null
         and grant_id in (select id from connect_grants where user_id = ? and revoked_at is null)`,
      [now, userId],
    );
    await q.run("update connect_grants set revoked_at = ? where user_id = ? and revoked_at is null", [now, userId]);
  },
  revokeSessions: async (userId, now) => {
    await revokeSessions(q, userId, now);
  },
  async lockAccounts(userIds) {
    const ids = [...new Set(userIds)].sort();
    if (ids.length === 0) return [];
    const rows = await q.all<Pick<UserRow, "id" | "closed_at">>(
      `select id, closed_at from users where id in (${placeholders(ids.length)}) order by id for update`,
      ids,
    );
    return rows.map((r) => ({ id: r.id, closed_at: r.closed_at }));
  },
  async endLinks(userId, now) {
    // A link being used right now is skipped rather than waited for: its use holds the link and
    // waits for this account's row, and finds the account closed once this transaction commits.
    await q.run(
      `update earner_links set expires_at = ? where token_hash in (
         select token_hash from earner_links where user_id = ? and used_at is null and expires_at > ?
         for update skip locked)`,
      [now, userId, now],
    );
  },
  async removeEmail(userId, emailKey) {
    await q.run("delete from user_emails where user_id = ? and email_key = ?", [userId, emailKey]);
  },
  appendEvents: (events) => appendEvents(q, events),
  connections: connectionTx(q),
});

/** Earner accounts, links and sessions on PostgreSQL (or PGlite), and the reads of the web pages. */
export const postgresEarnerStore = (db: Database): EarnerStore => ({
  transaction: (work) => db.transaction((tx) => work(earnerTx(tx))),
  async insertLink(l) {
    await db.run(
      `insert into earner_links (token_hash, purpose, email, email_key, user_id, next_path, client_key, created_at, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [l.token_hash, l.purpose, l.email, l.email_key, l.user_id, l.next_path, l.client_key, l.created_at, l.expires_at],
    );
  },
  async recentLinks(emailKey, clientKey, since) {
    const r = await db.one<{ address: number; client: number }>(
      `select (select count(*) from earner_links where email_key = ? and created_at > ?)::int as address,
              (select count(*) from earner_links where client_key = ? and created_at > ?)::int as client`,
      [emailKey, since, clientKey, since],
    );
    return { address: Number(r?.address ?? 0), client: Number(r?.client ?? 0) };
  },
  async getSession(tokenHash) {
    const r = await db.one<EarnerSessionRow>("select * from earner_sessions where token_hash = ?", [tokenHash]);
    return r ? sessionOf(r) : null;
  },
  async revokeSession(tokenHash, now) {
    await db.run("update earner_sessions set revoked_at = ? where token_hash = ? and revoked_at is null", [
      now,
      tokenHash,
    ]);
  },
  revokeSessions: async (userId, now) => {
    await revokeSessions(db, userId, now);
  },
  getAccount: async (userId) => accountOf((await db.all<AccountRow>(`${ACCOUNT_SELECT} where u.id = ?`, [userId]))[0]),
  accountByVanity: async (name) =>
    accountOf((await db.all<AccountRow>(`${ACCOUNT_SELECT} where lower(u.vanity_name) = lower(?)`, [name]))[0]),
  async updateName(userId, firstName, lastName, now) {
    await db.run("update users set first_name = ?, last_name = ?, updated_at = ? where id = ?", [
      firstName,
      lastName,
      now,
      userId,
    ]);
  },
  async updateProfile(userId, publicProfile, vanity, now) {
    try {
      await db.run("update users set public_profile = ?, vanity_name = ?, updated_at = ? where id = ?", [
        publicProfile,
        vanity,
        now,
        userId,
      ]);
      return "updated";
    } catch (err) {
      if (unique(err)) return "taken";
      throw err;
    }
  },
  userBadges: async (userId) =>
    (
      await db.all<BadgeJoinRow>(`${BADGE_FROM} where b.user_id = ? order by b.issued_at desc, b.id desc`, [userId])
    ).map(badgeViewOf),
  async getIssuer(organizationId) {
    const r = await db.one<IssuerJoinRow>(`select ${ORGANIZATION_SELECT} from organizations o where o.id = ?`, [
      organizationId,
    ]);
    return r ? organizationOf(r) : null;
  },
  issuerTemplates: async (organizationId) =>
    (
      await db.all<TemplateJoinRow & { badges_count: number }>(
        `${templateFrom(true)} where t.organization_id = ? and t.state = 'active' and t.public order by lower(t.name), t.id`,
        [organizationId],
      )
    ).map((r) => templateViewOf(r, Number(r.badges_count))),
});
