import type { EndorsementStore, EndorsementTx } from "../../core/endorsements/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import { appendEvents } from "./postgres_event_log.ts";
import { enqueueMails } from "./postgres_mail_outbox.ts";
import type { EndorsementRow, EndorsementViewRow, Int8 } from "./rows.ts";
import { type Queryable, toNumber } from "./sql.ts";

const COLUMNS =
  "id, endorser_id, endorsed_id, target_kind, target_id, comment, state, created_at, updated_at, accepted_at";
const VIEW = `select e.id, e.endorser_id, e.endorsed_id, e.target_kind, e.target_id, e.comment, e.state, e.created_at,
    e.updated_at, e.accepted_at, giver.name as endorser_name, taker.name as endorsed_name,
    case when e.target_kind = 'organization' then taker.name
      else (select t.name from badge_templates t where t.id = e.target_id) end as target_name
  from endorsements e join organizations giver on giver.id = e.endorser_id
    join organizations taker on taker.id = e.endorsed_id`;

const tx = (q: Queryable): EndorsementTx => ({
  lock: async (id) =>
    (await q.one<EndorsementRow>(`select ${COLUMNS} from endorsements where id = ? for update`, [id])) ?? null,
  async insertIfNoneLive(e) {
    // The partial unique index on live endorsements is the check: a second one inserts nothing.
    const written = await q.run(
      `insert into endorsements (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
      [
        e.id,
        e.endorser_id,
        e.endorsed_id,
        e.target_kind,
        e.target_id,
        e.comment,
        e.state,
        e.created_at,
        e.updated_at,
        e.accepted_at,
      ],
    );
    return written > 0;
  },
  async update(e) {
    await q.run("update endorsements set state = ?, updated_at = ?, accepted_at = ? where id = ?", [
      e.state,
      e.updated_at,
      e.accepted_at,
      e.id,
    ]);
  },
  view: async (id) => (await q.one<EndorsementViewRow>(`${VIEW} where e.id = ?`, [id])) ?? null,
  async memberAddresses(organizationId, roles, limit) {
    const rows = await q.all<{ email: string }>(
      `select (select a.email from user_emails a where a.user_id = m.user_id order by a.position limit 1) as email
       from memberships m where m.organization_id = ? and m.role = any(?::text[])
       order by m.created_at, m.id limit ?`,
      [organizationId, roles, limit],
    );
    return rows.flatMap((r) => (r.email ? [r.email] : []));
  },
  appendAudit: (entries) => appendAudit(q, entries),
  appendEvents: (events) => appendEvents(q, events),
  enqueueMail: (mail) => enqueueMails(q, [mail]),
});

/** Endorsements between organizations, read with both organizations' names. */
export const postgresEndorsementStore = (db: Database): EndorsementStore => ({
  transaction: (work) => db.transaction((q) => work(tx(q))),
  get: (id) => tx(db).view(id),
  async list(organizationId, side, page) {
    const column = side === "given" ? "endorser_id" : "endorsed_id";
    const items = await db.all<EndorsementViewRow>(
      `${VIEW} where e.${column} = ? order by e.created_at desc, e.id desc limit ? offset ?`,
      [organizationId, page.per, page.offset],
    );
    const count = await db.one<{ n: Int8 }>(`select count(*) as n from endorsements where ${column} = ?`, [
      organizationId,
    ]);
    return { items, total: toNumber(count?.n ?? 0) };
  },
  accepted: (kind, targetId) =>
    db.all<EndorsementViewRow>(
      `${VIEW} where e.target_kind = ? and e.target_id = ? and e.state = 'accepted' order by e.accepted_at, e.id`,
      [kind, targetId],
    ),
  async targetOwner(kind, targetId) {
    const row =
      kind === "organization"
        ? await db.one<{ id: string }>("select id from organizations where id = ?", [targetId])
        : await db.one<{ id: string }>(
            "select organization_id as id from badge_templates where id = ? and state <> 'draft'",
            [targetId],
          );
    return row?.id ?? null;
  },
});
