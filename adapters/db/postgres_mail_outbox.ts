import type { DueMail, MailOutbox, OutboxMail } from "../../core/mail/mod.ts";
import type { Database } from "./database.ts";
import { appendEvents } from "./postgres_event_log.ts";
import type { MailOutboxRow } from "./rows.ts";
import { type Queryable, toJson, toNumber } from "./sql.ts";

/**
 * A common table expression writing outbox mails, to run in the statement (and so the transaction)
 * that writes the change they tell about. Its one `?` is `outboxRows(...)`; `filter` keeps a row
 * only when its change was written (`join b on b.id = x.badge_id`, `where exists (select 1 from b)`).
 */
export const outboxInsertCte = (name: string, filter: string): string =>
  `${name} as (
    insert into mail_outbox (id, kind, organization_id, content, sent_event, created_at, next_attempt_at)
    select x.id, x.kind, x.organization_id, x.content, x.sent_event, x.created_at, x.created_at
    from jsonb_to_recordset(?::jsonb) as x(id uuid, kind text, organization_id uuid, content jsonb,
      sent_event jsonb, created_at timestamptz, badge_id uuid)
    ${filter}
    returning 1
  )`;

/** The parameter of `outboxInsertCte`: the mails, each tied to the badge whose write carries it. */
export const outboxRows = (mails: Array<{ mail: OutboxMail; badgeId?: string }>): string =>
  JSON.stringify(
    mails.map(({ mail, badgeId }) => ({
      id: mail.id,
      kind: mail.kind,
      organization_id: mail.organization_id,
      content: mail.content,
      sent_event: mail.sent_event,
      created_at: mail.created_at.toISOString(),
      badge_id: badgeId ?? null,
    })),
  );

const CLAIM = `update mail_outbox m set next_attempt_at = ?::timestamptz
  from (select id from mail_outbox where failed_at is null and next_attempt_at <= ?::timestamptz
        order by next_attempt_at limit ? for update skip locked) d
  where m.id = d.id
  returning m.id, m.kind, m.organization_id, m.content, m.sent_event, m.created_at, m.attempts`;

/** What `CLAIM` returns. */
type ClaimedRow = Pick<
  MailOutboxRow,
  "id" | "kind" | "organization_id" | "content" | "sent_event" | "created_at" | "attempts"
>;

const dueOf = (row: ClaimedRow): DueMail => ({
  id: row.id,
  kind: row.kind,
  organization_id: row.organization_id,
  content: toJson(row.content),
  sent_event: toJson(row.sent_event),
  created_at: row.created_at,
  attempts: row.attempts,
});

/** The outbox port on PostgreSQL (or PGlite). */
/** Writes mails to the outbox through `q` (a transaction, so they exist exactly when the change committed). */
export const enqueueMails = async (q: Queryable, mails: readonly OutboxMail[]): Promise<void> => {
  if (mails.length === 0) return;
  await q.run(`with ${outboxInsertCte("w", "")} select 1`, [outboxRows(mails.map((mail) => ({ mail })))]);
};

export const postgresMailOutbox = (db: Database): MailOutbox => ({
  async enqueue(mail) {
    await enqueueMails(db, [mail]);
  },
  async claimDue(now, limit, leaseMs) {
    const rows = await db.all<ClaimedRow>(CLAIM, [
      new Date(now.getTime() + leaseMs).toISOString(),
      now.toISOString(),
      limit,
    ]);
    return rows.map(dueOf);
  },
  async markSent(id, events) {
    await db.transaction(async (q) => {
      // A second sender whose lease ran out may have sent it too: record the event once.
      const removed = await q.run("delete from mail_outbox where id = ?", [id]);
      if (removed > 0) await appendEvents(q, events);
    });
  },
  async retryAt(id, attempts, at, error) {
    await db.run("update mail_outbox set attempts = ?, next_attempt_at = ?, last_error = ? where id = ?", [
      attempts,
      at.toISOString(),
      error,
      id,
    ]);
  },
  async markFailed(id, attempts, error) {
    await db.run("update mail_outbox set attempts = ?, failed_at = now(), last_error = ? where id = ?", [
      attempts,
      error,
      id,
    ]);
  },
  async counts() {
    const row = await db.one<{
      pending: unknown;
      failed: unknown;
    }>(`select count(*) filter (where failed_at is null) as pending, count(*) filter (where failed_at is not null) as failed
       from mail_outbox`);
    return { pending: toNumber(row?.pending ?? 0), failed: toNumber(row?.failed ?? 0) };
  },
});
