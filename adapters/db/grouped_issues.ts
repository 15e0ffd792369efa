import { LIVE_BADGE_STATES } from "../../core/badges/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import type { IssueLookup, IssueWrites } from "../../core/issuing/mod.ts";
import type { OutboxMail } from "../../core/mail/mod.ts";
import {
  BADGE_INSERT_COLUMNS,
  ORGANIZATION_SELECT,
  organizationOf,
  TEMPLATE_SELECT,
  templateOf,
} from "./badge_rows.ts";
import { groupedCalls } from "./grouped_calls.ts";
import type { Database } from "./orm.ts";
import { EVENTS_CHANNEL } from "./postgres_event_log.ts";
import { outboxInsertCte, outboxRows } from "./postgres_mail_outbox.ts";
import { numbered, preparedAll } from "./sql.ts";

const LIVE = LIVE_BADGE_STATES.map((s) => `'${s}'`).join(", ");

/** Calls per batch: one statement carries them all as a single jsonb parameter. */
const MAX_BATCH = 200;

/**
 * The lookups of many issues in one statement: one row per request (`i`), with the template and
 * issuer when the template belongs to the organization, the account owning the address, and
 * whether a live badge of that template already went to it.
 */
const BATCH_LOOKUP = numbered(
  "laurel_issue_lookup",
  `select r.i, ${TEMPLATE_SELECT}, ${ORGANIZATION_SELECT},
    ue.earner, h.hit is not null as has_live
  from jsonb_to_recordset(?::jsonb) as r(i int, template_id uuid, org_id uuid, k text)
  left join (badge_templates t join organizations o on o.id = t.organization_id)
    on t.id = r.template_id and t.organization_id = r.org_id
  left join lateral (select json_build_object('user_id', u.user_id, 'confirmed', u.confirmed) as earner
    from user_emails u where u.email_key = r.k limit 1) ue on true
  left join lateral (select 1 as hit
    from (select badge_template_id, state from badges where recipient_email_key = r.k offset 0) x
    where x.badge_template_id = t.id and x.state in (${LIVE}) limit 1) h on true`,
);

/**
 * The badges of many issues of one organization with their events and outbox mails, and events
 * appended on their own, in one statement that commits on its own. A badge refused by the duplicate
 * rule (the partial unique index, also against another badge of the same batch) is skipped with
 * its events, and answered `duplicate`. The counter of
 * the organization is bumped by the number of events written, and their `seq` values follow it
 * (dense, in commit order: the counter's row lock is held to commit, as in `appendEvents`); it is
 * the last lock the statement takes. Any other failure (a template deleted meanwhile: foreign key)
 * fails the whole statement, and each issue is then written on its own.
 */
const BATCH_INSERT = numbered(
  "laurel_issue_write",
  `with b as (
    insert into badges (${BADGE_INSERT_COLUMNS.join(", ")})
    select ${BADGE_INSERT_COLUMNS.join(", ")} from jsonb_populate_recordset(null::badges, ?::jsonb)
    on conflict (badge_template_id, recipient_email_key) where exclusive and state in (${LIVE}) do nothing
    returning id
  ), e as (
    select ev.id, ev.event_type, ev.occurred_at, ev.detail, row_number() over (order by ev.id) as ord
    from jsonb_to_recordset(?::jsonb) as ev(id uuid, badge_id uuid, event_type text, occurred_at timestamptz, detail jsonb)
    left join b on b.id = ev.badge_id
    where ev.badge_id is null or b.id is not null
  ), k as (select count(*) as n from e),
  c as (
    insert into event_counts (organization_id, total) select ?::uuid, k.n from k where k.n > 0
    on conflict (organization_id) do update set total = event_counts.total + excluded.total
    returning organization_id, total
  ), n as (select pg_notify('${EVENTS_CHANNEL}', c.organization_id::text) as notified from c),
  w as (
    insert into events (id, organization_id, event_type, occurred_at, detail, seq)
    select e.id, ?::uuid, e.event_type, e.occurred_at, e.detail, c.total - k.n + e.ord from e, c, k, n
  ), ${outboxInsertCte("m", "join b on b.id = x.badge_id")}
  select id from b`,
);

interface LookupCall {
  organizationId: string;
  templateId: string;
  recipientKey: string;
}

/** A badge with its events, or (`badge` null) events appended on their own. */
interface WriteCall {
  organizationId: string;
  badge: Parameters<IssueWrites["insertBadge"]>[0] | null;
  recipientKey: string;
  exclusive: boolean;
  events: EventRecord[];
  mails: OutboxMail[];
}

type InsertAnswer = Awaited<ReturnType<IssueWrites["insertBadge"]>>;

/** Issuing's writes, grouped, and appends of one organization's events joining the same batches. */
export interface GroupedIssueWrites extends IssueWrites {
  /** Events of one organization, committed on their own (in a batch); resolves once committed. */
  appendEvents(organizationId: string, events: EventRecord[]): Promise<void>;
}

/**
 * Issuing outside a transaction, grouped (`groupedCalls`): concurrent issues share one lookup
 * statement, and concurrent issues of one organization one write statement and one commit. Each
 * request still gets exactly its own answer, only once its batch committed; `single` is the
 * one-by-one path used when a batch fails.
 */
export const groupedIssueWrites = (
  db: Database,
  single: IssueWrites & { appendEvents(events: EventRecord[]): Promise<void> },
): GroupedIssueWrites => {
  const lookup = groupedCalls<LookupCall, IssueLookup>({
    max: MAX_BATCH,
    key: () => "",
    runOne: (c) => single.issueLookup(c.organizationId, c.templateId, c.recipientKey),
    async runBatch(_key, calls) {
      const found = await preparedAll<Record<string, unknown>>(db.em(), db.kind, BATCH_LOOKUP, [
        JSON.stringify(
          calls.map((c, i) => ({ i, template_id: c.templateId, org_id: c.organizationId, k: c.recipientKey })),
        ),
      ]);
      const answers: IssueLookup[] = new Array(calls.length);
      for (const row of found) {
        const earner = row.earner as { user_id: string; confirmed: boolean } | null;
        answers[Number(row.i)] =
          row.t__id === null || row.t__id === undefined
            ? { template: null, issuer: null, earner: null, hasLiveBadge: false }
            : {
                template: templateOf(row),
                issuer: organizationOf(row),
                earner: earner ? { user_id: earner.user_id, email_confirmed: earner.confirmed } : null,
                hasLiveBadge: row.has_live === true,
              };
      }
      if (answers.some((a) => a === undefined)) throw new Error("grouped lookup: a request got no row");
      return answers;
    },
  });

  const write = groupedCalls<WriteCall, InsertAnswer>({
    max: MAX_BATCH,
    key: (c) => c.organizationId,
    runOne: async (c) => {
      if (c.badge) return single.insertBadge(c.badge, c.recipientKey, c.exclusive, c.events, c.mails);
      await single.appendEvents(c.events);
      return "inserted";
    },
    async runBatch(organizationId, calls) {
      const events: object[] = [];
      const badges: object[] = [];
      const mails: Array<{ mail: OutboxMail; badgeId: string }> = [];
      for (const c of calls) {
        if (c.badge) badges.push({ ...c.badge, recipient_email_key: c.recipientKey, exclusive: c.exclusive });
        for (const mail of c.mails) if (c.badge) mails.push({ mail, badgeId: c.badge.id });
        for (const e of c.events) {
          if (e.organization_id !== organizationId) throw new Error("grouped write: an event of another organization");
          events.push({
            id: e.id,
            badge_id: c.badge ? c.badge.id : null,
            event_type: e.event_type,
            occurred_at: e.occurred_at,
            detail: e.detail,
          });
        }
      }
      const inserted = await preparedAll<{ id: string }>(db.em(), db.kind, BATCH_INSERT, [
        JSON.stringify(badges),
        JSON.stringify(events),
        organizationId,
        organizationId,
        outboxRows(mails),
      ]);
      const ids = new Set(inserted.map((r) => r.id));
      return calls.map((c) => (c.badge === null || ids.has(c.badge.id) ? "inserted" : "duplicate"));
    },
  });

  return {
    issueLookup: (organizationId, templateId, recipientKey) => lookup({ organizationId, templateId, recipientKey }),
    insertBadge: (badge, recipientKey, exclusive, events, mails = []) =>
      write({ organizationId: badge.organization_id, badge, recipientKey, exclusive, events, mails }),
    appendEvents: async (organizationId, events) => {
      if (events.length === 0) return;
      await write({ organizationId, badge: null, recipientKey: "", exclusive: false, events, mails: [] });
    },
  };
};
