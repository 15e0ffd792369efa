import type {
  ClaimedDelivery,
  DeliveryAdminStore,
  DeliveryClaim,
  DeliveryEvent,
  DeliveryProgress,
  DeliveryStore,
  DeliveryTargets,
  DueDelivery,
  EventTypeSelection,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookSettingsRecord,
  WebhookSettingsStore,
} from "../../core/webhooks/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import type { WebhookAttemptRow, WebhookDeliveryRow } from "./rows.ts";
import { arrayLiteral, placeholders, toDate, toDateOrNull, toJson, toNumber } from "./sql.ts";

/** What `DELIVERY_COLUMNS` selects. */
type DeliveryRow = Omit<WebhookDeliveryRow, "lease_until" | "due_at">;

const DELIVERY_COLUMNS =
  "id, event_id, organization_id, event_type, occurred_at, status, attempts_count, first_attempt_at, last_attempt_at, next_attempt_at, succeeded_at, created_at, claim_token";

const deliveryRecord = (r: DeliveryRow): WebhookDeliveryRecord => ({
  id: r.id,
  event_id: r.event_id,
  organization_id: r.organization_id,
  event_type: r.event_type,
  occurred_at: toDate(r.occurred_at),
  created_at: toDate(r.created_at),
  progress: {
    status: r.status,
    attemptsCount: toNumber(r.attempts_count),
    firstAttemptAt: toDateOrNull(r.first_attempt_at),
    lastAttemptAt: toDateOrNull(r.last_attempt_at),
    nextAttemptAt: toDateOrNull(r.next_attempt_at),
    succeededAt: toDateOrNull(r.succeeded_at),
  },
});

const attemptRecord = (r: WebhookAttemptRow): WebhookAttemptRecord => ({
  ...r,
  attempt_number: toNumber(r.attempt_number),
  duration_ms: toNumber(r.duration_ms),
  status_code: r.status_code === null ? null : toNumber(r.status_code),
  started_at: toDate(r.started_at),
});

/** `due` in SQL: pending and its time has come, or held by a worker whose lease ran out. */
/**
 * The bounds of a batch's times, for `<time> between ? and ?`: from its earliest to its latest, a
 * millisecond either side (a message carries its event's time truncated to the millisecond).
 * Events and deliveries are partitioned by week of that time, and PostgreSQL reads only the weeks
 * between the bounds: a look-up by id alone probed every week kept, a cost growing with the
 * installation's age. A time that is not a date (never from the relay) bounds nothing.
 */
const weeksOf = (times: readonly Date[]): [Date | string, Date | string] => {
  const ms = times.map((t) => t.getTime());
  if (ms.length === 0 || ms.some(Number.isNaN)) return ["-infinity", "infinity"];
  return [new Date(Math.min(...ms) - 1), new Date(Math.max(...ms) + 1)];
};

const DUE = "((d.status = 'pending' and d.next_attempt_at <= ?) or (d.status = 'delivering' and d.lease_until <= ?))";

/**
 * The batched writes below pass a whole batch as ONE json parameter, unpacked by
 * `json_to_recordset`: one `JSON.stringify` on the client and one JSON parse in PostgreSQL, instead
 * of binding (and converting) thousands of parameters one by one.
 */
const ATTEMPT_FIELDS =
  "a_id uuid, attempt_number int, started_at timestamptz, duration_ms int, status_code int, error text, response_excerpt text, outcome text";

const attemptFields = (a: WebhookAttemptRecord) => ({
  a_id: a.id,
  attempt_number: a.attempt_number,
  started_at: a.started_at,
  duration_ms: a.duration_ms,
  status_code: a.status_code,
  error: a.error,
  response_excerpt: a.response_excerpt,
  outcome: a.outcome,
});

const PROGRESS_FIELDS =
  "status text, attempts_count int, first_attempt_at timestamptz, last_attempt_at timestamptz, next_attempt_at timestamptz, succeeded_at timestamptz";

const progressFields = (p: DeliveryProgress) => ({
  status: p.status,
  attempts_count: p.attemptsCount,
  first_attempt_at: p.firstAttemptAt,
  last_attempt_at: p.lastAttemptAt,
  next_attempt_at: p.nextAttemptAt,
  succeeded_at: p.succeededAt,
});

export const postgresWebhookSettingsStore = (db: Database): WebhookSettingsStore => ({
  async get(organizationId) {
    const rows = await db.all<WebhookSettingsRecord>(
      `select organization_id, webhook_url, event_types, secret_sealed, previous_secret_sealed,
              previous_secret_expires_at, updated_at
       from webhook_settings where organization_id = ?::uuid`,
      [organizationId],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      ...r,
      event_types: eventTypesOf(r.event_types),
      previous_secret_expires_at: toDateOrNull(r.previous_secret_expires_at),
      updated_at: toDate(r.updated_at),
    };
  },
  save: (r, audit) =>
    db.transaction(async (q) => {
      await q.run(
        `insert into webhook_settings (organization_id, webhook_url, event_types, secret_sealed, previous_secret_sealed,
         previous_secret_expires_at, updated_at)
       values (?::uuid, ?, ?::jsonb, ?, ?, ?, ?)
       on conflict (organization_id) do update set webhook_url = excluded.webhook_url, event_types = excluded.event_types,
         secret_sealed = excluded.secret_sealed, previous_secret_sealed = excluded.previous_secret_sealed,
         previous_secret_expires_at = excluded.previous_secret_expires_at, updated_at = excluded.updated_at`,
        [
          r.organization_id,
          r.webhook_url,
          JSON.stringify(r.event_types),
          r.secret_sealed,
          r.previous_secret_sealed,
          r.previous_secret_expires_at,
          r.updated_at,
        ],
      );
      await appendAudit(q, [audit]);
    }),
});

/** Settings and the data-services condition of a delivery in one round trip. */
export const postgresDeliveryTargets = (db: Database): DeliveryTargets => ({
  async target(organizationId) {
    const rows = await db.all<{
      webhook_url: string | null;
      event_types: unknown;
      secret_sealed: string | null;
      previous_secret_sealed: string | null;
      previous_secret_expires_at: Date | null;
      data_services: boolean;
    }>(
      `select s.webhook_url, s.event_types, s.secret_sealed, s.previous_secret_sealed, s.previous_secret_expires_at,
         exists (select 1 from oauth_applications a where a.organization_id = ?::uuid and a.data_services_enabled) as data_services
       from (select 1) one left join webhook_settings s on s.organization_id = ?::uuid`,
      [organizationId, organizationId],
    );
    const r = rows[0];
    return {
      webhookUrl: r?.webhook_url ?? null,
      eventTypes: eventTypesOf(r?.event_types),
      hasDataServicesApplication: r?.data_services === true,
      secretSealed: r?.secret_sealed ?? null,
      previousSecretSealed: r?.previous_secret_sealed ?? null,
      previousSecretExpiresAt: toDateOrNull(r?.previous_secret_expires_at),
    };
  },
});

/** jsonb `"all"` or `["badge.created"]`: the driver parses it, except that PGlite may hand back text. */
const eventTypesOf = (v: unknown): EventTypeSelection => {
  if (v === "all") return "all";
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === "string") return eventTypesOf(toJson<unknown>(v));
  return [];
};

/** Rows a claim returned: each carries the claim's token. */
type ClaimedRow = DeliveryRow & { claim_token: string };

const claimed = (rows: ClaimedRow[], into: Map<string, ClaimedDelivery>): void => {
  for (const r of rows) into.set(r.id, { record: deliveryRecord(r), claimToken: r.claim_token });
};

/**
 * Delivery state for workers and schedulers. Every write is one statement over a batch, guarded so
 * that any number of processes can run it at once: a claim only takes a due delivery, a record only
 * lands while its claim holds, the scheduler skips rows another scheduler has locked.
 */
export const postgresDeliveryStore = (db: Database): DeliveryStore => ({
  async events(refs) {
    const out = new Map<string, DeliveryEvent>();
    if (refs.length === 0) return out;
    const rows = await db.all<{ id: string; organization_id: string; event_type: string; occurred_at: unknown }>(
      `select e.id, e.organization_id, e.event_type, e.occurred_at from events e
       where e.id = any(?::uuid[]) and e.occurred_at between ?::timestamptz and ?::timestamptz`,
      [arrayLiteral(refs.map((r) => r.id)), ...weeksOf(refs.map((r) => r.occurred_at))],
    );
    for (const r of rows) {
      out.set(r.id, {
        event_id: r.id,
        organization_id: r.organization_id,
        event_type: r.event_type,
        occurred_at: toDate(r.occurred_at),
      });
    }
    return out;
  },

  async existing(refs) {
    if (refs.length === 0) return new Set();
    const rows = await db.all<{ id: string }>(
      `select d.id from webhook_deliveries d
       where d.id = any(?::uuid[]) and d.occurred_at between ?::timestamptz and ?::timestamptz`,
      [arrayLiteral(refs.map((r) => r.id)), ...weeksOf(refs.map((r) => r.occurred_at))],
    );
    return new Set(rows.map((r) => r.id));
  },

  async recordFirst(attempts, now) {
    if (attempts.length === 0) return;
    const batch = JSON.stringify(
      attempts.map(({ event: e, attempt: a, progress: p }) => ({
        id: e.event_id,
        organization_id: e.organization_id,
        event_type: e.event_type,
        occurred_at: e.occurred_at,
        ...progressFields(p),
        ...attemptFields(a),
      })),
    );
    const ids = arrayLiteral(attempts.map((a) => a.event.event_id));
    const weeks = weeksOf(attempts.map((a) => a.event.occurred_at));
    // One statement: the deliveries (joined to events, so an event deleted meanwhile is skipped;
    // one that exists already keeps its state) and their attempts. Row checks run at the end of
    // the statement, so the attempts may point at deliveries inserted by the same statement.
    await db.run(
      `with v as (
         select * from json_to_recordset(?::json) as v(id uuid, organization_id uuid, event_type text,
           occurred_at timestamptz, ${PROGRESS_FIELDS}, ${ATTEMPT_FIELDS})
       ), d as (
         insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
           first_attempt_at, last_attempt_at, next_attempt_at, succeeded_at, due_at, created_at)
         select v.id, v.id, v.organization_id, v.event_type, e.occurred_at, v.status, v.attempts_count,
           v.first_attempt_at, v.last_attempt_at, v.next_attempt_at, v.succeeded_at, v.next_attempt_at, ?::timestamptz
         from v join events e on e.id = v.id
         where e.id = any(?::uuid[]) and e.occurred_at between ?::timestamptz and ?::timestamptz
         on conflict (id, occurred_at) do nothing
         returning id
       )
       insert into webhook_attempts (id, delivery_id, attempt_number, started_at, duration_ms, status_code, error,
         response_excerpt, outcome)
       select v.a_id, v.id, v.attempt_number, v.started_at, v.duration_ms, v.status_code, v.error,
         v.response_excerpt, v.outcome
       from v
       where v.id in (select id from d)
          or v.id in (select x.id from webhook_deliveries x
                      where x.id = any(?::uuid[]) and x.occurred_at between ?::timestamptz and ?::timestamptz)`,
      [batch, now, ids, ...weeks, ids, ...weeks],
    );
  },

  async claim(claims, claimToken, now, leaseUntil) {
    const out = new Map<string, ClaimedDelivery>();
    const creates = claims.filter(
      (c): c is DeliveryClaim & { create: NonNullable<DeliveryClaim["create"]> } => !!c.create,
    );
    const existing = claims.filter((c) => !c.create);
    const q = db;
    if (creates.length > 0) {
      const batch = JSON.stringify(
        creates.map((c) => ({
          id: c.deliveryId,
          organization_id: c.create.organization_id,
          event_type: c.create.event_type,
          occurred_at: c.create.occurred_at,
        })),
      );
      // Joined to events: a message about an event that is gone (organization deleted) claims nothing.
      claimed(
        await q.all<ClaimedRow>(
          `insert into webhook_deliveries as d (id, event_id, organization_id, event_type, occurred_at, status,
             attempts_count, next_attempt_at, lease_until, claim_token, due_at, created_at)
           select v.id, v.id, v.organization_id, v.event_type, e.occurred_at, 'delivering', 0, ?::timestamptz,
             ?::timestamptz, ?::text, ?::timestamptz, ?::timestamptz
           from json_to_recordset(?::json) as v(id uuid, organization_id uuid, event_type text, occurred_at timestamptz)
           join events e on e.id = v.id
           where e.id = any(?::uuid[]) and e.occurred_at between ?::timestamptz and ?::timestamptz
           on conflict (id, occurred_at) do update set status = 'delivering', lease_until = excluded.lease_until,
             claim_token = excluded.claim_token, due_at = excluded.due_at
           where ${DUE}
           returning ${DELIVERY_COLUMNS.replace(/(^|, )/g, "$1d.")}`,
          [
            now,
            leaseUntil,
            claimToken,
            leaseUntil,
            now,
            batch,
            arrayLiteral(creates.map((c) => c.deliveryId)),
            ...weeksOf(creates.map((c) => c.create.occurred_at)),
            now,
            now,
          ],
        ),
        out,
      );
    }
    if (existing.length > 0) {
      claimed(
        await q.all<ClaimedRow>(
          `update webhook_deliveries d set status = 'delivering', lease_until = ?, claim_token = ?, due_at = ?
           where d.id = any(?::uuid[]) and ${DUE}
           returning ${DELIVERY_COLUMNS.replace(/(^|, )/g, "$1d.")}`,
          [leaseUntil, claimToken, leaseUntil, arrayLiteral(existing.map((c) => c.deliveryId)), now, now],
        ),
        out,
      );
    }
    return out;
  },

  async defer(items, now) {
    const creates = items.filter((i) => i.claim.create);
    const existing = items.filter((i) => !i.claim.create);
    const q = db;
    if (creates.length > 0) {
      const batch = JSON.stringify(
        creates.map(({ claim, until }) => {
          const c = claim.create as NonNullable<DeliveryClaim["create"]>;
          return {
            id: claim.deliveryId,
            organization_id: c.organization_id,
            event_type: c.event_type,
            occurred_at: c.occurred_at,
            until,
          };
        }),
      );
      await q.run(
        `insert into webhook_deliveries as d (id, event_id, organization_id, event_type, occurred_at, status,
           attempts_count, next_attempt_at, due_at, created_at)
         select v.id, v.id, v.organization_id, v.event_type, e.occurred_at, 'pending', 0, v.until, v.until, ?::timestamptz
         from json_to_recordset(?::json) as v(id uuid, organization_id uuid, event_type text, occurred_at timestamptz,
           until timestamptz)
         join events e on e.id = v.id
         where e.id = any(?::uuid[]) and e.occurred_at between ?::timestamptz and ?::timestamptz
         on conflict (id, occurred_at) do update set status = 'pending', next_attempt_at = excluded.next_attempt_at,
           due_at = excluded.due_at, lease_until = null, claim_token = null
         where ${DUE}`,
        [
          now,
          batch,
          arrayLiteral(creates.map((i) => i.claim.deliveryId)),
          ...weeksOf(creates.map((i) => (i.claim.create as NonNullable<DeliveryClaim["create"]>).occurred_at)),
          now,
          now,
        ],
      );
    }
    if (existing.length > 0) {
      const batch = JSON.stringify(existing.map(({ claim, until }) => ({ id: claim.deliveryId, until })));
      await q.run(
        `update webhook_deliveries d set status = 'pending', next_attempt_at = v.until, due_at = v.until,
           lease_until = null, claim_token = null
         from json_to_recordset(?::json) as v(id uuid, until timestamptz)
         where d.id = v.id and d.id = any(?::uuid[]) and ${DUE}`,
        [batch, arrayLiteral(existing.map((i) => i.claim.deliveryId)), now, now],
      );
    }
  },

  async releasePutOff(organizationIds, now) {
    if (organizationIds.length === 0) return 0;
    // Due at their event's time: the scheduler dispatches by due time, so the oldest go first.
    return db.run(
      `update webhook_deliveries d set next_attempt_at = ?::timestamptz, due_at = least(d.occurred_at, ?::timestamptz)
       where d.organization_id = any(?::uuid[]) and d.status = 'pending' and d.next_attempt_at > ?::timestamptz`,
      [now, now, arrayLiteral(organizationIds), now],
    );
  },

  async record(attempts) {
    if (attempts.length === 0) return;
    const batch = JSON.stringify(
      attempts.map(({ deliveryId, claimToken, attempt, progress }) => ({
        id: deliveryId,
        claim_token: claimToken,
        ...progressFields(progress),
        ...attemptFields(attempt),
      })),
    );
    // One statement: the attempts are kept even when a claim was lost (they happened); the
    // delivery moves on only while the claim that made the attempt still holds.
    await db.run(
      `with v as (
         select * from json_to_recordset(?::json) as v(id uuid, claim_token text, ${PROGRESS_FIELDS}, ${ATTEMPT_FIELDS})
       ), a as (
         insert into webhook_attempts (id, delivery_id, attempt_number, started_at, duration_ms, status_code, error,
           response_excerpt, outcome)
         select v.a_id, v.id, v.attempt_number, v.started_at, v.duration_ms, v.status_code, v.error,
           v.response_excerpt, v.outcome
         from v
       )
       update webhook_deliveries d set status = v.status, attempts_count = v.attempts_count,
         first_attempt_at = v.first_attempt_at, last_attempt_at = v.last_attempt_at,
         next_attempt_at = v.next_attempt_at, succeeded_at = v.succeeded_at,
         lease_until = null, claim_token = null, due_at = v.next_attempt_at
       from v
       where d.id = v.id and d.id = any(?::uuid[]) and d.claim_token = v.claim_token`,
      [batch, arrayLiteral(attempts.map((a) => a.deliveryId))],
    );
  },

  async abandon(items, _now) {
    if (items.length === 0) return;
    await db.run(
      `update webhook_deliveries d set status = 'failed', next_attempt_at = null, lease_until = null,
         claim_token = null, due_at = null
       from json_to_recordset(?::json) as v(id uuid, claim_token text)
       where d.id = v.id and d.id = any(?::uuid[]) and d.claim_token = v.claim_token`,
      [
        JSON.stringify(items.map((i) => ({ id: i.deliveryId, claim_token: i.claimToken }))),
        arrayLiteral(items.map((i) => i.deliveryId)),
      ],
    );
  },

  dispatchDue: (now, limit, redispatchAt, publish) =>
    db.transaction(async (tx) => {
      const rows = await tx.all<DueDelivery>(
        `select id as delivery_id, organization_id from webhook_deliveries
         where due_at <= ? order by due_at limit ?::int for update skip locked`,
        [now, limit],
      );
      if (rows.length === 0) return 0;
      await publish(rows);
      await tx.run(
        `update webhook_deliveries d set due_at = ? from json_array_elements_text(?::json) v(id) where d.id = v.id::uuid`,
        [redispatchAt, JSON.stringify(rows.map((r) => r.delivery_id))],
      );
      return rows.length;
    }),
});

const progressColumns = (p: DeliveryProgress): unknown[] => [
  p.status,
  p.attemptsCount,
  p.firstAttemptAt,
  p.lastAttemptAt,
  p.nextAttemptAt,
  p.succeededAt,
];

const typeFilter = (eventTypes: EventTypeSelection): { sql: string; params: unknown[] } =>
  eventTypes === "all"
    ? { sql: "", params: [] }
    : eventTypes.length === 0
      ? { sql: " and false", params: [] }
      : { sql: ` and d.event_type in (${placeholders(eventTypes.length)})`, params: [...eventTypes] };

/** The conditions on deliveries `d` of an organization, with each optional one whose value was given. */
const deliveryWhere = (
  organizationId: string,
  optional: ReadonlyArray<readonly [sql: string, value: string | null | undefined]>,
): { sql: string; params: unknown[] } => {
  const given = optional.filter(([, value]) => value);
  return {
    sql: ["d.organization_id = ?::uuid", ...given.map(([sql]) => sql)].join(" and "),
    params: [organizationId, ...given.map(([, value]) => value)],
  };
};

const REDELIVER_BATCH = 1000;

export const postgresDeliveryAdminStore = (db: Database): DeliveryAdminStore => ({
  async list(filter, page) {
    const where = deliveryWhere(filter.organizationId, [
      ["d.event_id = ?::uuid", filter.eventId],
      ["d.status = ?", filter.status],
    ]);
    const [rows, count] = await Promise.all([
      db.all<DeliveryRow>(
        `select ${DELIVERY_COLUMNS} from webhook_deliveries d where ${where.sql}
         order by d.created_at desc, d.id desc limit ?::int offset ?::int`,
        [...where.params, page.per, page.offset],
      ),
      db.all<{ n: string | number }>(`select count(*) as n from webhook_deliveries d where ${where.sql}`, where.params),
    ]);
    return { items: rows.map(deliveryRecord), total: toNumber(count[0]?.n ?? 0) };
  },
  async attempts(filter, limit) {
    const where = deliveryWhere(filter.organizationId, [
      ["d.event_id = ?::uuid", filter.eventId],
      ["d.id = ?::uuid", filter.deliveryId],
    ]);
    const rows = await db.all<WebhookAttemptRow>(
      `select a.id, a.delivery_id, a.attempt_number, a.started_at, a.duration_ms, a.status_code, a.error,
         a.response_excerpt, a.outcome
       from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
       where ${where.sql} order by a.started_at desc, a.attempt_number desc limit ?::int`,
      [...where.params, limit],
    );
    return rows.map(attemptRecord);
  },
  async listAfter(organizationId, after, limit) {
    // The cursor is a delivery id; its own (created_at, id) is the bound, so no timestamp is
    // rounded through JavaScript on the way. The (organization_id, created_at desc, id desc) index
    // serves both the first page and every later one.
    const rows = await db.all<DeliveryRow>(
      after === null
        ? `select ${DELIVERY_COLUMNS} from webhook_deliveries d where d.organization_id = ?::uuid
           order by d.created_at desc, d.id desc limit ?::int`
        : `select ${DELIVERY_COLUMNS} from webhook_deliveries d
           where d.organization_id = ?::uuid
             and (d.created_at, d.id) < (select c.created_at, c.id from webhook_deliveries c
                                         where c.id = ?::uuid and c.organization_id = ?::uuid)
           order by d.created_at desc, d.id desc limit ?::int`,
      after === null ? [organizationId, limit] : [organizationId, after, organizationId, limit],
    );
    return rows.map(deliveryRecord);
  },
  async attemptsOf(organizationId, deliveryIds) {
    if (deliveryIds.length === 0) return [];
    const rows = await db.all<WebhookAttemptRow>(
      `select a.id, a.delivery_id, a.attempt_number, a.started_at, a.duration_ms, a.status_code, a.error,
         a.response_excerpt, a.outcome
       from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
       where d.organization_id = ?::uuid and a.delivery_id in (${placeholders(deliveryIds.length, "?::uuid")})
       order by a.started_at desc, a.attempt_number desc`,
      [organizationId, ...deliveryIds],
    );
    return rows.map(attemptRecord);
  },
  async latestForEvent(organizationId, eventId) {
    const rows = await db.all<DeliveryRow>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries d where d.organization_id = ?::uuid and d.event_id = ?::uuid
       order by d.created_at desc, d.id desc limit 1`,
      [organizationId, eventId],
    );
    return rows[0] ? deliveryRecord(rows[0]) : null;
  },
  async insert(r) {
    await db.run(
      `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
         first_attempt_at, last_attempt_at, next_attempt_at, succeeded_at, due_at, created_at)
       values (?::uuid, ?::uuid, ?::uuid, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.id,
        r.event_id,
        r.organization_id,
        r.event_type,
        r.occurred_at,
        ...progressColumns(r.progress),
        r.progress.nextAttemptAt,
        r.created_at,
      ],
    );
  },
  redeliverFailed: (organizationId, since, eventTypes, now, newId) =>
    db.transaction(async (q) => {
      const types = typeFilter(eventTypes);
      // The latest delivery of each event is the one no later delivery of the same event follows.
      const candidates = await q.all<{ event_id: string; event_type: string; occurred_at: Date }>(
        `select d.event_id, d.event_type, d.occurred_at from webhook_deliveries d
         where d.organization_id = ?::uuid and d.status = 'failed' and d.last_attempt_at >= ?${types.sql}
           and not exists (select 1 from webhook_deliveries n where n.event_id = d.event_id and n.created_at > d.created_at)
         for update of d`,
        [organizationId, since, ...types.params],
      );
      for (let i = 0; i < candidates.length; i += REDELIVER_BATCH) {
        const batch = candidates.slice(i, i + REDELIVER_BATCH);
        const values: unknown[] = [];
        const rows = batch.map((c) => {
          values.push(newId(), c.event_id, organizationId, c.event_type, c.occurred_at, now, now, now);
          return "(?::uuid, ?::uuid, ?::uuid, ?, ?::timestamptz, 'pending', 0, ?::timestamptz, ?::timestamptz, ?::timestamptz)";
        });
        await q.run(
          `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count,
             next_attempt_at, due_at, created_at) values ${rows.join(", ")}`,
          values,
        );
      }
      return candidates.length;
    }),
});

/** The delivery backlog for /metrics: rows with a `due_at` are exactly the unfinished ones. */
export const postgresDeliveryFigures = (db: Database) => ({
  async unfinished(): Promise<{ pending: number; delivering: number }> {
    const rows = await db.all<{ status: string; n: string | number }>(
      "select status, count(*) as n from webhook_deliveries where due_at is not null group by status",
    );
    const of = (s: string): number => toNumber(rows.find((r) => r.status === s)?.n ?? 0);
    return { pending: of("pending"), delivering: of("delivering") };
  },
});
