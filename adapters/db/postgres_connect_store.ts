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
import type { ConnectCodeRow, ConnectGrantRow, ConnectRefreshTokenRow, ConnectSessionRow } from "./rows.ts";
import { placeholders, type Queryable, toNumber } from "./sql.ts";

const idOrNull = (v: ConnectGrantRow["application_id"]): number | null => (v === null ? null : toNumber(v));

const grantOf = (r: ConnectGrantRow): GrantRecord => ({
  id: r.id,
  user_id: r.user_id,
  application_id: idOrNull(r.application_id),
  platform_id: idOrNull(r.platform_id),
  organization_id: r.organization_id,
  scopes: r.scopes,
  private_badges: r.private_badges,
  created_at: r.created_at,
  updated_at: r.updated_at,
  revoked_at: r.revoked_at,
});

const codeOf = (r: ConnectCodeRow): CodeRecord => ({
  digest: r.digest,
  grant_id: r.grant_id,
  user_id: r.user_id,
  application_id: idOrNull(r.application_id),
  platform_id: idOrNull(r.platform_id),
  redirect_uri: r.redirect_uri,
  code_challenge: r.code_challenge,
  scopes: r.scopes,
  created_at: r.created_at,
  expires_at: r.expires_at,
  used_at: r.used_at,
  session_id: r.session_id ?? null,
});

/** A session's columns selected beside another table's, under `s_` (`s.id as s_id`). */
const SESSION_SELECT = `s.id as s_id, s.grant_id as s_grant_id, s.scopes as s_scopes, s.created_at as s_created_at,
  s.revoked_at as s_revoked_at`;
type SessionFields = { [K in keyof ConnectSessionRow as `s_${K}`]: ConnectSessionRow[K] };

const sessionOf = (r: SessionFields): SessionRecord => ({
  id: r.s_id,
  grant_id: r.s_grant_id,
  scopes: r.s_scopes,
  created_at: r.s_created_at,
  revoked_at: r.s_revoked_at,
});

const GRANT_COLUMNS = `g.id, g.user_id, g.application_id, g.platform_id, g.organization_id, g.scopes, g.private_badges,
  g.created_at, g.updated_at, g.revoked_at`;

/** The organizations the accounts have an active grant with, for the events a change of theirs tells. */
export const connectedOrganizations = async (q: Queryable, userIds: readonly string[]): Promise<string[]> => {
  if (userIds.length === 0) return [];
  const found = await q.all<{ organization_id: string }>(
    `select distinct organization_id from connect_grants
       where user_id in (${placeholders(userIds.length)}) and revoked_at is null and organization_id is not null
       order by organization_id`,
    userIds,
  );
  return found.map((r) => r.organization_id);
};

export const postgresConnectStore = (db: Database): ConnectStore => ({
  async activeGrant(userId, client) {
    const column = client.kind === "application" ? "application_id" : "platform_id";
    const [row] = await db.all<ConnectGrantRow>(
      `select ${GRANT_COLUMNS} from connect_grants g where g.user_id = ? and g.${column} = ? and g.revoked_at is null`,
      [userId, client.id],
    );
    return row ? grantOf(row) : null;
  },
  async saveGrant(grant) {
    // Each kind of client has its own index of standing grants.
    const target =
      grant.platform_id === null
        ? "(user_id, application_id) where revoked_at is null"
        : "(user_id, platform_id) where revoked_at is null and platform_id is not null";
    const [row] = await db.all<ConnectGrantRow>(
      `insert into connect_grants as g (id, user_id, application_id, platform_id, organization_id, scopes,
         private_badges, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict ${target}
       do update set scopes = excluded.scopes, private_badges = excluded.private_badges, updated_at = excluded.updated_at
       returning ${GRANT_COLUMNS}`,
      [
        grant.id,
        grant.user_id,
        grant.application_id,
        grant.platform_id,
        grant.organization_id,
        grant.scopes,
        grant.private_badges,
        grant.created_at,
        grant.updated_at,
      ],
    );
    return grantOf(row as ConnectGrantRow);
  },
  async insertCode(c) {
    await db.run(
      `insert into connect_codes (digest, grant_id, user_id, application_id, platform_id, redirect_uri, code_challenge,
       scopes, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        c.digest,
        c.grant_id,
        c.user_id,
        c.application_id,
        c.platform_id,
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
    const [row] = await db.all<ConnectCodeRow>(
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
    const [row] = await db.all<ConnectRefreshTokenRow & SessionFields>(
      `with old as (select * from connect_refresh_tokens where digest = ? for update)
       update connect_refresh_tokens r set used_at = coalesce(r.used_at, ?)
       from old join connect_sessions s on s.id = old.session_id
       where r.digest = old.digest
       returning old.digest, old.session_id, old.created_at, old.expires_at, old.used_at, ${SESSION_SELECT}`,
      [digest, now],
    );
    if (!row) return null;
    const refresh: RefreshTokenRecord = {
      digest: row.digest,
      session_id: row.session_id,
      created_at: row.created_at,
      expires_at: row.expires_at,
      used_at: row.used_at,
    };
    return { refresh, session: sessionOf(row) };
  },
  insertRefresh: (refresh) => insertRefreshRow((sql, params) => db.run(sql, params), refresh),
  async refreshSession(digest) {
    const [row] = await db.all<ConnectGrantRow & SessionFields>(
      `select ${GRANT_COLUMNS}, ${SESSION_SELECT}
       from connect_refresh_tokens r join connect_sessions s on s.id = r.session_id
       join connect_grants g on g.id = s.grant_id where r.digest = ?`,
      [digest],
    );
    return row ? { session: sessionOf(row), grant: grantOf(row) } : null;
  },
  async revokeGrant(id, now, events = []) {
    return db.transaction(async (q) => {
      const [row] = await q.all<ConnectGrantRow>(
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
    const [row] = await db.all<ConnectGrantRow & SessionFields>(
      `select ${GRANT_COLUMNS}, ${SESSION_SELECT}
       from connect_sessions s join connect_grants g on g.id = s.grant_id
       where s.id = ? and s.revoked_at is null and g.revoked_at is null`,
      [sessionId],
    );
    return row ? { session: sessionOf(row), grant: grantOf(row) } : null;
  },
  async grantsOf(userId) {
    const found = await db.all<ConnectGrantRow & { application_name: string; organization_name: string | null }>(
      `select ${GRANT_COLUMNS}, coalesce(a.name, p.client_name) as application_name, o.name as organization_name
       from connect_grants g left join oauth_applications a on a.id = g.application_id
       left join ob_platforms p on p.id = g.platform_id
       left join organizations o on o.id = g.organization_id
       where g.user_id = ? and g.revoked_at is null order by g.created_at desc, g.id`,
      [userId],
    );
    return found.map(
      (r): GrantListing => ({
        ...grantOf(r),
        application_name: r.application_name,
        organization_name: r.organization_name,
      }),
    );
  },
  connectedOrganizations: (userIds) => connectedOrganizations(db, userIds),
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
