import t from "tap";
import { EVENTS_CHANNEL } from "../../adapters/db/mod.ts";
import { startLaurel } from "../support/laurel.ts";
import { makeTestCa, recordEvents, startTestPipeline, waitFor, webhookEnv } from "../support/webhooks.ts";

/**
 * The relay wakes on PostgreSQL NOTIFY through a connection of its own. When that connection
 * breaks (a database restart, an administrator's kill), the relay polls, and listens again once
 * the database answers: checked against real PostgreSQL by terminating the listening backend.
 */
t.test("a terminated LISTEN connection is replaced", async (t) => {
  const ca = makeTestCa();
  const laurel = await startLaurel();
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), {
    relay: { fastPollMs: 20, pollMs: 200, relistenMs: 200 },
  });
  t.teardown(async () => {
    await pipeline.stop();
    await laurel.close();
    ca.remove();
  });
  const listeners = async (): Promise<number[]> =>
    (
      (await laurel.db.all("select pid from pg_stat_activity where datname = current_database() and query = ?", [
        `listen ${EVENTS_CHANNEL}`,
      ])) as Array<{ pid: number }>
    ).map((r) => r.pid);

  const [first] = await waitFor("the relay's LISTEN connection", async () => {
    const pids = await listeners();
    return pids.length === 1 ? pids : undefined;
  });
  await laurel.db.all("select pg_terminate_backend(?)", [first]);
  const second = await waitFor("a new LISTEN connection", async () => {
    const pids = await listeners();
    return pids.length === 1 && pids[0] !== first ? pids[0] : undefined;
  });
  t.not(second, first, "a new backend listens");

  // And the relay still publishes what commits afterwards.
  const { organization } = await laurel.createOrganization("After the restart");
  const [event] = await recordEvents(laurel.db, organization.id, 1);
  await waitFor("the event published", async () => {
    const rows = (await laurel.db.all(
      `select e.seq <= r.published_seq as published from events e
         join event_relay_cursors r on r.organization_id = e.organization_id where e.id = ?`,
      [event?.id],
    )) as Array<{ published: boolean }>;
    return rows[0]?.published ? true : undefined;
  });
  t.pass("the event recorded after the kill was published");
});

/**
 * Between polls the relay looks only at the organizations its notifications named: with a poll a
 * minute apart, events committed after the relay started are published at once all the same.
 */
t.test("notifications name the organization; the relay publishes it without waiting for a poll", async (t) => {
  const ca = makeTestCa();
  const laurel = await startLaurel();
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { relay: { pollMs: 60_000 } });
  t.teardown(async () => {
    await pipeline.stop();
    await laurel.close();
    ca.remove();
  });
  // Past the relay's first look at every organization.
  await new Promise((r) => setTimeout(r, 300));
  const { organization } = await laurel.createOrganization("Named");
  const events = await recordEvents(laurel.db, organization.id, 3);
  const started = Date.now();
  await waitFor(
    "the events published",
    async () => {
      const rows = (await laurel.db.all("select published_seq from event_relay_cursors where organization_id = ?", [
        organization.id,
      ])) as Array<{
        published_seq: string | number;
      }>;
      return Number(rows[0]?.published_seq) === events.length ? true : undefined;
    },
    10_000,
  );
  t.ok(Date.now() - started < 10_000, "published long before the next poll");
});
