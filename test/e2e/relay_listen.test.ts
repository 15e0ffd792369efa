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
      (await laurel.db
        .em()
        .getConnection()
        .execute("select pid from pg_stat_activity where datname = current_database() and query = ?", [
          `listen ${EVENTS_CHANNEL}`,
        ])) as Array<{ pid: number }>
    ).map((r) => r.pid);

  const [first] = await waitFor("the relay's LISTEN connection", async () => {
    const pids = await listeners();
    return pids.length === 1 ? pids : undefined;
  });
  await laurel.db.em().getConnection().execute("select pg_terminate_backend(?)", [first]);
  const second = await waitFor("a new LISTEN connection", async () => {
    const pids = await listeners();
    return pids.length === 1 && pids[0] !== first ? pids[0] : undefined;
  });
  t.not(second, first, "a new backend listens");

  // And the relay still publishes what commits afterwards.
  const { organization } = await laurel.createOrganization("After the restart");
  const [event] = await recordEvents(laurel.db, organization.id, 1);
  await waitFor("the event published", async () => {
    const rows = (await laurel.db
      .em()
      .getConnection()
      .execute(
        `select e.seq <= r.published_seq as published from events e
         join event_relay_cursors r on r.organization_id = e.organization_id where e.id = ?`,
        [event?.id],
      )) as Array<{ published: boolean }>;
    return rows[0]?.published ? true : undefined;
  });
  t.pass("the event recorded after the kill was published");
});
