import type {
  CodeRecord,
  ConnectStore,
  GrantListing,
  GrantRecord,
  RefreshTokenRecord,
  SessionRecord,
} from "../../core/connect/mod.ts";
import type { Database } from "./database.ts";
import { appendEvents } from "./postgres_event_log.ts";
import { placeholders, toDate, toDateOrNull, toNumber } from "./sql.ts";

type Row = Record<string, unknown>;

const grantOf = (r: Row): GrantRecord => ({
  id: r.id as string,
  user_id: r.user_id as string,
  application_id: toNumber(r.application_id),
  organization_id: r.organization_id as string,
  scopes: r.scopes as string,
  created_at: toDate(r.created_at),
  updated_at: toDate(r.updated_at),
  revoked_at: toDateOrNull(r.revoked_at),
});

const codeOf = (r: Row): CodeRecord => ({
  digest: r.digest as string,
  grant_id: r.grant_id as string,
  user_id: r.user_id as string,
  application_id: toNumber(r.application_id),
  redirect_uri: r.redirect_uri as string,
  code_challenge: r.code_challenge as string,
  scopes: r.scopes as string,
  created_at: toDate(r.created_at),
  expires_at: toDate(r.expires_at),
  used_at: toDateOrNull(r.used_at),
  session_id: (r.session_id as string | null) ?? null,
});

const sessionOf = (r: Row, prefix = ""): SessionRecord => ({
  id: r[`${prefix}id`] as string,
  grant_id: r[`${prefix}grant_id`] as string,
  scopes: r[`${prefix}scopes`] as string,
  created_at: toDate(r[`${prefix}created_at`]),
  revoked_at: toDateOrNull(r[`${prefix}revoked_at`]),
});

const GRANT_COLUMNS =
  "g.id, g.user_id, g.application_id, g.organization_id, g.scopes, g.created_at, g.updated_at, g.revoked_at";

export const postgresConnectStore = (db: Database): ConnectStore => ({
  async activeGrant(userId, applicationId) {
    const [row] = await db.all<Row>(
      `select ${GRANT_COLUMNS} from connect_grants g where g.user_id = ? and g.application_id = ? and g.revoked_at is null`,
      [userId, applicationId],
    );
    return row ? grantOf(row) : null;
  },
  async saveGrant(grant) {
    const [row] = await db.all<Row>(
      `insert into connect_grants as g (id, user_id, application_id, organization_id, scopes, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?)
       on conflict (user_id, application_id) where revoked_at is null
       do update set scopes = excluded.scopes, updated_at = excluded.updated_at
       returning ${GRANT_COLUMNS}`,
      [
        grant.id,
        grant.user_id,
        grant.application_id,
        grant.organization_id,
        grant.scopes,
        grant.created_at,
        grant.updated_at,
      ],
    );
    return grantOf(row as Row);
  },
  async insertCode(c) {
    await db.run(
      `insert into connect_codes (digest, grant_id, user_id, application_id, redirect_uri, code_challenge, scopes,
       created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        c.digest,
        c.grant_id,
        c.user_id,
        c.application_id,
        c.redirect_uri,
        c.code_challenge,
        c.scopes,
        c.created_at,
        c.expires_at,
      ],
    );
  },
  async useCode(digest, now, sessionId) {
    // The row as it stood ahead of this use: a second use sees the first one's time and family.
    const [row] = await db.all<Row>(
      `with old as (select * from connect_codes where digest = ? for update)
       update connect_codes c set used_at = coalesce(c.used_at, ?), session_id = coalesce(c.session_id, ?)
       from old where c.digest = old.digest
       returning old.*`,
      [digest, now, sessionId],
    );
    return row ? codeOf(row) : null;
  },
  async insertSession(session, refresh) {
    await db.transaction(async (tx) => {
      await tx.run("insert into connect_sessions (id, grant_id, scopes, created_at) values (?, ?, ?, ?)", [
        session.id,
        session.grant_id,
        session.scopes,
        session.created_at,
      ]);
      await insertRefreshRow(tx.run.bind(tx), refresh);
    });
  },
  async revokeSession(id, now) {
    await db.run("update connect_sessions set revoked_at = ? where id = ? and revoked_at is null", [now, id]);
  },
  async useRefresh(digest, now) {
    const [row] = await db.all<Row>(
      `with old as (select * from connect_refresh_tokens where digest = ? for update)
       update connect_refresh_tokens r set used_at = coalesce(r.used_at, ?)
       from old join connect_sessions s on s.id = old.session_id
       where r.digest = old.digest
       returning old.digest, old.session_id, old.created_at, old.expires_at, old.used_at,
         s.id as s_id, s.grant_id as s_grant_id, s.scopes as s_scopes, s.created_at as s_created_at,
         s.revoked_at as s_revoked_at`,
      [digest, now],
    );
    if (!row) return null;
    const refresh: RefreshTokenRecord = {
      digest: row.digest as string,
      session_id: row.session_id as string,
      created_at: toDate(row.created_at),
      expires_at: toDate(row.expires_at),
      used_at: toDateOrNull(row.used_at),
    };
    return { refresh, session: sessionOf(row, "s_") };
  },
  insertRefresh: (refresh) => insertRefreshRow((sql, params) => db.run(sql, params), refresh),
  async revokeGrant(id, now, events = []) {
    return db.transaction(async (q) => {
      const [row] = await q.all<Row>(
        `update connect_grants g set revoked_at = ? where g.id = ? and g.revoked_at is null returning ${GRANT_COLUMNS}`,
        [now, id],
      );
      await q.run("update connect_sessions set revoked_at = ? where grant_id = ? and revoked_at is null", [now, id]);
      // Events only when this call removed the grant: a second removal records nothing.
      if (row) await appendEvents(q, events);
      return row ? grantOf(row) : null;
    });
  },
  async activeSession(sessionId) {
    const [row] = await db.all<Row>(
      `select ${GRANT_COLUMNS}, s.id as s_id, s.grant_id as s_grant_id, s.scopes as s_scopes,
         s.created_at as s_created_at, s.revoked_at as s_revoked_at
       from connect_sessions s join connect_grants g on g.id = s.grant_id
       where s.id = ? and s.revoked_at is null and g.revoked_at is null`,
      [sessionId],
    );
    return row ? { session: sessionOf(row, "s_"), grant: grantOf(row) } : null;
  },
  async grantsOf(userId) {
    const found = await db.all<Row>(
      `select ${GRANT_COLUMNS}, a.name as application_name, o.name as organization_name
       from connect_grants g join oauth_applications a on a.id = g.application_id
       join organizations o on o.id = g.organization_id
       where g.user_id = ? and g.revoked_at is null order by g.created_at desc, g.id`,
      [userId],
    );
    return found.map(
      (r): GrantListing => ({
        ...grantOf(r),
        application_name: r.application_name as string,
        organization_name: r.organization_name as string,
      }),
    );
  },
  async connectedOrganizations(userIds) {
    if (userIds.length === 0) return [];
    const found = await db.all<{ organization_id: string }>(
      `select distinct organization_id from connect_grants
       where user_id in (${placeholders(userIds.length)}) and revoked_at is null order by organization_id`,
      userIds,
    );
    return found.map((r) => r.organization_id);
  },
});

const insertRefreshRow = async (
  run: (sql: string, params: unknown[]) => Promise<number>,
  r: RefreshTokenRecord,
): Promise<void> => {
  await run("insert into connect_refresh_tokens (digest, session_id, created_at, expires_at) values (?, ?, ?, ?)", [
    r.digest,
    r.session_id,
    r.created_at,
    r.expires_at,
  ]);
};
