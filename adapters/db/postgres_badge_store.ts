import type { BADGE_LIST, BadgeListQuery, TEMPLATE_LIST } from "../../core/badges/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import type { BadgeStore, IssueWrites, UserRecord } from "../../core/issuing/mod.ts";
import { type FilterValue, normalizedFilterKey } from "../../core/listing/mod.ts";
import { batcher } from "../batch/mod.ts";
import { type BoundedCache, boundedCache } from "../cache/mod.ts";
import {
  BADGE_FROM,
  type BadgeJoinRow,
  badgeViewOf,
  type TemplateJoinRow,
  templateFrom,
  templateViewOf,
} from "./badge_rows.ts";
import type { Database } from "./database.ts";
import { groupedIssueWrites } from "./grouped_issues.ts";
import { columnCondition, type ListTable, listOrder, listWhere } from "./list_sql.ts";
import { postgresBadgeTx } from "./postgres_badge_tx.ts";
import { appendEvents } from "./postgres_event_log.ts";
import type { UserEmailRow, UserRow } from "./rows.ts";

/** The template aliased `alias` has any of the tags asked for, ignoring case. */
const anyReportingTag = (alias: string, value: FilterValue, params: unknown[]): string => {
  params.push(JSON.stringify(value.kind === "values" ? value.values.map((v) => v.toLowerCase()) : []));
  return `exists (select 1 from jsonb_array_elements_text(${alias}.reporting_tags) tag
    where lower(tag) in (select jsonb_array_elements_text(?::jsonb)))`;
};

const TEMPLATES: ListTable<keyof typeof TEMPLATE_LIST.filters, (typeof TEMPLATE_LIST.sorts)[number]> = {
  filters: {
    query: (value, params) => {
      const name = columnCondition("t.name", value, params);
      return `(${name} or ${columnCondition("t.description", value, params)})`;
    },
    name: (value, params) => {
      params.push(...(value.kind === "values" ? value.values : []));
      return "lower(t.name) = lower(?)";
    },
    state: "t.state",
    public: "t.public",
    // The template has every listed skill (jsonb containment, the GIN index).
    skills: (value, params) => {
      params.push(JSON.stringify(value.kind === "values" ? value.values : []));
      return "t.skills @> ?::jsonb";
    },
    reporting_tags: (value, params) => anyReportingTag("t", value, params),
    created_at: "t.created_at",
    updated_at: "t.updated_at",
  },
  sorts: {
    name: "lower(t.name)",
    created_at: "t.created_at",
    updated_at: "t.updated_at",
    badges_count: "badges_count",
  },
  id: "t.id",
};

const BADGES: ListTable<keyof typeof BADGE_LIST.filters, (typeof BADGE_LIST.sorts)[number]> = {
  filters: {
    state: "b.state",
    badge_template_id: "b.badge_template_id",
    recipient_email: "b.recipient_email_key",
    recipient_email_all: "b.recipient_email_key",
    // The recipient's name or e-mail, or the template's name; quoted, any of them whole.
    query: (value, params) =>
      `(${[
        "concat_ws(' ', b.issued_to_first_name, b.issued_to_middle_name, b.issued_to_last_name)",
        "b.recipient_email",
        "t.name",
      ]
        .map((c) => columnCondition(c, value, params))
        .join(" or ")})`,
    public: "b.public",
    issuer_earner_id: "b.issuer_earner_id",
    issued_at: "b.issued_at",
    updated_at: "b.updated_at",
    // A subquery over the organization's templates, so the count needs no join.
    "badge_templates[reporting_tags]": (value, params) => {
      const any = anyReportingTag("rt", value, params);
      return `b.badge_template_id in (select rt.id from badge_templates rt where rt.organization_id = b.organization_id and ${any})`;
    },
    on_behalf: "(b.issued_by_organization_id is not null)",
    organization_id: "b.organization_id",
    issued_by_organization_id: "b.issued_by_organization_id",
  },
  sorts: {
    issued_at: "b.issued_at",
    created_at: "b.created_at",
    updated_at: "b.updated_at",
    issued_to_last_name: "b.issued_to_last_name",
  },
  id: "b.id",
};

/**
 * The organization's badges: those it owns and, once it issued for another organization (an
 * authorized issuer), those it issued on their owners' behalf. The wider condition is used only
 * then, so the lists of every other organization keep their plain index order.
 */
const ownHead = (organizationId: string, issuedForOthers: boolean) =>
  issuedForOthers
    ? { sql: "(b.organization_id = ? or b.issued_by_organization_id = ?)", params: [organizationId, organizationId] }
    : { sql: "b.organization_id = ?", params: [organizationId] };

/** Whether the organization ever issued a badge on another's behalf (one probe of a partial index). */
const issuedForOthers = async (db: Database, organizationId: string): Promise<boolean> =>
  (await db.one<{ id: string }>("select b.id from badges b where b.issued_by_organization_id = ? limit 1", [
    organizationId,
  ])) !== undefined;

/** The badge list's conditions; `needsTemplate`: the count must join the templates too. */
export const badgeWhere = (organizationId: string, query: Pick<BadgeListQuery, "filters">, forOthers = false) => {
  const head = ownHead(organizationId, forOthers);
  return {
    ...listWhere(BADGES, query, [head.sql], head.params),
    needsTemplate: query.filters.query !== undefined,
  };
};

const count = async (db: Database, sql: string, params: unknown[]): Promise<number> => {
  const [row] = await db.all<{ n: number }>(sql, params);
  return Number(row?.n ?? 0);
};

/** A count and the organization's change sequence (its events counter) it was taken at. */
interface CachedCount {
  seq: number;
  n: number;
}

/** The organization's change sequence: every change to its badges records an event in its commit. */
const changeSeq = (organizationId: string) => ({
  sql: "coalesce((select total from event_counts where organization_id = ?), 0)",
  params: [organizationId],
});

/**
 * `total_count` of a filtered list, exact and counted at most once per change: the count is cached
 * per (organization, normalized filter) with the change sequence read in the same statement, so
 * the same snapshot. A later page reads the sequence alone (one key lookup) and uses the cached
 * count while it has not moved; any change to the organization moves it and the next page counts.
 */
const cachedCount = async (
  db: Database,
  cache: BoundedCache<CachedCount>,
  key: string,
  organizationId: string,
  countSql: string,
  params: unknown[],
): Promise<number> => {
  const seq = changeSeq(organizationId);
  const cached = cache.get(key);
  if (cached) {
    const [row] = await db.all<{ seq: string | number }>(`select ${seq.sql} as seq`, seq.params);
    if (Number(row?.seq ?? 0) === cached.seq) return cached.n;
  }
  const [row] = await db.all<{ seq: string | number; n: string | number }>(
    `select ${seq.sql} as seq, (${countSql}) as n`,
    [...seq.params, ...params],
  );
  const fresh = { seq: Number(row?.seq ?? 0), n: Number(row?.n ?? 0) };
  cache.set(key, fresh);
  return fresh.n;
};

/**
 * The issuing ports on PostgreSQL (or PGlite). Reads join each badge with its template and
 * issuer; writes go through `transaction`, whose `BadgeTx` runs every statement in it (PGlite has
 * one connection).
 */
export const postgresBadgeStore = (db: Database): BadgeStore => {
  // Filtered badge counts by (organization, filter); small entries, so many fit.
  const counts = boundedCache<CachedCount>({ maxEntries: 20_000, maxBytes: 8 * 1024 * 1024, ttlMs: 0 });
  // Appends with no other write in their transaction (notifications, recorded after their mail
  // went out) share one write while another runs; each resolves once its events committed. Events
  // of one organization are one statement, atomic on its own, so the organization's counter is not
  // held across a round trip to this process; several organizations take a transaction, so a batch
  // commits whole or not at all and a failed one can be retried call by call.
  const appendAtomically = (events: EventRecord[]): Promise<void> =>
    events.every((e) => e.organization_id === events[0]?.organization_id)
      ? appendEvents(db, events)
      : db.transaction((q) => appendEvents(q, events));
  const appendGrouped = batcher<EventRecord[], void>(
    async (calls) => {
      await appendAtomically(calls.flat());
      return calls.map(() => undefined);
    },
    { maxItems: 500, maxInFlight: 1, isolateFailures: () => true },
  );
  // Outside a transaction: one statement each (PostgreSQL commits a lone statement atomically),
  // used on their own when a grouped statement fails.
  const single: IssueWrites & { appendEvents(events: EventRecord[]): Promise<void> } = {
    issueLookup: (organizationId, templateId, recipientKey) =>
      postgresBadgeTx(db).issueLookup(organizationId, templateId, recipientKey),
    insertBadge: (badge, recipientKey, exclusive, events, mails) =>
      postgresBadgeTx(db).insertBadge(badge, recipientKey, exclusive, events, mails),
    grantsFor: (issuerId, templateId) => postgresBadgeTx(db).grantsFor(issuerId, templateId),
    // An issue on another organization's behalf: its check and write in a transaction of their own.
    inTransaction: (work) => db.transaction((tx) => work(postgresBadgeTx(tx))),
    appendEvents: appendGrouped,
  };
  const grouped = groupedIssueWrites(db, single);
  return {
    transaction: (work) => db.transaction((tx) => work(postgresBadgeTx(tx))),
    // Concurrent issues share their lookup statement and, per organization, their write and commit.
    issueLookup: grouped.issueLookup,
    insertBadge: grouped.insertBadge,
    grantsFor: grouped.grantsFor,
    inTransaction: grouped.inTransaction,

    async listTemplates(organizationId, query, page) {
      const where = listWhere(TEMPLATES, query, ["t.organization_id = ?"], [organizationId]);
      const [items, total] = await Promise.all([
        db.all<TemplateJoinRow & { badges_count: number }>(
          `${templateFrom(true)} where ${where.sql} order by ${listOrder(TEMPLATES, query.sort)} limit ? offset ?`,
          [...where.params, page.per, page.offset],
        ),
        count(db, `select count(*)::int as n from badge_templates t where ${where.sql}`, where.params),
      ]);
      return { items: items.map((r) => templateViewOf(r, Number(r.badges_count))), total };
    },

    async getTemplate(organizationId, id) {
      const [row] = await db.all<TemplateJoinRow & { badges_count: number }>(
        `${templateFrom(true)} where t.id = ?${organizationId === null ? "" : " and t.organization_id = ?"}`,
        organizationId === null ? [id] : [id, organizationId],
      );
      return row ? templateViewOf(row, Number(row.badges_count)) : null;
    },

    async listBadges(organizationId, query, page) {
      const where = badgeWhere(organizationId, query, await issuedForOthers(db, organizationId));
      const from = where.needsTemplate ? "badges b join badge_templates t on t.id = b.badge_template_id" : "badges b";
      const order = listOrder(BADGES, query.sort);
      // The page's ids first, over the badges' index alone; only those 50 rows are then joined
      // with their template and issuer (joined before the offset, page 100 joined 5,000 rows).
      const [items, total] = await Promise.all([
        db.all<BadgeJoinRow>(
          `${BADGE_FROM} join (select b.id from ${from} where ${where.sql} order by ${order} limit ? offset ?) p on p.id = b.id
           order by ${order}`,
          [...where.params, page.per, page.offset],
        ),
        cachedCount(
          db,
          counts,
          `${organizationId}\n${normalizedFilterKey(query.filters)}`,
          organizationId,
          `select count(*)::int from ${from} where ${where.sql}`,
          where.params,
        ),
      ]);
      return { items: items.map(badgeViewOf), total };
    },

    // A seek on (organization_id, id) past the cursor: constant cost per page at any depth.
    async badgeFeed(organizationId, query, afterId, limit) {
      const own = ownHead(organizationId, await issuedForOthers(db, organizationId));
      const head = afterId === null ? [own.sql] : [own.sql, "b.id > ?"];
      const where = listWhere(BADGES, query, head, afterId === null ? own.params : [...own.params, afterId]);
      const found = await db.all<BadgeJoinRow>(`${BADGE_FROM} where ${where.sql} order by b.id asc limit ?`, [
        ...where.params,
        limit,
      ]);
      return found.map(badgeViewOf);
    },

    async getBadge(organizationId, id) {
      // An organization reads its own badges and those it issued on another's behalf.
      const [row] = await db.all<BadgeJoinRow>(
        `${BADGE_FROM} where b.id = ?${organizationId === null ? "" : " and (b.organization_id = ? or b.issued_by_organization_id = ?)"}`,
        organizationId === null ? [id] : [id, organizationId, organizationId],
      );
      return row ? badgeViewOf(row) : null;
    },

    async getUser(id) {
      const found = await db.all<
        Pick<UserRow, "id" | "first_name" | "last_name" | "created_at" | "updated_at"> &
          Pick<UserEmailRow, "email" | "confirmed">
      >(
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
        emails: found.map((r) => ({ email: r.email, confirmed: r.confirmed })),
        created_at: first.created_at,
        updated_at: first.updated_at,
      } satisfies UserRecord;
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
