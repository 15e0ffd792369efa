import type {
  AuthorizationTokenRecord,
  AuthorizationTokenStore,
  OAuthApplicationRecord,
  OAuthApplicationStore,
  OrganizationStore,
} from "../../core/credentials/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";
import { AuthorizationTokenEntity, OAuthApplicationEntity, OrganizationEntity } from "./entities.ts";
import type { Database } from "./orm.ts";

/** Copies an entity's own fields into a plain record, so nothing outside sees ORM state. */
const plain = <T extends object>(entity: T): T => ({ ...entity });

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
  async list(organizationId, page) {
    const [items, total] = await db
      .em()
      .findAndCount(
        OAuthApplicationEntity,
        { organization_id: organizationId },
        { orderBy: { id: "desc" }, limit: page.per, offset: page.offset },
      );
    return { items: items.map(plain), total };
  },
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
  async list(organizationId, page, filter) {
    const where = {
      organization_id: organizationId,
      revoked_at: null,
      ...(filter.readOnly ? { write_enabled: false, delete_enabled: false } : {}),
    };
    const [items, total] = await db.em().findAndCount(AuthorizationTokenEntity, where, {
      orderBy: { created_at: "desc", id: "desc" },
      limit: page.per,
      offset: page.offset,
    });
    return { items: items.map(plain), total };
  },
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
