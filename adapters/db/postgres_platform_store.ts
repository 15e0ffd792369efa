import type { PlatformRecord, PlatformStore } from "../../core/ob_api/mod.ts";
import type { Database } from "./database.ts";
import type { ObPlatformRow } from "./rows.ts";
import { toNumber } from "./sql.ts";

const COLUMNS = `id, client_id, secret_digest, client_name, client_uri, logo_uri, tos_uri, policy_uri, software_id,
  software_version, redirect_uris, scopes, contacts, created_at`;

const platformOf = (r: ObPlatformRow): PlatformRecord => ({ ...r, id: toNumber(r.id) });

/** Platforms registered through the Open Badges API, and the account subject its profile names. */
export const postgresPlatformStore = (
  db: Database,
): PlatformStore & { subjectOf(userId: string): Promise<string | null> } => ({
  async count() {
    const row = await db.one<{ n: string | number }>("select count(*) as n from ob_platforms");
    return toNumber(row?.n ?? 0);
  },
  async insert(p) {
    const [row] = await db.all<ObPlatformRow>(
      `insert into ob_platforms (client_id, secret_digest, client_name, client_uri, logo_uri, tos_uri, policy_uri,
         software_id, software_version, redirect_uris, scopes, contacts, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${COLUMNS}`,
      [
        p.client_id,
        p.secret_digest,
        p.client_name,
        p.client_uri,
        p.logo_uri,
        p.tos_uri,
        p.policy_uri,
        p.software_id,
        p.software_version,
        p.redirect_uris,
        p.scopes,
        p.contacts,
        p.created_at,
      ],
    );
    return platformOf(row as ObPlatformRow);
  },
  async findByClientId(clientId) {
    const row = await db.one<ObPlatformRow>(`select ${COLUMNS} from ob_platforms where client_id = ?`, [clientId]);
    return row ? platformOf(row) : null;
  },
  list: async () =>
    (await db.all<ObPlatformRow>(`select ${COLUMNS} from ob_platforms order by created_at, id`)).map(platformOf),
  // The grants, codes, token families and refresh tokens go with it (foreign keys cascade).
  remove: async (clientId) => (await db.run("delete from ob_platforms where client_id = ?", [clientId])) > 0,
  async subjectOf(userId) {
    const row = await db.one<{ subject_id: string }>("select subject_id from users where id = ?", [userId]);
    return row?.subject_id ?? null;
  },
});
