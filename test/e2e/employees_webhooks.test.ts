import t from "tap";
import { Value } from "typebox/value";
import { EmploymentEventDetailSchema, EmploymentSchema } from "../../core/events/mod.ts";
import { apiClient, trpc } from "../support/badges.ts";
import { startDeliveringLaurel, waitFor, webhookOrganization } from "../support/webhooks.ts";

/** employment.created, .updated and .deleted from the REST API, delivered to a webhook receiver. */
t.test("each REST change of an employee is delivered, and its detail has the documented shape", async (t) => {
  const { laurel, receiver } = await startDeliveringLaurel(t);
  const api = apiClient(laurel);
  const org = await webhookOrganization(laurel, {
    url: receiver.url,
    events: ["employment.created", "employment.updated", "employment.deleted"],
  });
  await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
  const path = `/organizations/${org.id}/employees`;
  const created = await api("POST", path, org.auth, {
    email: "hook@example.com",
    first_name: "Hook",
    last_name: "Ed",
    external_id: "W-1",
  });
  const id = created.body.data.id;
  const updated = await api("PUT", `${path}/${id}`, org.auth, { department: "Hooks" });
  t.equal((await api("DELETE", `${path}/${id}`, org.auth)).status, 204);

  await waitFor("three deliveries", () => receiver.received.length >= 3);
  t.same(receiver.verify([org.secret]), [], "signed");
  const kinds = receiver.received.map((r) => r.json.event_type).sort();
  t.same(kinds, ["employment.created", "employment.deleted", "employment.updated"]);
  for (const delivery of receiver.received) {
    const detail = (await api("GET", `/organizations/${org.id}/events/${delivery.json.id}`, org.auth)).body.data;
    t.ok(Value.Check(EmploymentEventDetailSchema, detail), `${detail.event_type}: the detail's schema`);
    if (detail.event_type === "employment.deleted")
      t.same(detail.employment, { id, email: "hook@example.com", external_id: "W-1" }, "deleted: reduced");
    else t.ok(Value.Check(EmploymentSchema, detail.employment), `${detail.event_type}: the full employment`);
    if (detail.event_type === "employment.updated") t.same(detail.employment, updated.body.data);
  }
});
