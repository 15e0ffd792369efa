import type { EventRecord } from "../../core/events/mod.ts";
import type {
  EMPLOYEE_LIST,
  EmployeeFilter,
  EmployeeRecord,
  EmployeeSortKey,
  EmployeeStore,
  EmployeeTx,
  Employer,
  InvitationDeps,
} from "../../core/workforce/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import type { Database } from "./database.ts";
import { COLUMNS, type EmployeeFields, recordOf, SELECT, UPDATED } from "./employee_rows.ts";
import { confirmedOwners, heldBadgesOf } from "./held_badges.ts";
import { type ListTable, listOrder, listWhere } from "./list_sql.ts";
import { appendEvents, appendEventsCtes, EVENTS_RECORDSET, eventsJson } from "./postgres_event_log.ts";
import { arrayLiteral, type Queryable } from "./sql.ts";

/** Records as one JSON array for `jsonb_populate_recordset` (timestamps as ISO text). */
const asJson = (records: EmployeeRecord[]): string => JSON.stringify(records);

const EMPLOYER = `select o.id, o.name, coalesce(o.description, '') as bio from organizations o where o.id = ?`;
export const employerOf = async (q: Queryable, organizationId: string): Promise<Employer | null> => {
  const row = await q.one<{ id: string; name: string; bio: string }>(EMPLOYER, [organizationId]);
  return row ? { id: row.id, name: row.name, bio: row.bio, industry: "" } : null;
};

/** `%`, `_` and `\\` of a user's text match themselves in a LIKE pattern. */
const contains = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The employee list in SQL: each sort has an index led by `organization_id` (migration 011). */
const EMPLOYEES: ListTable<keyof typeof EMPLOYEE_LIST.filters, EmployeeSortKey> = {
  filters: {
    name_or_email: (value, params) => {
      if (value.kind !== "search") return "true";
      if (value.exact) {
        params.push(value.text, value.text);
        return "(lower(e.first_name || ' ' || e.last_name) = lower(?) or e.email_key = lower(?))";
      }
      params.push(contains(value.text), contains(value.text));
      return "(lower(e.first_name || ' ' || e.last_name) like ? or e.email_key like ?)";
    },
    employee_state: "e.employee_state",
    team: "e.team_key",
    department: "e.department_key",
    external_id: (value, params) => {
      const ids = value.kind === "values" ? value.values : [];
      params.push(JSON.stringify(ids));
      return "e.external_id in (select jsonb_array_elements_text(?::jsonb))";
    },
  },
  sorts: {
    created_at: "e.created_at",
    email: "e.email_key",
    first_name: "e.first_name_key",
    last_name: "e.last_name_key",
  },
  id: "e.id",
};

/** The filters `employee_counts` can answer, on its columns (migration 015). */
const COUNTED: Record<string, string> = {
  employee_state: "c.employee_state",
  department: "c.department_key",
  team: "c.team_key",
};

/**
 * `total_count` of a list: summed from the per-group counters when every filter given is one of
 * theirs, else counted from the records.
 */
const countSql = (filter: EmployeeFilter, organizationId: string, w: { sql: string; params: unknown[] }) => {
  const given = Object.entries(filter.filters).filter(([, v]) => v !== undefined);
  if (given.some(([k]) => COUNTED[k] === undefined))
    return { sql: `select count(*)::int as n from employees e where ${w.sql}`, params: w.params };
  const counted = listWhere(
    { filters: COUNTED, sorts: {}, id: "" },
    { filters: Object.fromEntries(given) },
    ["c.organization_id = ?"],
    [organizationId],
  );
  return {
    sql: `select coalesce(sum(c.n), 0)::int as n from employee_counts c where ${counted.sql}`,
    params: counted.params,
  };
};

/** Text filters compare lowercased: the values are lowercased as the columns are. */
const lowered = (f: EmployeeFilter): EmployeeFilter => {
  const filters = { ...f.filters };
  for (const key of ["team", "department"] as const) {
    const v = filters[key];
    if (v?.kind === "values") filters[key] = { kind: "values", values: v.values.map((x) => x.toLowerCase()) };
  }
  return { ...f, filters };
};

const INSERT_CTE = `i as (insert into employees (${COLUMNS.join(", ")})
  select ${COLUMNS.join(", ")} from jsonb_populate_recordset(null::employees, ?::jsonb))`;
const UPDATE_CTE = `u as (update employees e set (${UPDATED.join(", ")}) = (${UPDATED.map((c) => `r.${c}`).join(", ")})
  from jsonb_populate_recordset(null::employees, ?::jsonb) r where e.id = r.id)`;
const EVENTS_CTES = `e as (select * from ${EVENTS_RECORDSET}), ${appendEventsCtes("e")}`;

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; sqlState?: string };
  return e.code === "23505" || e.sqlState === "23505";
};

/**
 * A batch's inserts, updates and events (of one organization) in one statement: one round trip,
 * each part one set-based write from one jsonb value. A plain insert: a collision of
 * `(organization_id, external_id)` fails the statement, so nothing of it is written.
 */
const save = async (
  q: Queryable,
  inserts: EmployeeRecord[],
  updates: EmployeeRecord[],
  events: EventRecord[],
): Promise<"saved" | "external_id_taken"> => {
  const organizations = new Set(events.map((e) => e.organization_id));
  const together = organizations.size === 1;
  const ctes: string[] = [];
  const values: unknown[] = [];
  if (inserts.length > 0) {
    ctes.push(INSERT_CTE);
    values.push(asJson(inserts));
  }
  if (updates.length > 0) {
    ctes.push(UPDATE_CTE);
    values.push(asJson(updates));
  }
  if (together) {
    ctes.push(EVENTS_CTES);
    values.push(eventsJson(events), [...organizations][0]);
  }
  try {
    if (ctes.length > 0) await q.run(`with ${ctes.join(", ")} select 1`, values);
  } catch (err) {
    if (isUniqueViolation(err)) return "external_id_taken";
    throw err;
  }
  if (!together) await appendEvents(q, events);
  return "saved";
};

const employeeTx = (q: Queryable): EmployeeTx => ({
  employer: (organizationId) => employerOf(q, organizationId),
  confirmedOwners: (keys) => confirmedOwners(q, keys),
  heldBadgesOf: (userIds) => heldBadgesOf(q, userIds),
  async lock(organizationId, id) {
    const row = await q.one<EmployeeFields>(
      `select ${SELECT} from employees e where e.id = ? and e.organization_id = ? for update`,
      [id, organizationId],
    );
    return row ? recordOf(row) : null;
  },
  async lockByExternalIds(organizationId, externalIds) {
    if (externalIds.length === 0) return [];
    // The ids as one text[] value: PostgreSQL plans with it as a constant, so whichever index it
    // picks, each row is checked against a hash of the ids. With a set-returning function instead,
    // an organization that the statistics still think empty (a first import, between analyzes)
    // got a nested loop comparing each of its rows with each id: quadratic, seconds per batch.
    const rows = await q.all<EmployeeFields>(
      `select ${SELECT} from employees e where e.organization_id = ? and e.external_id = any(?::text[])
       order by e.id for update`,
      [organizationId, arrayLiteral(externalIds)],
    );
    return rows.map(recordOf);
  },
  async insert(records) {
    // `on conflict do nothing` answers the collision as a value; the use case then throws, which
    // rolls the transaction back.
    const n = await q.run(
      `insert into employees (${COLUMNS.join(", ")})
       select ${COLUMNS.join(", ")} from jsonb_populate_recordset(null::employees, ?::jsonb)
       on conflict (organization_id, external_id) do nothing`,
      [asJson(records)],
    );
    return n === records.length ? "inserted" : "external_id_taken";
  },
  async update(records) {
    try {
      await q.run(
        `update employees e set (${UPDATED.join(", ")}) = (${UPDATED.map((c) => `r.${c}`).join(", ")})
         from jsonb_populate_recordset(null::employees, ?::jsonb) r where e.id = r.id`,
        [asJson(records)],
      );
      return "updated";
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return "external_id_taken";
    }
  },
  async delete(id) {
    await q.run("delete from employees where id = ?", [id]);
  },
  appendEvents: (events: EventRecord[]) => appendEvents(q, events),
  appendAudit: (entries) => appendAudit(q, entries),
  save: (inserts, updates, events) => save(q, inserts, updates, events),
});

export const postgresEmployeeStore = (db: Database): EmployeeStore => ({
  transaction: (work) => db.transaction((q) => work(employeeTx(q))),
  employer: (organizationId) => employerOf(db, organizationId),
  async workforceAuthorized(organizationId) {
    const row = await db.one<{ workforce_authorized: boolean }>(
      "select workforce_authorized from organizations where id = ?",
      [organizationId],
    );
    return row?.workforce_authorized === true;
  },
  heldBadgesOf: (userIds) => heldBadgesOf(db, userIds),
  async get(organizationId, id) {
    const row = await db.one<EmployeeFields>(
      `select ${SELECT} from employees e where e.id = ? and e.organization_id = ?`,
      [id, organizationId],
    );
    return row ? recordOf(row) : null;
  },
  async list(organizationId, filter, page) {
    const low = lowered(filter);
    const w = listWhere(EMPLOYEES, low, ["e.organization_id = ?"], [organizationId]);
    const order = listOrder(EMPLOYEES, filter.sort);
    const count = countSql(low, organizationId, w);
    // The page's ids first, from the list index alone; then only those rows are read.
    const [rows, counted] = await Promise.all([
      db.all<EmployeeFields>(
        `select ${SELECT} from (select e.id from employees e where ${w.sql} order by ${order} limit ? offset ?) p
         join employees e on e.id = p.id order by ${order}`,
        [...w.params, page.per, page.offset],
      ),
      db.all<{ n: number }>(count.sql, count.params),
    ]);
    return { items: rows.map(recordOf), total: Number(counted[0]?.n ?? 0) };
  },
});

/** What sending invitations reads and writes. */
export const postgresInvitationStore = (db: Database): Pick<InvitationDeps, "pick" | "markInvited"> => ({
  async pick(organizationId, which) {
    const q = db;
    const employer = await employerOf(q, organizationId);
    const rows =
      "ids" in which
        ? await q.all<EmployeeFields>(
            `select ${SELECT} from employees e where e.organization_id = ?
               and e.id in (select (jsonb_array_elements_text(?::jsonb))::uuid) order by e.id`,
            [organizationId, JSON.stringify(which.ids)],
          )
        : await q.all<EmployeeFields>(
            `select ${SELECT} from employees e where e.organization_id = ? and e.employee_state = ? order by e.id`,
            [organizationId, which.state],
          );
    return { employer, records: rows.map(recordOf) };
  },
  async markInvited(organizationId, ids, at) {
    await db.run(
      `update employees set last_invitation_sent_at = ?
       where organization_id = ? and id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
      [at, organizationId, JSON.stringify(ids)],
    );
  },
});

/** The employee store with `transaction` running inside an open transaction `q` (an import's chunk). */
export const employeeStoreWithin = (db: Database, q: Queryable): EmployeeStore => ({
  ...postgresEmployeeStore(db),
  transaction: (work) => work(employeeTx(q)),
});
