import { type EntitySchema, type FilterQuery, type QueryOrderMap, raw } from "@mikro-orm/core";
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
import { AuthorizationTokenEntity, OAuthApplicationEntity, OrganizationEntity } from "./entities.ts";
import type { Database } from "./orm.ts";

/** Copies an entity's own fields into a plain record, so nothing outside sees ORM state. */
const plain = <T extends object>(entity: T): T => ({ ...entity });

/**
 * One page and the total in one round trip (`count(*) over ()`), mapped to plain records without
 * entity hydration: lists are the API's hottest reads. A page past the end has no row to carry the
 * total, so that case counts separately.
 */
const page = async <T extends object>(
  db: Database,
  entity: EntitySchema<T>,
  where: FilterQuery<T>,
  orderBy: QueryOrderMap<T>,
  req: PageRequest,
): Promise<Page<T>> => {
  const rows = (await db
    .em()
    .createQueryBuilder(entity)
    .select(["*", raw("count(*) over () as page_total")])
    .where(where)
    .orderBy(orderBy)
    .limit(req.per)
    .offset(req.offset)
    .execute("all", true)) as Array<T & { page_total?: string | number }>;
  const first = rows[0];
  if (!first) {
    const total = req.offset === 0 ? 0 : await db.em().count(entity, where);
    return { items: [], total };
  }
  const total = Number(first.page_total);
  return {
    total,
    items: rows.map(({ page_total: _, ...rest }) => rest as unknown as T),
  };
};

export const postgresOrganizationStore = (db: Database): OrganizationStore => ({
  async get(id) {
    const org = await db.em().findOne(OrganizationEntity, { id });
    return org ? plain(org) : null;
  },
  async list(page) {
    const [items, total] = await db
      .em()
      .findAndCount(
        OrganizationEntity,
        {},
        { orderBy: { created_at: "desc", id: "desc" }, limit: page.per, offset: page.offset },
      );
    return { items: items.map(plain), total };
  },
  async insert(org: OrganizationRecord) {
    await db.em().insert(OrganizationEntity, org);
  },
});

export const postgresOAuthApplicationStore = (db: Database): OAuthApplicationStore => ({
  list: (organizationId, req) =>
    page(db, OAuthApplicationEntity, { organization_id: organizationId }, { id: "desc" }, req),
  async get(organizationId, id) {
    const app = await db.em().findOne(OAuthApplicationEntity, { id, organization_id: organizationId });
    return app ? plain(app) : null;
  },
  async findByUid(uid) {
    const app = await db.em().findOne(OAuthApplicationEntity, { uid });
    return app ? plain(app) : null;
  },
  async insert(app) {
    const id = await db.em().insert(OAuthApplicationEntity, app as OAuthApplicationRecord);
    return { ...app, id: Number(id) };
  },
  async update(app) {
    const { id, organization_id, ...rest } = app;
    await db.em().nativeUpdate(OAuthApplicationEntity, { id, organization_id }, rest);
  },
  async remove(organizationId, id) {
    return (await db.em().nativeDelete(OAuthApplicationEntity, { id, organization_id: organizationId })) > 0;
  },
});

export const postgresAuthorizationTokenStore = (db: Database): AuthorizationTokenStore => ({
  list: (organizationId, req, filter) =>
    page(
      db,
      AuthorizationTokenEntity,
      {
        organization_id: organizationId,
        revoked_at: null,
        ...(filter.readOnly ? { write_enabled: false, delete_enabled: false } : {}),
      },
      { created_at: "desc", id: "desc" },
      req,
    ),
  async findByDigest(digest) {
    const token = await db.em().findOne(AuthorizationTokenEntity, { token_digest: digest });
    return token ? plain(token) : null;
  },
  async insert(token: AuthorizationTokenRecord) {
    await db.em().insert(AuthorizationTokenEntity, token);
  },
  async rotate(oldId, replacement, now) {
    return db.em().transactional(async (em) => {
      const revoked = await em.nativeUpdate(
        AuthorizationTokenEntity,
        { id: oldId, revoked_at: null },
        { revoked_at: now },
      );
      if (revoked === 0) return false;
      await em.insert(AuthorizationTokenEntity, replacement);
      return true;
    });
  },
});

/** Records a credential's use (DESIGN §3); the caller coalesces these writes. */
export const recordCredentialUse = async (
  db: Database,
  target: { kind: "oauth"; id: number } | { kind: "authorization_token"; id: string },
  at: Date,
  allowed: boolean,
): Promise<void> => {
  const fields = allowed ? { last_used_at: at, last_successfully_used_at: at } : { last_used_at: at };
  if (target.kind === "oauth") {
    await db.em().nativeUpdate(OAuthApplicationEntity, { id: target.id }, fields);
  } else {
    await db.em().nativeUpdate(AuthorizationTokenEntity, { id: target.id }, fields);
  }
};
