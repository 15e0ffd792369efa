import t from "tap";
import { postgresEventFigures, postgresOutbox } from "../../adapters/db/mod.ts";
import type { OutboxEvent } from "../../core/events/mod.ts";
import { startLaurel } from "../support/laurel.ts";
import { recordEvents } from "../support/webhooks.ts";

/**
 * The relay's outbox on real PostgreSQL (migration 005): a cursor per organization instead of a
 * mark per event. What a relay takes, in what order, what a failed publish leaves, and how two
 * relays running at once split the work.
 */
t.test("relay cursors", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const outbox = postgresOutbox(laurel.db);
  const figures = postgresEventFigures(laurel.db);
  const a = (await laurel.createOrganization("A")).organization.id;
  const b = (await laurel.createOrganization("B")).organization.id;
  const aEvents = await recordEvents(laurel.db, a, 5);
  const bEvents = await recordEvents(laurel.db, b, 2);
  t.equal(await figures.unpublished(), 7, "seven events wait");

  /** One batch; what it handed to `publish`. */
  const take = async (limit: number): Promise<OutboxEvent[]> => {
    let got: OutboxEvent[] = [];
    const n = await outbox.relayBatch(limit, async (events) => {
      got = events;
    });
    t.equal(n, got.length, "the count returned is what was published");
    return got;
  };
  const ids = (events: OutboxEvent[], org: string) => events.filter((e) => e.organization_id === org).map((e) => e.id);

  await t.test("a failed publish moves no cursor", async (t) => {
    await t.rejects(
      outbox.relayBatch(10, async () => {
        throw new Error("bus away");
      }),
      /bus away/,
    );
    t.equal(await figures.unpublished(), 7, "still seven");
  });

  await t.test("batches take each organization's events in order, round robin, once", async (t) => {
    const first = await take(3);
    t.equal(first.length, 3);
    // Rank 1 of each organization, then rank 2 of one: both organizations are served at once.
    t.same(ids(first, b).slice(0, 1), [bEvents[0]?.id], "B's first event is in the first batch");
    t.same(
      ids(first, a),
      aEvents.slice(0, ids(first, a).length).map((e) => e.id),
      "A's taken events are its first ones",
    );
    t.same(first[0]?.occurred_at instanceof Date, true, "occurred_at is a Date");
    const rest = [...(await take(3)), ...(await take(3))];
    const all = [...first, ...rest];
    t.same(
      ids(all, a),
      aEvents.map((e) => e.id),
      "every event of A once, in recording order",
    );
    t.same(
      ids(all, b),
      bEvents.map((e) => e.id),
      "every event of B once, in recording order",
    );
    t.same(await take(10), [], "nothing left");
    t.equal(await figures.unpublished(), 0);
  });

  await t.test("two relays at once take disjoint organizations", async (t) => {
    const a2 = await recordEvents(laurel.db, a, 3);
    const b2 = await recordEvents(laurel.db, b, 3);
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let firstGot: OutboxEvent[] = [];
    let entered: () => void = () => {};
    const inPublish = new Promise<void>((r) => {
      entered = r;
    });
    // The first relay takes one organization (limit 1 locks one cursor) and stalls in its publish.
    const first = outbox.relayBatch(1, async (events) => {
      firstGot = events;
      entered();
      await held;
    });
    await inPublish;
    const firstOrg = firstGot[0]?.organization_id;
    const otherOrg = firstOrg === a ? b : a;
    const second = await take(10);
    t.ok(second.length > 0, "the second relay is not blocked");
    t.same(
      second.map((e) => e.organization_id).filter((o) => o !== otherOrg),
      [],
      "it takes only the organization the first relay does not hold",
    );
    t.same(
      second.map((e) => e.id),
      (otherOrg === a ? a2 : b2).map((e) => e.id),
    );
    release();
    t.equal(await first, 1);
    // The first relay's organization goes on from where its cursor now stands.
    const rest = await take(10);
    t.same(
      [...firstGot, ...rest].map((e) => e.id),
      (firstOrg === a ? a2 : b2).map((e) => e.id),
    );
    t.equal(await figures.unpublished(), 0);
  });

  await t.test("a batch for named organizations looks at those only", async (t) => {
    const a3 = await recordEvents(laurel.db, a, 2);
    const b3 = await recordEvents(laurel.db, b, 2);
    let got: OutboxEvent[] = [];
    t.equal(
      await outbox.relayBatch(
        10,
        async (events) => {
          got = events;
        },
        [b],
      ),
      2,
    );
    t.same(
      got.map((e) => e.id),
      b3.map((e) => e.id),
      "B's events only",
    );
    t.same(
      (await take(10)).map((e) => e.id),
      a3.map((e) => e.id),
      "A's are still there for a look at everyone",
    );
  });

  await t.test("a new organization's first events are relayed (its cursor is made with its counter)", async (t) => {
    const c = (await laurel.createOrganization("C")).organization.id;
    const cEvents = await recordEvents(laurel.db, c, 2);
    t.same(
      (await take(10)).map((e) => e.id),
      cEvents.map((e) => e.id),
    );
  });
});
