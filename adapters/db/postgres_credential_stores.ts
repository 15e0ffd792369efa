import type {
  AuthorizationTokenRecord,
  AuthorizationTokenStore,
  OAuthApplicationRecord,
  OAuthApplicationStore,
  OrganizationStore,
  Page,
} from "../../core/credentials/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";
import type { PageRequest } from "../../core/shared/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import type { AuthorizationTokenRow, Int8, OAuthApplicationRow, OrganizationRow } from "./rows.ts";
import { insertRow, type Queryable, toNumber } from "./sql.ts";

/**
 * One page and the total in one round trip (`count(*) over ()`), as plain rows: lists are the API's
 * hottest reads, and building entities from rows would cost more than the query itself. A page past the end has
 * no row to carry the total, so that case counts separately.
 */
export const page = async <R, T>(
  db: Database,
  sql: { select: string; from: string; where: string; orderBy: string },
  params: unknown[],
  req: PageRequest,
  toRecord: (row: R) => T,
): Promise<Page<T>> => {
  const rows = await db.all<R & { page_total: Int8 }>(
    `select ${sql.select}, count(*) over () as page_total from ${sql.from} where ${sql.where} order by ${sql.orderBy} limit ? offset ?`,
    [...params, req.per, req.offset],
  );
  const first = rows[0];
  if (!first) {
    if (req.offset === 0) return { items: [], total: 0 };
    const [count] = await db.all<{ n: Int8 }>(`select count(*) as n from ${sql.from} where ${sql.where}`, params);
    return { items: [], total: toNumber(count?.n ?? 0) };
  }
  return { total: toNumber(first.page_total), items: rows.map(toRecord) };
};

export const ORGANIZATION_FIELDS = [
  "id",
  "name",
  "description",
  "email",
  "website_url",
  "image_url",
  "created_at",
  "updated_at",
] as const;
export const ORGANIZATION_COLUMNS = ORGANIZATION_FIELDS.join(", ");
/** The columns `ORGANIZATION_COLUMNS` selects. */
export type OrganizationFields = Pick<OrganizationRow, (typeof ORGANIZATION_FIELDS)[number]>;
export const organizationRecord = (r: OrganizationFields): OrganizationRecord => ({
  id: r.id,
  name: r.name,
  description: r.description,
  email: r.email,
  website_url: r.website_url,
  image_url: r.image_url,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** Every column but `id`, which the database numbers. */
const APPLICATION_FIELDS = [
  "organization_id",
  "name",
  "description",
  "uid",
  "secret_digest",
  "created_by_id",
  "created_by_type",
  "created_by_name",
  "data_services_enabled",
  "ceiling_read_enabled",
  "ceiling_write_enabled",
  "ceiling_delete_enabled",
  "ceiling_scopes",
  "scopes",
  "redirect_uris",
  "created_at",
  "updated_at",
  "last_used_at",
  "last_successfully_used_at",
];
const APPLICATION_COLUMNS = `id, ${APPLICATION_FIELDS.join(", ")}`;
/** What an update may change. */
const APPLICATION_UPDATED = APPLICATION_FIELDS.filter(
  (c) => c !== "organization_id" && c !== "uid" && c !== "created_at",
);
const applicationRecord = (r: OAuthApplicationRow): OAuthApplicationRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  name: r.name,
  description: r.description,
  uid: r.uid,
  secret_digest: r.secret_digest,
  created_by_id: r.created_by_id,
  created_by_type: r.created_by_type,
  created_by_name: r.created_by_name,
  data_services_enabled: r.data_services_enabled,
  ceiling_read_enabled: r.ceiling_read_enabled,
  ceiling_write_enabled: r.ceiling_write_enabled,
  ceiling_delete_enabled: r.ceiling_delete_enabled,
  ceiling_scopes: r.ceiling_scopes,
  scopes: r.scopes,
  redirect_uris: r.redirect_uris,
  created_at: r.created_at,
  updated_at: r.updated_at,
  last_used_at: r.last_used_at,
  last_successfully_used_at: r.last_successfully_used_at,
});

const TOKEN_FIELDS = [
  "id",
  "organization_id",
  "description",
  "token_digest",
  "token_sealed",
  "read_enabled",
  "write_enabled",
  "delete_enabled",
  "created_at",
  "expires_at",
  "revoked_at",
  "last_used_at",
  "last_successfully_used_at",
];
const TOKEN_COLUMNS = TOKEN_FIELDS.join(", ");
const insertToken = (q: Queryable, token: AuthorizationTokenRecord) =>
  insertRow(q, "authorization_tokens", TOKEN_FIELDS, token);
const tokenRecord = (r: AuthorizationTokenRow): AuthorizationTokenRecord => ({
  id: r.id,
  organization_id: r.organization_id,
  description: r.description,
  token_digest: r.token_digest,
  token_sealed: r.token_sealed,
  read_enabled: r.read_enabled,
  write_enabled: r.write_enabled,
  delete_enabled: r.delete_enabled,
  created_at: r.created_at,
  expires_at: r.expires_at,
  revoked_at: r.revoked_at,
  last_used_at: r.last_used_at,
  last_successfully_used_at: r.last_successfully_used_at,
});

export const postgresOrganizationStore = (db: Database): OrganizationStore => ({
  async get(id) {
    const row = await db.one<OrganizationFields>(`select ${ORGANIZATION_COLUMNS} from organizations where id = ?`, [
      id,
    ]);
    return row ? organizationRecord(row) : null;
  },
  list: (req) =>
    page(
      db,
      { select: ORGANIZATION_COLUMNS, from: "organizations", where: "true", orderBy: "created_at desc, id desc" },
      [],
      req,
      organizationRecord,
    ),
  async insert(org: OrganizationRecord) {
    await insertRow(db, "organizations", ORGANIZATION_FIELDS, org);
  },
  async countWithoutEmail() {
    const [row] = await db.all<{ n: Int8 }>("select count(*) as n from organizations where email is null", []);
    return Number(row?.n ?? 0);
  },
  async fillMissingEmail(email, now) {
    const changed = await db.all<{ id: string }>(
      "update organizations set email = ?, updated_at = ? where email is null returning id",
      [email, now],
    );
    return changed.length;
  },
});

export const postgresOAuthApplicationStore = (db: Database): OAuthApplicationStore => ({
  list: (organizationId, req) =>
    page(
      db,
      { select: APPLICATION_COLUMNS, from: "oauth_applications", where: "organization_id = ?", orderBy: "id desc" },
      [organizationId],
      req,
      applicationRecord,
    ),
  async listVersion(organizationId) {
    const row = await db.one<{ version: string }>(
      "select coalesce((select version from list_versions where organization_id = ? and list = 'oauth_applications'), 0) as version",
      [organizationId],
    );
    return Number(row?.version ?? 0);
  },
  async get(organizationId, id) {
    const row = await db.one<OAuthApplicationRow>(
      `select ${APPLICATION_COLUMNS} from oauth_applications where id = ? and organization_id = ?`,
      [id, organizationId],
    );
    return row ? applicationRecord(row) : null;
  },
  async findByUid(uid) {
    const row = await db.one<OAuthApplicationRow>(
      `select ${APPLICATION_COLUMNS} from oauth_applications where uid = ?`,
      [uid],
    );
    return row ? applicationRecord(row) : null;
  },
  insert: (app, audit) =>
    db.transaction(async (q) => {
      const [row] = await insertRow<Pick<OAuthApplicationRow, "id">>(
        q,
        "oauth_applications",
        APPLICATION_FIELDS,
        app,
        "id",
      );
      const id = toNumber(row?.id);
      await appendAudit(q, [audit(id)]);
      return { ...app, id };
    }),
  update: (app, audit) =>
    db.transaction(async (q) => {
      await q.run(
        `update oauth_applications set ${APPLICATION_UPDATED.map((c) => `${c} = ?`).join(", ")}
         where id = ? and organization_id = ?`,
        [
          ...APPLICATION_UPDATED.map((c) => (app as unknown as Record<string, unknown>)[c]),
          app.id,
          app.organization_id,
        ],
      );
      await appendAudit(q, [audit]);
    }),
  remove: (organizationId, id, audit) =>
    db.transaction(async (q) => {
      const removed = await q.run("delete from oauth_applications where id = ? and organization_id = ?", [
        id,
        organizationId,
      ]);
      if (removed > 0) await appendAudit(q, [audit]);
      return removed > 0;
    }),
});

export const postgresAuthorizationTokenStore = (db: Database): AuthorizationTokenStore => ({
  list: (organizationId, req, filter) =>
    page(
      db,
      {
        select: TOKEN_COLUMNS,
        from: "authorization_tokens",
        where: `organization_id = ? and revoked_at is null${filter.readOnly ? " and not write_enabled and not delete_enabled" : ""}`,
        orderBy: "created_at desc, id desc",
      },
      [organizationId],
      req,
      tokenRecord,
    ),
  async findByDigest(digest) {
    const row = await db.one<AuthorizationTokenRow>(
      `select ${TOKEN_COLUMNS} from authorization_tokens where token_digest = ?`,
      [digest],
    );
    return row ? tokenRecord(row) : null;
  },
  async get(organizationId, id) {
    const row = await db.one<AuthorizationTokenRow>(
      `select ${TOKEN_COLUMNS} from authorization_tokens where organization_id = ?::uuid and id = ?::uuid`,
      [organizationId, id],
    );
    return row ? tokenRecord(row) : null;
  },
  insert: (token: AuthorizationTokenRecord, audit) =>
    db.transaction(async (q) => {
      await insertToken(q, token);
      await appendAudit(q, [audit]);
    }),
  async rotate(oldId, replacement, now, audit) {
    return db.transaction(async (q) => {
      const revoked = await q.run(
        "update authorization_tokens set revoked_at = ? where id = ? and revoked_at is null",
        [now, oldId],
      );
      if (revoked === 0) return false;
      await insertToken(q, replacement);
      await appendAudit(q, [audit]);
      return true;
    });
  },
  revoke: (organizationId, id, now, audit) =>
    db.transaction(async (q) => {
      const [row] = await q.all<Pick<AuthorizationTokenRow, "token_digest">>(
        `update authorization_tokens set revoked_at = ? where id = ? and organization_id = ? and revoked_at is null
         returning token_digest`,
        [now, id, organizationId],
      );
      if (!row) return null;
      await appendAudit(q, [audit]);
      return row.token_digest;
    }),
});

/** Records a credential's use; the caller coalesces these writes. */
export const recordCredentialUse = async (
  db: Database,
  target: { kind: "oauth"; id: number } | { kind: "authorization_token"; id: string },
  at: Date,
  allowed: boolean,
): Promise<void> => {
  const table = target.kind === "oauth" ? "oauth_applications" : "authorization_tokens";
  const set = allowed ? "last_used_at = ?, last_successfully_used_at = ?" : "last_used_at = ?";
  await db.run(`update ${table} set ${set} where id = ?`, allowed ? [at, at, target.id] : [at, target.id]);
};
