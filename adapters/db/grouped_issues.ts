import type { EventRecord } from "../../core/events/mod.ts";
import type { IssueLookup, IssueWrites } from "../../core/issuing/mod.ts";
import type { OutboxMail } from "../../core/mail/mod.ts";
import { batcher } from "../batch/mod.ts";
import {
  BADGE_INSERT_COLUMNS,
  LIVE,
  ORGANIZATION_SELECT,
  organizationOf,
  TEMPLATE_SELECT,
  type TemplateJoinRow,
  templateOf,
} from "./badge_rows.ts";
import { appendEventsCtes, EVENTS_RECORDSET, eventsJson } from "./postgres_event_log.ts";
import { outboxInsertCte, outboxRows } from "./postgres_mail_outbox.ts";
import type { UserEmailRow } from "./rows.ts";
import { type Queryable, statement } from "./sql.ts";

/** Calls per batch: one statement carries them all as a single jsonb parameter. */
const MAX_BATCH = 200;

/**
 * The lookups of many issues in one statement: one row per request (`i`), with the template and
 * issuer when the template belongs to the organization, the account owning the address, whether a
 * live badge of that template already went to it, and the subject identifiers the recipient has
 * (its account's, its address's earliest badge's) with a new one drawn for a recipient that has none.
 */
const BATCH_LOOKUP = statement(
  "laurel_issue_lookup",
  `select r.i, ${TEMPLATE_SELECT}, ${ORGANIZATION_SELECT},
    ue.earner, h.hit is not null as has_live,
    ue.account_subject, sa.address_subject, gen_random_uuid() as fresh_subject
  from jsonb_to_recordset(?::jsonb) as r(i int, template_id uuid, org_id uuid, k text)
  left join (badge_templates t join organizations o on o.id = t.organization_id)
    on t.id = r.template_id and t.organization_id = r.org_id
  left join lateral (select json_build_object('user_id', u.user_id, 'confirmed', u.confirmed) as earner,
      a.subject_id as account_subject
    from user_emails u join users a on a.id = u.user_id where u.email_key = r.k limit 1) ue on true
  left join lateral (select s.subject_id as address_subject from badges s where s.recipient_email_key = r.k
    order by s.created_at, s.id limit 1) sa on true
  left join lateral (select 1 as hit
    from (select badge_template_id, state from badges where recipient_email_key = r.k offset 0) x
    where x.badge_template_id = t.id and x.state in (${LIVE}) limit 1) h on true`,
);

/**
 * The badges of many issues of one organization with their events and outbox mails, and events
 * appended on their own, in one statement that commits on its own. A badge refused by the duplicate
 * rule (the partial unique index, also against another badge of the same batch) is skipped with
 * its events, and answered `duplicate`; the events written are appended as every event is
 * (`appendEventsCtes`). Any other failure (a template deleted meanwhile: foreign key) fails the
 * whole statement, and each issue is then written on its own.
 */
const BATCH_INSERT = statement(
  "laurel_issue_write",
  `with b as (
    insert into badges (${BADGE_INSERT_COLUMNS.join(", ")})
    select ${BADGE_INSERT_COLUMNS.join(", ")} from jsonb_populate_recordset(null::badges, ?::jsonb)
    on conflict (badge_template_id, recipient_email_key) where exclusive and state in (${LIVE}) do nothing
    returning id
  ), e as (
    select ev.id, ev.event_type, ev.occurred_at, ev.detail from ${EVENTS_RECORDSET}
    left join b on b.id = ev.badge_id
    where ev.badge_id is null or b.id is not null
  ), ${appendEventsCtes("e")}, ${outboxInsertCte("m", "join b on b.id = x.badge_id")}
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

/**
 * A row of `BATCH_LOOKUP`: the request's index, the account owning the address and whether a live
 * badge went to it; the template and issuer, or (no such template in the organization) nulls.
 */
type LookupRow = {
  i: number;
  earner: Pick<UserEmailRow, "user_id" | "confirmed"> | null;
  has_live: boolean;
  account_subject: string | null;
  address_subject: string | null;
  fresh_subject: string;
} & (TemplateJoinRow | { t__id: null });

/** The lookups of `calls` in one statement (`BATCH_LOOKUP`), one answer per call in order. */
export const lookupIssues = async (q: Queryable, calls: readonly LookupCall[]): Promise<IssueLookup[]> => {
  const found = await q.prepared<LookupRow>(BATCH_LOOKUP, [
    JSON.stringify(
      calls.map((c, i) => ({ i, template_id: c.templateId, org_id: c.organizationId, k: c.recipientKey })),
    ),
  ]);
  const answers: IssueLookup[] = new Array(calls.length);
  for (const row of found) {
    const earner = row.earner;
    const subjects = { account: row.account_subject, address: row.address_subject, fresh: row.fresh_subject };
    answers[row.i] =
      row.t__id === null
        ? { template: null, issuer: null, earner: null, hasLiveBadge: false, subjects }
        : {
            template: templateOf(row),
            issuer: organizationOf(row),
            earner: earner ? { user_id: earner.user_id, email_confirmed: earner.confirmed } : null,
            hasLiveBadge: row.has_live === true,
            subjects,
          };
  }
  if (answers.some((a) => a === undefined)) throw new Error("grouped lookup: a request got no row");
  return answers;
};

/**
 * The writes of `calls`, all of `organizationId`, in one statement (`BATCH_INSERT`): `duplicate`
 * for a badge the duplicate rule skipped. A failure of any other kind fails them all.
 */
export const writeIssues = async (
  q: Queryable,
  organizationId: string,
  calls: readonly WriteCall[],
): Promise<InsertAnswer[]> => {
  const events: EventRecord[] = [];
  const badgeOf = new Map<string, string>();
  const badges: object[] = [];
  const mails: Array<{ mail: OutboxMail; badgeId: string }> = [];
  for (const c of calls) {
    if (c.badge) badges.push({ ...c.badge, recipient_email_key: c.recipientKey, exclusive: c.exclusive });
    for (const mail of c.mails) if (c.badge) mails.push({ mail, badgeId: c.badge.id });
    for (const e of c.events) {
      if (e.organization_id !== organizationId) throw new Error("grouped write: an event of another organization");
      events.push(e);
      if (c.badge) badgeOf.set(e.id, c.badge.id);
    }
  }
  const inserted = await q.prepared<{ id: string }>(BATCH_INSERT, [
    JSON.stringify(badges),
    eventsJson(events, (e) => badgeOf.get(e.id) ?? null),
    organizationId,
    outboxRows(mails),
  ]);
  const ids = new Set(inserted.map((r) => r.id));
  return calls.map((c) => (c.badge === null || ids.has(c.badge.id) ? "inserted" : "duplicate"));
};

/** Issuing's writes, grouped, and appends of one organization's events joining the same batches. */
export interface GroupedIssueWrites extends IssueWrites {
  /** Events of one organization, committed on their own (in a batch); resolves once committed. */
  appendEvents(organizationId: string, events: EventRecord[]): Promise<void>;
}

/**
 * Issuing outside a transaction, grouped (`batcher`): concurrent issues share one lookup
 * statement, and concurrent issues of one organization one write statement and one commit. Each
 * request still gets exactly its own answer, only once its batch committed; `single` is the
 * one-by-one path used when a batch fails. On a transaction's queryable (an import's chunk) the
 * statements join that transaction and commit with it.
 */
export const groupedIssueWrites = (
  db: Queryable,
  single: IssueWrites & { appendEvents(events: EventRecord[]): Promise<void> },
): GroupedIssueWrites => {
  const lookup = batcher<LookupCall, IssueLookup>((calls) => lookupIssues(db, calls), {
    maxItems: MAX_BATCH,
    maxInFlight: 1,
    isolateFailures: () => true,
    runOne: (c) => single.issueLookup(c.organizationId, c.templateId, c.recipientKey),
  });

  const write = batcher<WriteCall, InsertAnswer>((calls, organizationId) => writeIssues(db, organizationId, calls), {
    maxItems: MAX_BATCH,
    maxInFlight: 1,
    key: (c) => c.organizationId,
    isolateFailures: () => true,
    runOne: async (c) => {
      if (c.badge) return single.insertBadge(c.badge, c.recipientKey, c.exclusive, c.events, c.mails);
      await single.appendEvents(c.events);
      return "inserted";
    },
  });

  return {
    grantsFor: single.grantsFor,
    inTransaction: single.inTransaction,
    issueLookup: (organizationId, templateId, recipientKey) => lookup({ organizationId, templateId, recipientKey }),
    insertBadge: (badge, recipientKey, exclusive, events, mails = []) =>
      write({ organizationId: badge.organization_id, badge, recipientKey, exclusive, events, mails }),
    appendEvents: async (organizationId, events) => {
      if (events.length === 0) return;
      await write({ organizationId, badge: null, recipientKey: "", exclusive: false, events, mails: [] });
    },
  };
};
