import type { BadgeSort, TemplateSort } from "../../core/badges/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import type { BadgeFilter, BadgeStore, IssueWrites, TemplateFilter, UserRecord } from "../../core/issuing/mod.ts";
import { BADGE_FROM, badgeViewOf, containsPattern, rows, templateFrom, templateViewOf, toDate } from "./badge_rows.ts";
import { groupedCalls } from "./grouped_calls.ts";
import { groupedIssueWrites } from "./grouped_issues.ts";
import type { Database, Em } from "./orm.ts";
import { postgresBadgeTx } from "./postgres_badge_tx.ts";
import { appendEvents } from "./postgres_event_log.ts";

const TEMPLATE_ORDER: Record<TemplateSort, string> = {
  "-created_at": "t.created_at desc, t.id desc",
  created_at: "t.created_at asc, t.id asc",
  name: "lower(t.name) asc, t.id asc",
  "-name": "lower(t.name) desc, t.id desc",
};

const BADGE_ORDER: Record<BadgeSort, string> = {
  "-issued_at": "b.issued_at desc, b.id desc",
  issued_at: "b.issued_at asc, b.id asc",
  "-created_at": "b.created_at desc, b.id desc",
};

interface Where {
  sql: string;
  params: unknown[];
}

const templateWhere = (organizationId: string, f: TemplateFilter): Where => {
  const parts = ["t.organization_id = ?"];
  const params: unknown[] = [organizationId];
  if (f.state) {
    parts.push("t.state = ?");
    params.push(f.state);
  }
  if (f.name) {
    parts.push("lower(t.name) = lower(?)");
    params.push(f.name.trim());
  }
  if (f.query) {
    parts.push("(t.name ilike ? or t.description ilike ?)");
    params.push(containsPattern(f.query), containsPattern(f.query));
  }
  if (f.skills.length > 0) {
    parts.push("t.skills @> ?::jsonb");
    params.push(JSON.stringify(f.skills));
  }
  return { sql: parts.join(" and "), params };
};

const badgeWhere = (organizationId: string, f: BadgeFilter): Where & { needsTemplate: boolean } => {
  const parts = ["b.organization_id = ?"];
  const params: unknown[] = [organizationId];
  if (f.state) {
    parts.push("b.state = ?");
    params.push(f.state);
  }
  if (f.badge_template_id) {
    parts.push("b.badge_template_id = ?");
    params.push(f.badge_template_id);
  }
  if (f.recipient_email) {
    parts.push("b.recipient_email_key = ?");
    params.push(f.recipient_email);
  }
  if (f.query) {
    const p = containsPattern(f.query);
    parts.push(
      "(concat_ws(' ', b.issued_to_first_name, b.issued_to_middle_name, b.issued_to_last_name) ilike ? or b.recipient_email ilike ? or t.name ilike ?)",
    );
    params.push(p, p, p);
  }
  return { sql: parts.join(" and "), params, needsTemplate: f.query !== undefined };
};

const count = async (db: Database, sql: string, params: unknown[]): Promise<number> => {
  const [row] = await rows(db.em(), sql, params);
  return Number(row?.n ?? 0);
};

/**
 * The issuing ports on PostgreSQL (or PGlite). Reads join each badge with its template and
 * issuer; writes go through `transaction`, whose `BadgeTx` uses the transactional EntityManager
 * only (PGlite has one connection).
 */
export const postgresBadgeStore = (db: Database): BadgeStore => {
  // Appends with no other write in their transaction (notifications, recorded after their mail
  // went out) share one write while another runs; each resolves once its events committed. Events
  // of one organization are one statement, atomic on its own, so the organization's counter is not
  // held across a round trip to this process; several organizations take a transaction, so a batch
  // commits whole or not at all and a failed one can be retried call by call.
  const appendAtomically = (events: EventRecord[]): Promise<void> =>
    events.every((e) => e.organization_id === events[0]?.organization_id)
      ? appendEvents(db.em(), events)
      : db.em().transactional((em) => appendEvents(em as Em, events));
  const appendGrouped = groupedCalls<EventRecord[], void>({
    max: 500,
    key: () => "",
    runOne: appendAtomically,
    async runBatch(_key, calls) {
      await appendAtomically(calls.flat());
      return calls.map(() => undefined);
    },
  });
  // Outside a transaction: one statement each (PostgreSQL commits a lone statement atomically),
  // used on their own when a grouped statement fails.
  const single: IssueWrites & { appendEvents(events: EventRecord[]): Promise<void> } = {
    issueLookup: (organizationId, templateId, recipientKey) =>
      postgresBadgeTx(db.em()).issueLookup(organizationId, templateId, recipientKey),
    insertBadge: (badge, recipientKey, exclusive, events, mails) =>
      postgresBadgeTx(db.em()).insertBadge(badge, recipientKey, exclusive, events, mails),
    appendEvents: appendGrouped,
  };
  const grouped = groupedIssueWrites(db, single);
  return {
    transaction: (work) => db.em().transactional((em) => work(postgresBadgeTx(em))),
    // Concurrent issues share their lookup statement and, per organization, their write and commit.
    issueLookup: grouped.issueLookup,
    insertBadge: grouped.insertBadge,

    async listTemplates(organizationId, filter, page) {
      const where = templateWhere(organizationId, filter);
      const [items, total] = await Promise.all([
        rows(
          db.em(),
          `${templateFrom(true)} where ${where.sql} order by ${TEMPLATE_ORDER[filter.sort]} limit ? offset ?`,
          [...where.params, page.per, page.offset],
        ),
        count(db, `select count(*)::int as n from badge_templates t where ${where.sql}`, where.params),
      ]);
      return { items: items.map((r) => templateViewOf(r, Number(r.badges_count))), total };
    },

    async getTemplate(organizationId, id) {
      const [row] = await rows(
        db.em(),
        `${templateFrom(true)} where t.id = ?${organizationId === null ? "" : " and t.organization_id = ?"}`,
        organizationId === null ? [id] : [id, organizationId],
      );
      return row ? templateViewOf(row, Number(row.badges_count)) : null;
    },

    async listBadges(organizationId, filter, page) {
      const where = badgeWhere(organizationId, filter);
      const from = where.needsTemplate ? "badges b join badge_templates t on t.id = b.badge_template_id" : "badges b";
      const [items, total] = await Promise.all([
        rows(db.em(), `${BADGE_FROM} where ${where.sql} order by ${BADGE_ORDER[filter.sort]} limit ? offset ?`, [
          ...where.params,
          page.per,
          page.offset,
        ]),
        count(db, `select count(*)::int as n from ${from} where ${where.sql}`, where.params),
      ]);
      return { items: items.map(badgeViewOf), total };
    },

    async getBadge(organizationId, id) {
      const [row] = await rows(
        db.em(),
        `${BADGE_FROM} where b.id = ?${organizationId === null ? "" : " and b.organization_id = ?"}`,
        organizationId === null ? [id] : [id, organizationId],
      );
      return row ? badgeViewOf(row) : null;
    },

    async getUser(id) {
      const found = await rows(
        db.em(),
        `select u.id, u.first_name, u.last_name, u.created_at, u.updated_at, e.email, e.confirmed
         from users u join user_emails e on e.user_id = u.id where u.id = ? order by e.position`,
        [id],
      );
      const first = found[0];
      if (!first) return null;
      return {
        id: first.id,
        first_name: first.first_name,
        last_name: first.last_name,
        emails: found.map((r) => ({ email: r.email as string, confirmed: r.confirmed as boolean })),
        created_at: toDate(first.created_at),
        updated_at: toDate(first.updated_at),
      } as UserRecord;
    },

    // Events of one organization join that organization's issue batches (one commit for both);
    // others go through the grouped appends.
    appendEvents: (events) => {
      const organizationId = events[0]?.organization_id;
      if (organizationId !== undefined && events.every((e) => e.organization_id === organizationId))
        return grouped.appendEvents(organizationId, events);
      return appendGrouped(events);
    },
  };
};
