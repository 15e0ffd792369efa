import t from "tap";
import { startLaurel } from "../support/laurel.ts";
import {
  makeTestCa,
  recordEvents,
  startReceiver,
  startTestPipeline,
  waitFor,
  webhookEnv,
  webhookOrganization,
} from "../support/webhooks.ts";

/**
 * A receiver down for 30 seconds while events come at about 100 a second: once it answers 200
 * again, the deliveries put off during the outage are released at once and everything arrives
 * within 30 seconds of its recovery.
 */
t.test("after a 30-second receiver outage the backlog arrives within 30 seconds", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const ca = makeTestCa();
  t.teardown(() => ca.remove());
  const receiver = await startReceiver(ca);
  t.teardown(() => receiver.close());
  let down = false;
  const delivered = new Set<string>();
  receiver.answer = (d) => {
    if (down) return { status: 503 };
    delivered.add(d.json.id);
    return { status: 200 };
  };
  const org = await webhookOrganization(laurel, { url: receiver.url });
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca));
  t.teardown(() => pipeline.stop());

  const recorded: string[] = [];
  let producing = true;
  // 100 events a second: each round records what the rate asks for by now, so a slow round
  // (a shared CPU) is made up by the next.
  const producedFrom = Date.now();
  const produce = (async () => {
    while (producing) {
      const due = Math.floor(((Date.now() - producedFrom) / 1000) * 100) - recorded.length;
      if (due > 0) for (const e of await recordEvents(laurel.db, org.id, due)) recorded.push(e.id);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await pause(3000);
  down = true;
  await pause(30_000);
  down = false;
  const recoveredAt = Date.now();
  await pause(3000);
  producing = false;
  await produce;
  t.ok(recorded.length >= 2500, `events recorded at about 100 a second (${recorded.length})`);
  const missing = () => recorded.filter((id) => !delivered.has(id));
  await waitFor("every event delivered", () => missing().length === 0, 60_000, 250).catch(() => undefined);
  const lastAt = Date.now();
  if (missing().length > 0) {
    const rows = await laurel.db.all(
      `select status, attempts_count, count(*)::int as n, min(next_attempt_at) as next, min(occurred_at) as oldest
         from webhook_deliveries where id = any(?::uuid[]) group by 1, 2`,
      [`{${missing().join(",")}}`],
    );
    t.comment(`missing deliveries: ${JSON.stringify(rows)}`);
  }
  t.same(missing().length, 0, "every event was delivered");
  t.ok(
    lastAt - recoveredAt <= 30_000,
    `within 30 s of the recovery (${Math.round((lastAt - recoveredAt) / 1000)} s, ${missing().length} missing)`,
  );
});
