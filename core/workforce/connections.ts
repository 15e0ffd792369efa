import {
  type BadgeRecord,
  type BadgeStandardShape,
  type BadgeTemplateData,
  badgeStandardShape,
  type OrganizationRef,
  type ShapeUrls,
} from "../badges/mod.ts";
import { notFound } from "../errors/mod.ts";
import { type EventRecord, employmentBadgeEvent, employmentEvent } from "../events/mod.ts";
import { type ConnectionAction, employerSeesBadges, transitionConnection, visibleBadges } from "./connection.ts";
import { type EmployeeRecord, type Employer, employmentShape } from "./employee_records.ts";

/** A badge held by an earner account, with what its standard shape needs. */
export interface HeldBadge {
  badge: BadgeRecord;
  template: BadgeTemplateData;
  issuer: OrganizationRef;
  /** The organization that issued it on `issuer`'s behalf, if one did. */
  authorizedIssuer?: OrganizationRef;
}

/** What connecting records and accounts reads and writes, inside one transaction. */
export interface ConnectionTx {
  /** The open accounts owning these normalized addresses confirmed: address key -> account id. */
  confirmedOwners(emailKeys: string[]): Promise<Map<string, string>>;
  /** The account's confirmed normalized addresses; none when it is closed or unknown. */
  confirmedKeys(userId: string): Promise<string[]>;
  /** Records associated with the account, and unassociated ones with one of these addresses, locked. */
  lockForAccount(userId: string, emailKeys: string[]): Promise<EmployeeRecord[]>;
  lockRecord(id: string): Promise<EmployeeRecord | null>;
  employers(organizationIds: string[]): Promise<Employer[]>;
  /** Every badge linked to the account. */
  heldBadges(userId: string): Promise<HeldBadge[]>;
  /** Writes `employee_state`, its time and `user_id` of these records. */
  saveConnections(records: EmployeeRecord[]): Promise<void>;
  appendEvents(events: EventRecord[]): Promise<void>;
}

export interface ConnectionStore {
  transaction<T>(work: (tx: ConnectionTx) => Promise<T>): Promise<T>;
}

export interface ConnectionContext {
  now: Date;
  newEventId: () => string;
}

/** A record after one connection action, with the events of that action. */
interface Step {
  record: EmployeeRecord;
  events: EventRecord[];
}

const apply = (
  record: EmployeeRecord,
  action: ConnectionAction,
  ctx: ConnectionContext,
  employer: Employer,
  userId: string | null = null,
  badges: BadgeStandardShape[] = [],
): Step => {
  const change = transitionConnection(record, action, userId);
  const next: EmployeeRecord = {
    ...record,
    user_id: change.user_id,
    employee_state: change.employee_state,
    employee_state_updated_at:
      change.employee_state === record.employee_state ? record.employee_state_updated_at : ctx.now,
  };
  const shape = employmentShape(next, employer, visibleBadges(next, badges));
  const events = change.events.map((kind) =>
    employmentEvent(kind as Parameters<typeof employmentEvent>[0], shape, {
      id: ctx.newEventId(),
      organization_id: next.organization_id,
      occurred_at: ctx.now,
    }),
  );
  return { record: next, events };
};

/**
 * Records whose address changed or that are new, matched against the accounts that now own their
 * addresses confirmed: a record whose account no longer owns its address is disassociated, one
 * whose address an account owns is associated. Returns the records to write and the events.
 */
export const reconcileRecords = async (
  tx: Pick<ConnectionTx, "confirmedOwners">,
  ctx: ConnectionContext,
  employer: Employer,
  records: EmployeeRecord[],
): Promise<{ records: EmployeeRecord[]; events: EventRecord[] }> => {
  if (records.length === 0) return { records, events: [] };
  const owners = await tx.confirmedOwners([...new Set(records.map((r) => r.email_key))]);
  const events: EventRecord[] = [];
  const out = records.map((start) => {
    let record = start;
    const owner = owners.get(record.email_key) ?? null;
    if (record.user_id !== null && record.user_id !== owner) {
      const step = apply(record, "disassociate", ctx, employer);
      record = step.record;
      events.push(...step.events);
    }
    if (record.user_id === null && owner !== null) {
      const step = apply(record, "associate", ctx, employer, owner);
      record = step.record;
      events.push(...step.events);
    }
    return record;
  });
  return { records: out, events };
};

const employerMap = async (tx: ConnectionTx, records: EmployeeRecord[]): Promise<Map<string, Employer>> =>
  new Map((await tx.employers([...new Set(records.map((r) => r.organization_id))])).map((e) => [e.id, e] as const));

/**
 * After an account's confirmed addresses changed (confirmed, removed, merged away, the account
 * made): its records whose address it no longer owns are disassociated, unassociated records with
 * an address it owns are associated.
 */
export const syncAccountConnections = async (tx: ConnectionTx, ctx: ConnectionContext, userId: string) => {
  const keys = await tx.confirmedKeys(userId);
  const records = await tx.lockForAccount(userId, keys);
  const employers = await employerMap(tx, records);
  const changed: EmployeeRecord[] = [];
  const events: EventRecord[] = [];
  for (const record of records) {
    const employer = employers.get(record.organization_id) as Employer;
    const owns = keys.includes(record.email_key);
    const step =
      record.user_id === userId && !owns
        ? apply(record, "disassociate", ctx, employer)
        : record.user_id === null && owns
          ? apply(record, "associate", ctx, employer, userId)
          : null;
    if (!step) continue;
    changed.push(step.record);
    events.push(...step.events);
  }
  if (changed.length > 0) await tx.saveConnections(changed);
  await tx.appendEvents(events);
};

/** One employer's connection as the earner sees it. */
export interface EmployerConnection {
  record: EmployeeRecord;
  employer: Employer;
}

/**
 * The earner's visit: each associated record not yet shown is prompted (`pending`). Returns the
 * account's connections, to show the prompts and the accepted ones.
 */
export const visitConnections = (
  store: ConnectionStore,
  ctx: ConnectionContext,
  userId: string,
): Promise<EmployerConnection[]> =>
  store.transaction(async (tx) => {
    const records = (await tx.lockForAccount(userId, [])).filter((r) => r.user_id === userId);
    const employers = await employerMap(tx, records);
    const events: EventRecord[] = [];
    const out = records.map((record) => {
      const employer = employers.get(record.organization_id) as Employer;
      if (record.employee_state !== "created") return { record, employer };
      const step = apply(record, "prompt", ctx, employer);
      events.push(...step.events);
      return { record: step.record, employer };
    });
    const prompted = out.filter((c, i) => c.record !== records[i]).map((c) => c.record);
    if (prompted.length > 0) await tx.saveConnections(prompted);
    await tx.appendEvents(events);
    return out;
  });

/** The badges of the account its connected employers see, in their standard shape. */
export const heldShapes = (held: HeldBadge[], urls: ShapeUrls): BadgeStandardShape[] =>
  held.map((h) => badgeStandardShape(h.badge, h.template, h.issuer, urls, h.authorizedIssuer));

/** The earner accepts, rejects or disconnects one employer's connection. */
export const decideConnection = (
  store: ConnectionStore,
  ctx: ConnectionContext,
  urls: ShapeUrls,
  userId: string,
  employeeId: string,
  action: Extract<ConnectionAction, "accept" | "reject" | "disconnect">,
): Promise<EmployerConnection> =>
  store.transaction(async (tx) => {
    const record = await tx.lockRecord(employeeId);
    if (!record || record.user_id !== userId) throw notFound("Connection");
    const [employer] = await tx.employers([record.organization_id]);
    const badges = action === "accept" ? heldShapes(await tx.heldBadges(userId), urls) : [];
    const step = apply(record, action, ctx, employer as Employer, null, badges);
    await tx.saveConnections([step.record]);
    await tx.appendEvents(step.events);
    return { record: step.record, employer: employer as Employer };
  });

const viewable = (held: HeldBadge | null, userId: string): held is HeldBadge =>
  held !== null && held.badge.user_id === userId && held.badge.state === "accepted" && held.badge.public;

/**
 * After a badge changed (accepted, revoked, replaced, made private or public, deleted, moved to
 * another account), in the transaction of the change: each employer connected to an account
 * whose view of the badge changed records `employment.badges.added` when it became viewable, and
 * when it stopped being viewable the cause (`.state_changed`, `.privacy_changed`; none for a
 * deletion or a move) then `employment.badges.removed`.
 */
export const followBadgeChange = async (
  tx: ConnectionTx,
  ctx: ConnectionContext,
  urls: ShapeUrls,
  before: HeldBadge | null,
  after: HeldBadge | null,
): Promise<void> => {
  const users = [...new Set([before?.badge.user_id, after?.badge.user_id])].filter((u): u is string => !!u);
  const events: EventRecord[] = [];
  for (const userId of users) {
    const was = viewable(before, userId);
    const is = viewable(after, userId);
    if (was === is) continue;
    const records = (await tx.lockForAccount(userId, [])).filter((r) => r.user_id === userId && employerSeesBadges(r));
    if (records.length === 0) continue;
    const employers = await employerMap(tx, records);
    const shapes = heldShapes(await tx.heldBadges(userId), urls);
    const stays = after !== null && after.badge.user_id === userId ? after : null;
    const [badge] = heldShapes([(is ? after : (stays ?? before)) as HeldBadge], urls) as [BadgeStandardShape];
    const cause =
      is || !stays || !before
        ? null
        : stays.badge.state !== before.badge.state
          ? "employment.badges.state_changed"
          : stays.badge.public !== before.badge.public
            ? "employment.badges.privacy_changed"
            : null;
    for (const record of records) {
      const employment = employmentShape(
        record,
        employers.get(record.organization_id) as Employer,
        visibleBadges(record, shapes),
      );
      const at = () => ({ id: ctx.newEventId(), organization_id: record.organization_id, occurred_at: ctx.now });
      if (is) {
        events.push(employmentBadgeEvent("employment.badges.added", employment, badge, at()));
        continue;
      }
      if (cause) events.push(employmentEvent(cause, employment, at()));
      events.push(employmentBadgeEvent("employment.badges.removed", employment, badge, at()));
    }
  }
  await tx.appendEvents(events);
};
