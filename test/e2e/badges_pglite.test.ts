import t from "tap";
import {
  apiClient,
  createTemplate,
  eventRows,
  eventually,
  issueBody,
  organization,
  rowXmin,
  trpc,
} from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { checkAssertion, expandStrict } from "../support/ob2/check.ts";

/** Badges on the embedded database (PGlite, one connection): the same migrations, SQL and rules. */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel({ database: "pglite" });
});
t.teardown(() => laurel.close());

t.test("templates, issuing, duplicates, earners, events and the hosted assertion on PGlite", async (t) => {
  t.equal(laurel.db.kind, "pglite");
  const api = apiClient(laurel);
  const org = await organization(laurel, "Embedded Org");
  const tpl = await createTemplate(laurel, org, { skills: ["embedded"] });
  t.same(
    (await api("GET", `${org.templates}?skills=embedded&sort=name`, org.auth)).body.data.map(
      (x: { id: string }) => x.id,
    ),
    [tpl.id],
  );
  const user = (await trpc(laurel, "users.create", {
    email: "ada@example.org",
    first_name: "Ada",
    last_name: "Lovelace",
    confirmed: true,
  })) as { id: string };

  const results = await Promise.all(
    Array.from({ length: 5 }, () => api("POST", org.badges, org.auth, issueBody(tpl.id))),
  );
  t.same(results.map((r) => r.status).sort(), [201, 422, 422, 422, 422], "one badge per recipient, concurrently too");
  const badge = results.find((r) => r.status === 201)?.body.data;
  t.same(badge.user, { id: user.id });
  const [created] = await eventRows(laurel, org.id, "badge.created");
  t.equal(created?.xmin, await rowXmin(laurel, "badges", badge.id), "badge and event in one transaction");
  await eventually(async () => (await eventRows(laurel, org.id, "pending_badge_notification.sent"))[0]);

  await trpc(laurel, "badges.accept", { badge_id: badge.id });
  const doc = await (await fetch(`${laurel.baseUrl}/obi/v2/badge_assertions/${badge.id}`)).json();
  t.same(checkAssertion(doc, { now: new Date(), email: "ada@example.org" }), []);
  t.ok(await expandStrict(doc));

  const replaced = await api("POST", `${org.badges}/${badge.id}/replace`, org.auth, {
    issued_at: "2024-05-01T00:00:00Z",
  });
  t.equal(replaced.status, 201);
  t.equal((await api("PUT", `${org.badges}/${replaced.body.data.id}/revoke`, org.auth, { reason: "x" })).status, 200);
  t.equal((await api("DELETE", `${org.badges}/${replaced.body.data.id}`, org.auth)).status, 204);
  t.same(
    (await eventRows(laurel, org.id))
      .map((e) => e.event_type)
      .filter((k) => !k.startsWith("pending_badge_notification")),
    [
      "badge_template.created",
      "badge.created",
      "badge.state.changed",
      "badge.state.changed",
      "badge.created",
      "badge.state.changed",
      "badge.deleted",
    ],
  );
});
