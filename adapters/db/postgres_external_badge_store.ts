import type {
  ExternalBadgeDetails,
  ExternalBadgeRecord,
  ExternalBadgeStore,
  ExternalBadgeTx,
} from "../../core/workforce/mod.ts";
import type { Database } from "./database.ts";
import { connectionTx } from "./postgres_connection_store.ts";
import type { ExternalBadgeRow, Int8 } from "./rows.ts";
import { type Queryable, toDateOrNull, toJson, toNumber } from "./sql.ts";

const SELECT = `x.id, x.user_id, x.source, x.url, x.credential, x.source_key, x.details, x.verification_status,
  x.verification_reason, x.verified_at, x.next_verification_at, x.created_at`;

/** `details` is stored as JSON: its dates as ISO strings. */
const detailsOf = (v: unknown): ExternalBadgeDetails => {
  const d = toJson<Record<string, unknown>>(v);
  return {
    ...d,
    issuer_origin: d.issuer_origin ?? null,
    issued_at: toDateOrNull(d.issued_at),
    expires_at: toDateOrNull(d.expires_at),
  } as ExternalBadgeDetails;
};

const recordOf = (r: ExternalBadgeRow): ExternalBadgeRecord => ({ ...r, details: detailsOf(r.details) });

const externalBadgeTx = (q: Queryable): ExternalBadgeTx => {
  const connections = connectionTx(q);
  return {
    lockForAccount: connections.lockForAccount,
    employers: connections.employers,
    heldBadges: connections.heldBadges,
    appendEvents: connections.appendEvents,
    async countForUser(userId) {
      const r = await q.one<{ n: Int8 }>("select count(*) as n from external_badges where user_id = ?", [userId]);
      return toNumber(r?.n ?? 0);
    },
    async insert(b) {
      const n = await q.run(
        `insert into external_badges (id, user_id, source, url, credential, source_key, details, verification_status,
           verification_reason, verified_at, next_verification_at, created_at)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?) on conflict (user_id, source_key) do nothing`,
        [
          b.id,
          b.user_id,
          b.source,
          b.url,
          b.credential,
          b.source_key,
          JSON.stringify(b.details),
          b.verification_status,
          b.verification_reason,
          b.verified_at,
          b.next_verification_at,
          b.created_at,
        ],
      );
      return n === 1 ? "inserted" : "duplicate";
    },
    async lock(id) {
      const r = await q.one<ExternalBadgeRow>(`select ${SELECT} from external_badges x where x.id = ? for update`, [
        id,
      ]);
      return r ? recordOf(r) : null;
    },
    async delete(id) {
      await q.run("delete from external_badges where id = ?", [id]);
    },
    async saveVerification(b) {
      await q.run(
        `update external_badges set details = ?::jsonb, verification_status = ?, verification_reason = ?,
           verified_at = ?, next_verification_at = ? where id = ?`,
        [
          JSON.stringify(b.details),
          b.verification_status,
          b.verification_reason,
          b.verified_at,
          b.next_verification_at,
          b.id,
        ],
      );
    },
  };
};

export const postgresExternalBadgeStore = (db: Database): ExternalBadgeStore => ({
  transaction: (work) => db.transaction((tx) => work(externalBadgeTx(tx))),
  async listForUser(userId) {
    const found = await db.all<ExternalBadgeRow>(
      `select ${SELECT} from external_badges x where x.user_id = ? order by x.created_at desc, x.id desc`,
      [userId],
    );
    return found.map(recordOf);
  },
  async pageForUser(userId, page) {
    const q = db;
    const found = await q.all<ExternalBadgeRow & { total: Int8 }>(
      `select ${SELECT}, count(*) over () as total from external_badges x where x.user_id = ?
       order by x.created_at desc, x.id desc limit ? offset ?`,
      [userId, page.per, page.offset],
    );
    const total =
      found.length > 0
        ? toNumber(found[0]?.total)
        : toNumber(
            (await q.all<{ n: Int8 }>("select count(*) as n from external_badges where user_id = ?", [userId]))[0]?.n ??
              0,
          );
    return { items: found.map(recordOf), total };
  },
  async claimDue(now, limit, leaseUntil) {
    const found = await db.all<ExternalBadgeRow & { emails: string[] }>(
      `with due as (
         select x.id from external_badges x join users u on u.id = x.user_id
         where x.next_verification_at <= ? and u.closed_at is null
         order by x.next_verification_at limit ? for update of x skip locked)
       update external_badges x set next_verification_at = ? from due where x.id = due.id
       returning ${SELECT},
         coalesce((select json_agg(ue.email order by ue.position) from user_emails ue
                   where ue.user_id = x.user_id and ue.confirmed), '[]'::json) as emails`,
      [now, limit, leaseUntil],
    );
    return found.map((r) => ({ record: recordOf(r), emails: toJson<string[]>(r.emails) }));
  },
});
