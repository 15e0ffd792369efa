import t from "tap";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import type { Database } from "../../adapters/db/mod.ts";
import {
  appendEvents,
  postgresEventFigures,
  postgresOutbox,
  postgresWebhookLogPartitions,
} from "../../adapters/db/mod.ts";
import type { Queryable, Statement } from "../../adapters/db/sql.ts";
import { badgeEvent, type EventRecord } from "../../core/events/mod.ts";
import { weekStart } from "../../core/webhooks/mod.ts";
import { startLaurel } from "../support/laurel.ts";
import { BADGE, recordEvents } from "../support/webhooks.ts";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** A database whose transactions run the relay's read once more under EXPLAIN ANALYZE (its locks are the transaction's). */
const explainingRelay = (db: Database): { plans: PlanNode[]; spy: Database } => {
  const plans: PlanNode[] = [];
  const spy = {
    transaction: <T>(work: (tx: Queryable) => Promise<T>) =>
      db.transaction((tx) => {
        const explained = async (sql: string, params?: readonly unknown[]) => {
          if (!sql.trimStart().startsWith("with l as")) return;
          const [row] = await tx.all<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
            `explain (analyze, format json) ${sql}`,
            params,
          );
          const plan = row?.["QUERY PLAN"][0]?.Plan;
          if (plan) plans.push(plan);
        };
        return work({
          all: async <R>(sql: string, params?: readonly unknown[]) => {
            await explained(sql, params);
            return tx.all<R>(sql, params);
          },
          one: (sql, params) => tx.one(sql, params),
          run: (sql, params) => tx.run(sql, params),
          prepared: async <R>(s: Statement, params: readonly unknown[]) => {
            await explained(s.text, params);
            return tx.prepared<R>(s, params);
          },
        });
      }),
  } as unknown as Database;
  return { plans, spy };
};

/** One poll of 500, its relay read run once more under EXPLAIN ANALYZE: what it published, and that plan. */
const explainedPoll = async (db: Database): Promise<{ published: string[]; plan: PlanNode }> => {
  const { plans, spy } = explainingRelay(db);
  let published: string[] = [];
  await postgresOutbox(spy).relayBatch(500, async (events) => {
    published = events.map((e) => e.id);
  });
  const plan = plans[0];
  if (!plan) throw new Error("the poll ran no statement");
  return { published, plan };
};

/**
 * The relay's poll and the /metrics figures read the pending work only (migration 027): many
 * organizations whose events are all published cost the poll nothing, and the figures, kept as
 * events are recorded and published, equal the sums over every organization.
 */
t.test("relay poll and figures follow the pending work", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const figures = postgresEventFigures(laurel.db);
  const sums = async () => {
    const [row] = await laurel.db.all<{ total: string; unpublished: string }>(
      `select coalesce(sum(n.total), 0)::text as total, coalesce(sum(n.total - r.published_seq), 0)::text as unpublished
       from event_counts n join event_relay_cursors r on r.organization_id = n.organization_id`,
    );
    return { total: Number(row?.total), unpublished: Number(row?.unpublished) };
  };
  const a = (await laurel.createOrganization("A")).organization.id;
  const b = (await laurel.createOrganization("B")).organization.id;
  const base = await sums();

  await t.test("figures equal the sums over every organization as events are recorded and published", async (t) => {
    await recordEvents(laurel.db, a, 7);
    await recordEvents(laurel.db, b, 3);
    t.same({ total: await figures.recordedTotal(), unpublished: await figures.unpublished() }, await sums());
    t.equal((await sums()).total, base.total + 10);
    const outbox = postgresOutbox(laurel.db);
    await outbox.relayBatch(4, async () => {});
    t.same({ total: await figures.recordedTotal(), unpublished: await figures.unpublished() }, await sums());
    while ((await outbox.relayBatch(500, async () => {})) > 0);
    t.same({ total: await figures.recordedTotal(), unpublished: await figures.unpublished() }, await sums());
    t.equal(await figures.unpublished(), 0);
    t.same(await laurel.db.all("select organization_id from event_relay_pending"), [], "no organization is marked");
    await recordEvents(laurel.db, a, 2);
    t.same(await laurel.db.all("select organization_id::text from event_relay_pending"), [{ organization_id: a }]);
    t.same({ total: await figures.recordedTotal(), unpublished: await figures.unpublished() }, await sums());
    while ((await outbox.relayBatch(500, async () => {})) > 0);
  });

  await t.test("a poll over 5,000 idle organizations reads only the pending ones", async (t) => {
    // Idle organizations: events recorded long ago, all published.
    await laurel.db.run(`with o as (
        insert into organizations (id, name, created_at, updated_at)
        select gen_random_uuid(), 'idle ' || i, now(), now() from generate_series(1, 5000) i returning id
      ) insert into event_counts (organization_id, total) select id, 3 from o`);
    await laurel.db.run("update event_relay_cursors set published_seq = 3 where published_seq = 0");
    await laurel.db.run("analyze event_counts");
    await laurel.db.run("analyze event_relay_cursors");
    const pending = await recordEvents(laurel.db, b, 4);
    // The /metrics figures over the same organizations: their plan, as the database ran it.
    const figurePlans: PlanNode[] = [];
    const explaining = {
      all: async <R>(sql: string, params?: readonly unknown[]) => {
        const [row] = await laurel.db.all<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
          `explain (analyze, format json) ${sql}`,
          params,
        );
        const plan = row?.["QUERY PLAN"][0]?.Plan;
        if (plan) figurePlans.push(plan);
        return laurel.db.all<R>(sql, params);
      },
    } as unknown as Database;
    t.equal(await postgresEventFigures(explaining).unpublished(), 4, "the figures see the four pending events");
    const figureReads = figurePlans
      .flatMap(nodes)
      .filter((n) => n["Relation Name"] === "event_counts" || n["Relation Name"] === "event_relay_cursors");
    t.ok(figureReads.length >= 2, "the figures read the counters and cursors");
    t.same(
      figureReads.filter((n) => n["Node Type"] === "Seq Scan"),
      [],
      "the figures scan neither counters nor cursors whole",
    );
    const { published, plan } = await explainedPoll(laurel.db);
    t.same(
      published,
      pending.map((e) => e.id),
      "the pending events, in order",
    );
    const onCounters = nodes(plan).filter(
      (n) => n["Relation Name"] === "event_counts" || n["Relation Name"] === "event_relay_cursors",
    );
    t.ok(onCounters.length >= 2, "the counters and cursors are read");
    t.same(
      onCounters.filter((n) => n["Node Type"] === "Seq Scan"),
      [],
      "neither counters nor cursors are scanned whole",
    );
    const rowsRead = onCounters.reduce((sum, n) => sum + (n["Actual Rows"] ?? 0) * (n["Actual Loops"] ?? 1), 0);
    t.ok(rowsRead <= 2, `rows of counters and cursors read: ${rowsRead} (one pending organization)`);
    t.equal(await figures.unpublished(), 0);
  });

  await t.test("a poll probes the weeks since the organization's earliest pending event only", async (t) => {
    const week = 7 * 86_400_000;
    const thisWeek = weekStart(new Date()).getTime();
    const weeks = Array.from({ length: 12 }, (_, i) => new Date(thisWeek - (12 - i) * week));
    await postgresWebhookLogPartitions(laurel.db).ensure(weeks);
    const c = (await laurel.createOrganization("C")).organization.id;
    const at = (ms: number): EventRecord =>
      badgeEvent("badge.created", BADGE, { id: uuidv7(), organization_id: c, occurred_at: new Date(ms) });
    // Twelve weeks of published history, one event a day.
    await appendEvents(
      laurel.db,
      Array.from({ length: 84 }, (_, i) => at(thisWeek - 12 * week + i * 86_400_000 + 3_600_000)),
    );
    const outbox = postgresOutbox(laurel.db);
    while ((await outbox.relayBatch(500, async () => {})) > 0);
    const fresh = await recordEvents(laurel.db, c, 3);
    const [mark] = await laurel.db.all<{ since: Date }>(
      "select since from event_relay_pending where organization_id = ?",
      [c],
    );
    t.same(mark?.since, fresh[0]?.occurred_at, "the mark holds the earliest pending event's time");
    const [bounds] = await laurel.db.all<{ until: Date; hour: Date }>(
      `select until, date_trunc('hour', ?::timestamptz) + interval '1 hour' as hour
       from event_relay_pending where organization_id = ?`,
      [fresh[2]?.occurred_at, c],
    );
    t.same(bounds?.until, bounds?.hour, "and the hour after the latest");

    const { published: first, plan } = await explainedPoll(laurel.db);
    t.same(
      first,
      fresh.map((e) => e.id),
      "the pending events, in order",
    );
    const probed = nodes(plan).filter(
      (n) => n["Relation Name"]?.startsWith("events_p") && (n["Actual Loops"] ?? 0) > 0,
    );
    const weekOf = (name = "") => Date.parse(name.replace(/^events_p(\d{4})(\d{2})(\d{2})$/, "$1-$2-$3T00:00:00Z"));
    t.ok(
      probed.some((n) => weekOf(n["Relation Name"]) === thisWeek),
      "the week of the pending events is read",
    );
    t.same(
      probed.filter((n) => weekOf(n["Relation Name"]) < thisWeek).map((n) => n["Relation Name"]),
      [],
      "no week of history before the pending events is probed",
    );
    // Nor set up: the recent read's horizon leaves the weeks before last week out of the statement.
    t.same(
      nodes(plan)
        .map((n) => n["Relation Name"] ?? "")
        .filter((name) => name.startsWith("events_p") && weekOf(name) < thisWeek - week),
      [],
      "the weeks before last week are not in the statement at all",
    );
    // Nor the weeks made in advance, past the day ahead that the recent read's window reaches.
    const ahead = weekStart(new Date(Date.now() + 86_400_000)).getTime();
    t.same(
      nodes(plan)
        .map((n) => n["Relation Name"] ?? "")
        .filter((name) => name === "events_default" || (name.startsWith("events_p") && weekOf(name) > ahead)),
      [],
      "neither the weeks ahead nor the default partition are in the statement",
    );
    t.ok(
      (await laurel.db.all("select 1 from pg_inherits where inhparent = 'events'::regclass")).length > 12 + 2,
      "weeks ahead exist",
    );

    // An event dated before the mark's time (a back-dated record) lowers it and is published.
    await recordEvents(laurel.db, c, 1);
    const old = at(thisWeek - 5 * week);
    await appendEvents(laurel.db, [old]);
    const [lowered] = await laurel.db.all<{ since: Date }>(
      "select since from event_relay_pending where organization_id = ?",
      [c],
    );
    t.same(lowered?.since, old.occurred_at, "the earlier event lowers the mark's time");
    const published: string[] = [];
    while (
      (await outbox.relayBatch(500, async (events) => {
        published.push(...events.map((e) => e.id));
      })) > 0
    );
    t.ok(published.includes(old.id), "the back-dated event is published");
    t.same(await laurel.db.all("select 1 from event_relay_pending where organization_id = ?", [c]), []);

    // An event dated past the window (a clock ahead) raises the mark's end and is published.
    const ahead3 = at(Date.now() + 3 * 86_400_000);
    await appendEvents(laurel.db, [ahead3]);
    const [raised] = await laurel.db.all<{ until: Date }>(
      "select until from event_relay_pending where organization_id = ?",
      [c],
    );
    t.ok((raised?.until.getTime() ?? 0) > ahead3.occurred_at.getTime(), "the later event raises the mark's end");
    const later: string[] = [];
    while ((await outbox.relayBatch(500, async (events) => void later.push(...events.map((e) => e.id)))) > 0);
    t.same(later, [ahead3.id], "the event dated ahead is published");
    t.same(await laurel.db.all("select 1 from event_relay_pending where organization_id = ?", [c]), []);
  });

  await t.test("older marks get up to half of a batch first; nothing is read twice or skipped", async (t) => {
    const week = 7 * 86_400_000;
    const [d, e] = await Promise.all([laurel.createOrganization("D"), laurel.createOrganization("E")]);
    const recentOrg = d.organization.id;
    const olderOrg = e.organization.id;
    const outbox = postgresOutbox(laurel.db);
    while ((await outbox.relayBatch(500, async () => {})) > 0);
    const event = (organization_id: string, ms: number): EventRecord =>
      badgeEvent("badge.created", BADGE, { id: uuidv7(), organization_id, occurred_at: new Date(ms) });
    const fresh = await recordEvents(laurel.db, recentOrg, 3);
    const backdated = [event(olderOrg, Date.now() - 3 * week), event(olderOrg, Date.now() - 3 * week + 1)];
    await appendEvents(laurel.db, backdated);
    const ids = (events: { id: string }[]) => events.map((x) => x.id);
    /** The store over a transaction whose statements `spy` sees as they are sent. */
    const spying = (spy: (sql: string) => Promise<void>) =>
      ({
        transaction: <T>(work: (tx: Queryable) => Promise<T>) =>
          laurel.db.transaction((tx) =>
            work({
              all: async <R>(sql: string, params?: readonly unknown[]) => {
                const got = await tx.all<R>(sql, params);
                await spy(sql);
                return got;
              },
              one: (sql, params) => tx.one(sql, params),
              run: (sql, params) => tx.run(sql, params),
              prepared: async <R>(s: Statement, params: readonly unknown[]) => {
                const got = await tx.prepared<R>(s, params);
                await spy(s.name);
                return got;
              },
            }),
          ),
      }) as unknown as Database;

    // A batch of four: the older organization's two first (half the batch), then two recent ones.
    const sent: string[] = [];
    const first: string[] = [];
    await postgresOutbox(spying(async (name) => void sent.push(name))).relayBatch(
      4,
      async (events) => void first.push(...ids(events)),
    );
    t.same(
      sent.filter((name) => name.startsWith("relay_")),
      ["relay_pending_any_outside", "relay_pending_outside", "relay_pending"],
      "whether marks lie outside the window, the read outside it, then the recent one",
    );
    t.same([...first].sort(), [...ids(backdated), ...ids(fresh).slice(0, 2)].sort(), "half the batch each");

    // Between the two steps of the next batch, a back-dated event of the recent organization lowers
    // its mark: the recent read no longer takes it, and the next batch takes it whole.
    const lowered = event(recentOrg, Date.now() - 2 * week);
    const second: string[] = [];
    await postgresOutbox(
      spying(async (sql) => {
        if (sql.includes("any_outside")) await appendEvents(laurel.db, [lowered]);
      }),
    ).relayBatch(500, async (events) => void second.push(...ids(events)));
    t.same(second, [], "no older mark when the batch began, and the recent one lowered meanwhile");
    const after: string[] = [];
    while ((await outbox.relayBatch(500, async (events) => void after.push(...ids(events)))) > 0);
    t.same([...after].sort(), [ids(fresh)[2] as string, lowered.id].sort(), "the rest, once each");
    t.same(
      await laurel.db.all("select 1 from event_relay_pending where organization_id = any(?::uuid[])", [
        `{${recentOrg},${olderOrg}}`,
      ]),
      [],
    );
  });
});
