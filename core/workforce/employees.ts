import { Compile } from "typebox/compile";
import { type AuditBy, type AuditRecord, auditRecord } from "../audit/mod.ts";
import type { ShapeUrls } from "../badges/mod.ts";
import { schemaFieldErrors } from "../badges/mod.ts";
import type { Page } from "../credentials/mod.ts";
import { type CoreError, forbidden, notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import {
  type Employment,
  type EmploymentEventType,
  type EventRecord,
  employmentEvent,
  employmentSeenBy,
  type ReducedEmployment,
} from "../events/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { employerSeesBadges, visibleBadges } from "./connection.ts";
import { type ConnectionTx, type HeldBadge, heldShapes, reconcileRecords } from "./connections.ts";
import {
  applyEmployeeUpdate,
  type EmployeeFilter,
  type EmployeeRecord,
  type Employer,
  employmentShape,
  newEmployeeRecord,
} from "./employee_records.ts";
import { EmployeeCreateBody, type EmployeeUpdateBody } from "./employee_schemas.ts";

/** One database transaction: everything written through it, events included, commits together. */
/** The badges held by each of these accounts (accounts holding none may be absent). */
export type HeldBadgesOf = (userIds: string[]) => Promise<Map<string, HeldBadge[]>>;

export interface EmployeeTx extends Pick<ConnectionTx, "confirmedOwners"> {
  heldBadgesOf: HeldBadgesOf;
  /** The employer (organization) of the records; null when it does not exist. */
  employer(organizationId: string): Promise<Employer | null>;
  lock(organizationId: string, id: string): Promise<EmployeeRecord | null>;
  lockByExternalIds(organizationId: string, externalIds: string[]): Promise<EmployeeRecord[]>;
  /**
   * `external_id_taken` when one of them collides with a record of the organization; the
   * transaction must then be abandoned (throw), as with the next one.
   */
  insert(records: EmployeeRecord[]): Promise<"inserted" | "external_id_taken">;
  /** `external_id_taken` when a changed `external_id` collides with another record. */
  update(records: EmployeeRecord[]): Promise<"updated" | "external_id_taken">;
  delete(id: string): Promise<void>;
  appendEvents(events: EventRecord[]): Promise<void>;
  appendAudit(entries: AuditRecord[]): Promise<void>;
  /**
   * New records, changed ones and the events of both, written together (one statement where the
   * store can). `external_id_taken` when a new record collides with one of the organization (one
   * a concurrent batch created): nothing may then stay written, the transaction must be abandoned.
   */
  save(
    inserts: EmployeeRecord[],
    updates: EmployeeRecord[],
    events: EventRecord[],
  ): Promise<"saved" | "external_id_taken">;
}

export interface EmployeeStore {
  transaction<T>(work: (tx: EmployeeTx) => Promise<T>): Promise<T>;
  heldBadgesOf: HeldBadgesOf;
  employer(organizationId: string): Promise<Employer | null>;
  /** Whether the operator has authorized the organization for workforce data (false when unknown). */
  workforceAuthorized(organizationId: string): Promise<boolean>;
  get(organizationId: string, id: string): Promise<EmployeeRecord | null>;
  list(organizationId: string, filter: EmployeeFilter, page: PageRequest): Promise<Page<EmployeeRecord>>;
}

export interface EmployeeContext {
  /**
   * Who changes the records for the organization, and from where: their changes go to the audit
   * log in the change's transaction. Absent: no audit row (the changes' events tell them).
   */
  by?: AuditBy;
  now: Date;
  /** Ids of records and their employment histories (UUIDv7s). */
  newId: () => string;
  newEventId: () => string;
  /** Where the badges in employments are hosted. */
  urls: ShapeUrls;
}

export interface EmployeeView {
  record: EmployeeRecord;
  employer: Employer;
  /** The badges of the connected account (none when not connected); shown through `employmentOf`. */
  held: HeldBadge[];
  /** Whether the organization is authorized for workforce data; unknown inside a write's transaction. */
  authorized?: boolean;
}

/** The employment in full, with the badges of an accepted connection: what events record. */
const fullEmployment = (view: EmployeeView, urls: ShapeUrls): Employment =>
  employmentShape(view.record, view.employer, visibleBadges(view.record, heldShapes(view.held, urls)));

/**
 * The employment as its employer may see it now: in full when the organization is authorized
 * for workforce data, else reduced to `id`, `email`, `external_id` (`employmentSeenBy`).
 */
export const employmentOf = (view: EmployeeView, urls: ShapeUrls): Employment | ReducedEmployment =>
  employmentSeenBy(fullEmployment(view, urls), view.authorized === true);

/**
 * The refusal of a view that is workforce data and nothing else (an employee's external badges,
 * employees filtered by connection state) to an organization not authorized for it.
 */
export const workforceDataRefused = (): CoreError =>
  forbidden("This organization is not authorized for workforce data; ask the operator to authorize it");

/** Throws `workforceDataRefused` unless the organization is authorized. */
export const requireWorkforceData = async (
  store: Pick<EmployeeStore, "workforceAuthorized">,
  organizationId: string,
): Promise<void> => {
  if (!(await store.workforceAuthorized(organizationId))) throw workforceDataRefused();
};

/** Views of `records` with the badges of those connected (one read for all). */
const viewsOf = async (
  from: { heldBadgesOf: HeldBadgesOf },
  employer: Employer,
  records: EmployeeRecord[],
): Promise<EmployeeView[]> => {
  const users = [...new Set(records.filter(employerSeesBadges).map((r) => r.user_id as string))];
  const held = users.length > 0 ? await from.heldBadgesOf(users) : new Map<string, HeldBadge[]>();
  return records.map((record) => ({
    record,
    employer,
    held: employerSeesBadges(record) ? (held.get(record.user_id as string) ?? []) : [],
  }));
};

const externalIdTaken = (field = "external_id"): CoreError =>
  validationFailed("Validation failed", [
    { field, message: "is already used by another employee of this organization" },
  ]);

const event = (
  kind: Extract<EmploymentEventType, "employment.created" | "employment.updated" | "employment.deleted">,
  view: EmployeeView,
  ctx: EmployeeContext,
): EventRecord =>
  employmentEvent(kind, fullEmployment(view, ctx.urls), {
    id: ctx.newEventId(),
    organization_id: view.record.organization_id,
    occurred_at: ctx.now,
  });

/** The audit row of a change, when someone acts for the organization; none otherwise. */
const audited = async (
  tx: Pick<EmployeeTx, "appendAudit">,
  ctx: EmployeeContext,
  organizationId: string,
  action: "employee.created" | "employee.updated" | "employee.deleted" | "employees.upserted",
  target: string | null,
  details: Record<string, unknown>,
): Promise<void> => {
  if (ctx.by) await tx.appendAudit([auditRecord(ctx, ctx.by, organizationId, action, target, details)]);
};

/**
 * The event and audit row of one record created or changed, after the events of the connections
 * the write linked, in the write's transaction.
 */
const recordWritten = async (
  tx: Pick<EmployeeTx, "appendEvents" | "appendAudit">,
  ctx: EmployeeContext,
  organizationId: string,
  change: "created" | "updated",
  view: EmployeeView,
  linkedEvents: EventRecord[],
): Promise<void> => {
  await tx.appendEvents([event(`employment.${change}`, view, ctx), ...linkedEvents]);
  await audited(tx, ctx, organizationId, `employee.${change}`, `employee:${view.record.id}`, {
    external_id: view.record.external_id,
    email: view.record.email,
  });
};

const employerOf = async (from: Pick<EmployeeTx, "employer">, organizationId: string): Promise<Employer> =>
  orNotFound(await from.employer(organizationId), "Organization");

/**
 * A write to the organization's employee records in one transaction with the organization as
 * employer; the view it answers says whether workforce data may be shown with it.
 */
const employerWrite = async (
  store: EmployeeStore,
  organizationId: string,
  write: (tx: EmployeeTx, employer: Employer) => Promise<EmployeeView>,
): Promise<EmployeeView> => ({
  ...(await store.transaction(async (tx) => write(tx, await employerOf(tx, organizationId)))),
  authorized: await store.workforceAuthorized(organizationId),
});

export const createEmployee = async (
  store: EmployeeStore,
  ctx: EmployeeContext,
  organizationId: string,
  body: EmployeeCreateBody,
): Promise<EmployeeView> =>
  employerWrite(store, organizationId, async (tx, employer) => {
    const created = newEmployeeRecord(body, { id: ctx.newId(), organization_id: organizationId, ...ctx });
    const linked = await reconcileRecords(tx, ctx, employer, [created]);
    const record = linked.records[0] as EmployeeRecord;
    if ((await tx.insert([record])) === "external_id_taken") throw externalIdTaken();
    const view = { record, employer, held: [] };
    await recordWritten(tx, ctx, organizationId, "created", view, linked.events);
    return view;
  });

export const getEmployee = async (store: EmployeeStore, organizationId: string, id: string): Promise<EmployeeView> => {
  const [employer, record, authorized] = await Promise.all([
    store.employer(organizationId),
    store.get(organizationId, id),
    store.workforceAuthorized(organizationId),
  ]);
  if (!employer || !record) throw notFound("Employee");
  // Not authorized, the badges are not shown: they are not read either.
  const [view] = authorized ? await viewsOf(store, employer, [record]) : [{ record, employer, held: [] }];
  return { ...(view as EmployeeView), authorized };
};

export const listEmployees = async (
  store: EmployeeStore,
  organizationId: string,
  filter: EmployeeFilter,
  page: PageRequest,
): Promise<Page<EmployeeView>> => {
  const authorized = await store.workforceAuthorized(organizationId);
  // Which records are in which connection state is workforce data as much as the state itself.
  if (!authorized && filter.filters.employee_state !== undefined) throw workforceDataRefused();
  const [employer, records] = await Promise.all([
    store.employer(organizationId),
    store.list(organizationId, filter, page),
  ]);
  if (!employer) throw notFound("Organization");
  const views = authorized
    ? await viewsOf(store, employer, records.items)
    : records.items.map((record) => ({ record, employer, held: [] }));
  return { items: views.map((v) => ({ ...v, authorized })), total: records.total };
};

/** Applies `body`; records `employment.updated` only when something changed. */
export const updateEmployee = async (
  store: EmployeeStore,
  ctx: EmployeeContext,
  organizationId: string,
  id: string,
  body: EmployeeUpdateBody,
): Promise<EmployeeView> =>
  employerWrite(store, organizationId, async (tx, employer) => {
    const current = orNotFound(await tx.lock(organizationId, id), "Employee");
    const changed = applyEmployeeUpdate(current, body, ctx);
    if (changed === current) return (await viewsOf(tx, employer, [current]))[0] as EmployeeView;
    const linked = await reconcileRecords(tx, ctx, employer, [changed]);
    const next = linked.records[0] as EmployeeRecord;
    if ((await tx.update([next])) === "external_id_taken") throw externalIdTaken();
    const view = (await viewsOf(tx, employer, [next]))[0] as EmployeeView;
    await recordWritten(tx, ctx, organizationId, "updated", view, linked.events);
    return view;
  });

/** Deletes the record; `employment.deleted` is read with the reduced employment. */
export const deleteEmployee = (
  store: EmployeeStore,
  ctx: EmployeeContext,
  organizationId: string,
  id: string,
): Promise<void> =>
  store.transaction(async (tx) => {
    const employer = await employerOf(tx, organizationId);
    const current = orNotFound(await tx.lock(organizationId, id), "Employee");
    await tx.delete(id);
    const [view] = await viewsOf(tx, employer, [current]);
    await tx.appendEvents([event("employment.deleted", view as EmployeeView, ctx)]);
    await audited(tx, ctx, organizationId, "employee.deleted", `employee:${id}`, {
      external_id: current.external_id,
      email: current.email,
    });
  });

/**
 * Most items of a sync are valid: a compiled check passes them for far less than collecting errors
 * costs (docs/benchmarks.md, figures behind the code).
 */
let validBody: ((item: unknown) => boolean) | null = null;
const isValidBody = (item: unknown): boolean => {
  if (!validBody) {
    const compiled = Compile(EmployeeCreateBody);
    validBody = (x) => compiled.Check(x);
  }
  return validBody(item);
};

/** The field errors of one batch item (none when it is a valid create body), under `prefix`. */
export const employeeItemErrors = (item: unknown, prefix: string) =>
  isValidBody(item) ? [] : schemaFieldErrors(EmployeeCreateBody, item, prefix);

export type UpsertResult =
  | { index: number; status: "created" | "updated" | "unchanged"; id: string; external_id: string }
  | { index: number; status: "failed"; external_id: string | null; error: CoreError };

/**
 * Upserts a batch keyed by `external_id` in one transaction: new ids are created, known ones
 * updated like a PUT (absent fields kept), and an item that changes nothing records no event.
 * Each item is validated on its own (field paths `employees.<i>.<field>`); a bad item, or the
 * second item with an `external_id` already in the batch, is reported and the others go ahead.
 */
export const upsertEmployees = (
  store: EmployeeStore,
  ctx: EmployeeContext,
  organizationId: string,
  items: readonly unknown[],
): Promise<UpsertResult[]> =>
  store.transaction(async (tx) => {
    const employer = await employerOf(tx, organizationId);
    const results: UpsertResult[] = [];
    const valid: Array<{ index: number; body: EmployeeCreateBody }> = [];
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const errors = employeeItemErrors(item, `employees.${index}`);
      const raw = (item as { external_id?: unknown } | null)?.external_id;
      const externalId = typeof raw === "string" ? raw.trim() : null;
      if (errors.length === 0 && externalId !== null && seen.has(externalId))
        errors.push({ field: `employees.${index}.external_id`, message: "appears more than once in the batch" });
      if (errors.length > 0) {
        results.push({
          index,
          status: "failed",
          external_id: externalId,
          error: validationFailed("Validation failed", errors),
        });
        return;
      }
      seen.add(externalId as string);
      valid.push({ index, body: { ...(item as EmployeeCreateBody), external_id: externalId as string } });
    });
    const existing = new Map(
      (await tx.lockByExternalIds(organizationId, [...seen])).map((r) => [r.external_id, r] as const),
    );
    let inserts: EmployeeRecord[] = [];
    let updates: EmployeeRecord[] = [];
    const createdIds = new Set<string>();
    let written: EmployeeRecord[] = [];
    const events: EventRecord[] = [];
    for (const { index, body } of valid) {
      const current = existing.get(body.external_id);
      const record = current
        ? applyEmployeeUpdate(current, body, ctx)
        : newEmployeeRecord(body, { id: ctx.newId(), organization_id: organizationId, ...ctx });
      const status = !current ? "created" : record === current ? "unchanged" : "updated";
      results.push({ index, status, id: record.id, external_id: record.external_id });
      if (status === "unchanged") continue;
      (status === "created" ? inserts : updates).push(record);
      if (status === "created") createdIds.add(record.id);
      written.push(record);
    }
    // New records and changed addresses may belong to an account already (or no longer).
    const moved = updates.filter((r) => r.email_key !== existing.get(r.external_id)?.email_key);
    const linked = await reconcileRecords(tx, ctx, employer, [...inserts, ...moved]);
    const byId = new Map(linked.records.map((r) => [r.id, r] as const));
    inserts = inserts.map((r) => byId.get(r.id) ?? r);
    updates = updates.map((r) => byId.get(r.id) ?? r);
    written = written.map((r) => byId.get(r.id) ?? r);
    // In the order of the items, as each would have been recorded alone.
    for (const view of await viewsOf(tx, employer, written))
      events.push(event(createdIds.has(view.record.id) ? "employment.created" : "employment.updated", view, ctx));
    events.push(...linked.events);
    // A concurrent batch may have created one of the new ids meanwhile: the whole batch is refused
    // (nothing written) and can be sent again, when those ids update instead.
    if ((await tx.save(inserts, updates, events)) === "external_id_taken")
      throw validationFailed("Another request created some of these employees meanwhile; send the batch again");
    const count = (status: UpsertResult["status"]) => results.filter((r) => r.status === status).length;
    await audited(tx, ctx, organizationId, "employees.upserted", null, {
      created: count("created"),
      updated: count("updated"),
      unchanged: count("unchanged"),
      failed: count("failed"),
    });
    return results.sort((a, b) => a.index - b.index);
  });
