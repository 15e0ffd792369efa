import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import {
  type ConnectionTx,
  decideConnection,
  type EmployeeRecord,
  type Employer,
  followBadgeChange,
  type HeldBadge,
  newEmployeeRecord,
  reconcileRecords,
  setWorkforceAuthorization,
  syncAccountConnections,
  visitConnections,
} from "../../core/workforce/mod.ts";

const ORG = "11111111-1111-4111-8111-111111111111";
const OTHER = "22222222-2222-4222-8222-222222222222";
const ANN = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const BOB = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const NOW = new Date("2024-03-01T12:00:00.000Z");
const EMPLOYER: Employer = { id: ORG, name: "Acme", bio: "", industry: "" };
const URLS = { publicBase: "https://laurel.test" };
let n = 0;
const newId = () => `00000000-0000-7000-8000-${String(++n).padStart(12, "0")}`;
const ctx = { now: NOW, newEventId: newId };

const record = (email: string, over: Partial<EmployeeRecord> = {}): EmployeeRecord => ({
  ...newEmployeeRecord(
    { email, first_name: "F", last_name: "L", external_id: email },
    { id: newId(), organization_id: ORG, now: new Date("2024-01-01T00:00:00.000Z"), newId },
  ),
  ...over,
});

const held = (id: string, userId: string | null, state: string, isPublic: boolean): HeldBadge =>
  ({
    badge: {
      id,
      user_id: userId,
      state,
      public: isPublic,
      issued_to_first_name: "Ann",
      issued_to_middle_name: null,
      issued_to_last_name: "A",
      issued_at: NOW,
      expires_at: null,
    },
    template: { id: "t", image_url: "https://laurel.test/i.png", description: "", name: "Go", skills: [] },
    issuer: { name: "Acme", image_url: null },
  }) as unknown as HeldBadge;

/** Records, confirmed addresses and badges in memory: enough to check the decisions and their events. */
const memory = (records: EmployeeRecord[], addresses: Record<string, string[]>, badges: HeldBadge[] = []) => {
  const rows = new Map(records.map((r) => [r.id, r] as const));
  const events: EventRecord[] = [];
  const tx: ConnectionTx = {
    confirmedOwners: async (keys) =>
      new Map(
        Object.entries(addresses).flatMap(([user, ks]) =>
          ks.filter((k) => keys.includes(k)).map((k) => [k, user] as [string, string]),
        ),
      ),
    confirmedKeys: async (userId) => addresses[userId] ?? [],
    lockForAccount: async (userId, keys) =>
      [...rows.values()].filter((r) => r.user_id === userId || (r.user_id === null && keys.includes(r.email_key))),
    lockRecord: async (id) => rows.get(id) ?? null,
    employers: async (ids) => (ids.includes(ORG) ? [EMPLOYER] : []),
    heldBadges: async (userId) => badges.filter((b) => b.badge.user_id === userId),
    saveConnections: async (changed) => {
      for (const r of changed) rows.set(r.id, r);
    },
    appendEvents: async (e) => {
      events.push(...e);
    },
  };
  return { rows, events, tx, store: { transaction: <T>(work: (x: ConnectionTx) => Promise<T>) => work(tx) } };
};

const kinds = (events: EventRecord[]) => events.map((e) => e.event_type);

t.test("records follow the accounts owning their addresses", async (t) => {
  const moved = record("ann@example.org", { user_id: BOB, employee_state: "accepted" });
  const unasked = record("ann@example.org", { user_id: BOB });
  const fresh = record("ann@example.org");
  const nobody = record("nobody@example.org");
  const m = memory([], { [ANN]: ["ann@example.org"] });
  const out = await reconcileRecords(m.tx, ctx, EMPLOYER, [moved, unasked, fresh, nobody]);
  t.same(
    out.records.map((r) => [r.user_id, r.employee_state]),
    [
      [ANN, "created"],
      [ANN, "created"],
      [ANN, "created"],
      [null, "created"],
    ],
  );
  // Only the association Bob had been asked about is told ended; the new ones wait for Ann's prompt.
  t.same(kinds(out.events), ["employment.user_account.disassociated"]);
  t.same(await reconcileRecords(m.tx, ctx, EMPLOYER, []), { records: [], events: [] });
});

t.test("an account's addresses: associate, prompt once, decide, lose the address", async (t) => {
  const ann = record("ann@example.org");
  const m = memory([ann], { [ANN]: ["ann@example.org"] }, [
    held("b1", ANN, "accepted", true),
    held("b2", ANN, "accepted", false),
  ]);
  await syncAccountConnections(m.tx, ctx, ANN);
  t.equal(m.rows.get(ann.id)?.user_id, ANN);
  const [first] = await visitConnections(m.store, ctx, ANN);
  t.equal(first?.record.employee_state, "pending");
  t.equal(m.rows.get(ann.id)?.employee_state_updated_at, NOW);
  await visitConnections(m.store, ctx, ANN);
  t.same(kinds(m.events), ["employment.user_account.associated", "employment.connection.pending"], "prompted once");

  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => "resolved",
      (e) => (isCoreError(e) ? e.code : "other"),
    );
  t.equal(await codeOf(decideConnection(m.store, ctx, URLS, BOB, ann.id, "accept")), "not_found", "not Bob's");
  t.equal(await codeOf(decideConnection(m.store, ctx, URLS, ANN, newId(), "accept")), "not_found");
  t.equal(await codeOf(decideConnection(m.store, ctx, URLS, ANN, ann.id, "disconnect")), "validation_failed");
  const accepted = await decideConnection(m.store, ctx, URLS, ANN, ann.id, "accept");
  t.equal(accepted.record.employee_state, "accepted");
  const detail = m.events.at(-1)?.detail as { employment: { badges: Array<{ id: string }> } };
  t.same(
    detail.employment.badges.map((b) => b.id),
    ["b1"],
    "only accepted public badges",
  );

  // The address removed: disassociated, back to created.
  const gone = memory([...m.rows.values()], { [ANN]: [] });
  await syncAccountConnections(gone.tx, ctx, ANN);
  t.same(kinds(gone.events), ["employment.user_account.disassociated"]);
  t.match(gone.rows.get(ann.id), { user_id: null, employee_state: "created" });
});

t.test("badge changes reach only the employers that see them", async (t) => {
  const ann = record("ann@example.org", { user_id: ANN, employee_state: "accepted" });
  const pendingOnly = record("bob@example.org", { user_id: BOB, employee_state: "pending" });
  const check = async (
    before: HeldBadge | null,
    after: HeldBadge | null,
    expected: string[],
    name: string,
    badges: HeldBadge[] = [],
  ) => {
    const m = memory([ann, pendingOnly], {}, badges);
    await followBadgeChange(m.tx, ctx, URLS, before, after);
    t.same(kinds(m.events), expected, name);
  };
  await check(
    held("x", ANN, "pending", true),
    held("x", ANN, "accepted", true),
    ["employment.badges.added"],
    "accepted",
  );
  await check(
    held("x", ANN, "accepted", true),
    held("x", ANN, "revoked", true),
    ["employment.badges.state_changed", "employment.badges.removed"],
    "revoked",
  );
  await check(
    held("x", ANN, "accepted", true),
    held("x", ANN, "accepted", false),
    ["employment.badges.privacy_changed", "employment.badges.removed"],
    "made private",
  );
  await check(
    held("x", ANN, "accepted", true),
    held("x", ANN, "replaced", true),
    ["employment.badges.state_changed", "employment.badges.removed"],
    "replaced",
  );
  await check(held("x", ANN, "accepted", true), null, ["employment.badges.removed"], "deleted");
  await check(held("x", ANN, "pending", true), held("x", ANN, "pending", false), [], "not viewable either way");
  await check(held("x", BOB, "pending", true), held("x", BOB, "accepted", true), [], "Bob's employer is not connected");
  await check(held("x", BOB, "accepted", true), held("x", ANN, "accepted", true), ["employment.badges.added"], "moved");
});

t.test("workforce authorization: set, and an unknown organization", async (t) => {
  const authorized = new Map([[ORG, false]]);
  const deps = {
    authorization: {
      get: async (id: string) => authorized.get(id) ?? null,
      set: async (id: string, value: boolean) => {
        if (!authorized.has(id)) return false;
        authorized.set(id, value);
        return true;
      },
    },
  };
  t.same(await setWorkforceAuthorization(deps, ORG.toUpperCase(), true), {
    organization_id: ORG,
    workforce_authorized: true,
  });
  t.equal(authorized.get(ORG), true);
  const refused = await setWorkforceAuthorization(deps, OTHER, true).catch((e) => e);
  t.ok(isCoreError(refused) && refused.code === "not_found");
});
