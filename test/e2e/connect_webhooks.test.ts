import { randomUUID } from "node:crypto";
import t from "tap";
import { postgresConnectStore } from "../../adapters/db/mod.ts";
import { removeAccess } from "../../core/connect/mod.ts";
import { startDeliveringLaurel, waitFor, webhookOrganization } from "../support/webhooks.ts";

/** `user.connect_access.removed` goes out as a webhook to the application's organization, once. */
t.test("removing access is delivered to the organization's webhook receiver", async (t) => {
  const { laurel, receiver } = await startDeliveringLaurel(t);
  const org = await webhookOrganization(laurel, { url: receiver.url, events: ["user.connect_access.removed"] });

  // A grant as the consent page leaves it (the page itself is tested in connect_flow.test.ts).
  const userId = randomUUID();
  const grantId = randomUUID();
  const now = new Date();
  const sql = laurel.db;
  await sql.all("insert into users (id, first_name, last_name, created_at, updated_at) values (?, ?, ?, ?, ?)", [
    userId,
    "Ada",
    "Lovelace",
    now,
    now,
  ]);
  await sql.all(
    `insert into connect_grants (id, user_id, application_id, organization_id, scopes, created_at, updated_at)
     values (?, ?, ?, ?, 'public_badges', ?, ?)`,
    [grantId, userId, org.applicationId, org.id, now, now],
  );
  const store = postgresConnectStore(laurel.db);
  t.same(await store.connectedOrganizations([userId]), [org.id]);
  const ctx = { now, newEventId: () => randomUUID() };
  t.equal(await removeAccess(store, ctx, randomUUID(), grantId), false, "another earner cannot remove it");
  t.equal(await removeAccess(store, ctx, userId, grantId), true);
  t.equal(await removeAccess(store, ctx, userId, grantId), false, "removing twice does nothing");
  t.same(await store.connectedOrganizations([userId]), []);

  await waitFor("the delivery", () => receiver.received.length >= 1);
  t.same(receiver.verify([org.secret]), [], "signed");
  const delivery = receiver.received[0];
  t.equal(delivery?.json.event_type, "user.connect_access.removed");
  t.equal(delivery?.json.organization_id, org.id);
  // The delivery names the event; its detail is read from the events API.
  const detail = await fetch(`${laurel.baseUrl}/organizations/${org.id}/events/${delivery?.json.id}`, {
    headers: { authorization: org.auth },
  });
  t.equal(((await detail.json()) as { data: { user_id: string } }).data.user_id, userId);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.received.length, 1, "one event for one removal");
});
