import t from "tap";
import { startLaurel, trpcMutation } from "../support/laurel.ts";
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
 * A worker caches an organization's delivery settings; a change made through the internal tools
 * reaches it over NATS before the tool answers. The cache here lasts a minute, so only that
 * message can explain why the next event follows the new settings.
 */
t.test("settings changed by the tools apply to the very next event", async (t) => {
  const ca = makeTestCa();
  const laurel = await startLaurel();
  const first = await startReceiver(ca);
  const second = await startReceiver(ca);
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca), { targetCacheMs: 60_000 });
  t.teardown(async () => {
    await pipeline.stop();
    await first.close();
    await second.close();
    await laurel.close();
    ca.remove();
  });
  const admin = laurel.server.adminToken;
  const org = await webhookOrganization(laurel, { url: first.url, events: "all" });

  const [one] = await recordEvents(laurel.db, org.id, 1);
  await waitFor("the first event at the first receiver", () => first.received.length === 1);
  t.equal(first.received[0]?.json.id, one?.id);

  // A new webhook_url: the next event goes there, not to the cached one.
  await trpcMutation(laurel.adminOrigin, admin, "webhooks.update", {
    organization_id: org.id,
    webhook_url: second.url,
  });
  const [two] = await recordEvents(laurel.db, org.id, 1);
  await waitFor("the second event at the second receiver", () => second.received.length === 1);
  t.equal(second.received[0]?.json.id, two?.id);
  t.equal(first.received.length, 1, "nothing more at the old address");

  // A rotated secret: the next event is signed with the new one too.
  const rotated = (await trpcMutation(laurel.adminOrigin, admin, "webhooks.secret", {
    organization_id: org.id,
    rotate: true,
  })) as { secret: string; previous_secret?: string };
  t.not(rotated.secret, org.secret);
  const [three] = await recordEvents(laurel.db, org.id, 1);
  await waitFor("the third event", () => second.received.length === 2);
  t.equal(second.received[1]?.json.id, three?.id);
  t.same(second.verify([rotated.secret], second.received.slice(1)), [], "it verifies with the new secret alone");

  // Data services off on the organization's only application: nothing more is posted.
  await trpcMutation(laurel.adminOrigin, admin, "oauthApplications.setDataServices", {
    organization_id: org.id,
    application_id: org.applicationId,
    enabled: false,
  });
  const [four] = await recordEvents(laurel.db, org.id, 1);
  // Then back on, and a fifth event: it arrives, and the fourth never did.
  await waitFor("the fourth event handled", async () => {
    const metrics = await pipeline.metrics.render();
    return /laurel_webhook_not_posted_total\{reason="no_data_services"\} 1/.test(metrics);
  });
  await trpcMutation(laurel.adminOrigin, admin, "oauthApplications.setDataServices", {
    organization_id: org.id,
    application_id: org.applicationId,
    enabled: true,
  });
  const [five] = await recordEvents(laurel.db, org.id, 1);
  await waitFor("the fifth event", () => second.received.length === 3);
  t.equal(second.received[2]?.json.id, five?.id);
  t.notOk(
    [...first.received, ...second.received].some((d) => d.json.id === four?.id),
    "the event recorded while data services were off was not posted",
  );
});
