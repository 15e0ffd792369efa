import t, { type Test } from "tap";
import { Value } from "typebox/value";
import { EmploymentSchema } from "../../core/events/mod.ts";
import { apiClient, createTemplate, issueBody, trpc } from "../support/badges.ts";
import { startEarnerWebhookServices } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

/**
 * One rule for every door: what an organization sees of its employees' workforce data with and
 * without the operator's workforce authorization. Authorized, the employment in full (connection
 * state, badges) and the external badges; not authorized, the employment reduced to `id`, `email`,
 * `external_id` on REST as in event details, and the views that are workforce data alone (the
 * external badges, a list filtered by connection state) refused with 403. Webhooks and the admin
 * import carry no employment at all. Each row is read under both authorizations.
 */

// biome-ignore lint/suspicious/noExplicitAny: REST bodies and event details of many shapes
type Json = any;

const services = await startEarnerWebhookServices();
t.teardown(services.close);
const { laurel, smtp, receiver, ca } = services;
const issuer = await startObIssuer(ca);
t.teardown(issuer.close);
const api = apiClient(laurel);

const org = await webhookOrganization(laurel, { url: receiver.url, events: "all", name: "Acme" });
const authorize = (authorized: boolean) => trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized });
const employees = `/organizations/${org.id}/employees`;

// Dee: an employee who connected, with an accepted public badge and a badge from another issuer.
const fixture = {
  id: org.id,
  auth: org.auth,
  templates: `/organizations/${org.id}/badge_templates`,
  badges: `/organizations/${org.id}/badges`,
};
const template = await createTemplate(laurel, fixture, { name: "Forklift" });
const badge = (
  await api("POST", fixture.badges, org.auth, issueBody(template.id, { recipient_email: "dee@example.org" }))
).body.data;
const dee = (
  await api("POST", employees, org.auth, {
    email: "dee@example.org",
    first_name: "Dee",
    last_name: "D",
    external_id: "D",
  })
).body.data;
const earner = httpEarner(laurel.origin, smtp);
await earner.signIn("dee@example.org");
await earner.post(`/badges/${badge.id}/accept`, { back: "wallet" });
await earner.get("/wallet");
await earner.post(`/wallet/employers/${dee.id}/accept`, {});
await earner.post("/wallet/external_badges", { url: issuer.assertion("dee@example.org") });

const eventOf = async (kind: string): Promise<string> => {
  const list = await api("GET", `/organizations/${org.id}/events?event_type=${kind}`, org.auth);
  return list.body.data[0].id;
};
const connected = await eventOf("employment.connection.accepted");
const externalAdded = await eventOf("employment.external_badges.added");

const full = (t: Test, what: string, data: Json) => {
  t.ok(Value.Check(EmploymentSchema, data), `${what}: the full employment`);
};
const reduced = (t: Test, what: string, data: Json) => {
  t.same(Object.keys(data ?? {}).sort(), ["email", "external_id", "id"], `${what}: only id, email, external_id`);
};

interface Row {
  door: string;
  read: () => Promise<{ status: number; body: Json }>;
  authorized: (t: Test, body: Json) => void;
  /** What an organization without workforce authorization gets: a body to check, or a refusal. */
  unauthorized: ((t: Test, body: Json) => void) | 403;
}

let created = 0;
const rows: Row[] = [
  {
    door: "REST GET employee",
    read: () => api("GET", `${employees}/${dee.id}`, org.auth),
    authorized: (t, b) => {
      full(t, "get", b.data);
      t.equal(b.data.employee_state, "accepted");
      t.same(
        b.data.badges.map((x: Json) => x.id),
        [badge.id],
      );
    },
    unauthorized: (t, b) => reduced(t, "get", b.data),
  },
  {
    door: "REST GET employees",
    read: () => api("GET", `${employees}?filter=external_id::D`, org.auth),
    authorized: (t, b) => {
      full(t, "list", b.data[0]);
      t.equal(b.data[0].badges.length, 1);
    },
    unauthorized: (t, b) => {
      t.equal(b.data.length, 1);
      reduced(t, "list", b.data[0]);
    },
  },
  {
    door: "REST GET employees filtered by connection state",
    read: () => api("GET", `${employees}?filter=employee_state::accepted`, org.auth),
    authorized: (t, b) =>
      t.same(
        b.data.map((e: Json) => e.id),
        [dee.id],
      ),
    unauthorized: 403,
  },
  {
    door: "REST PUT employee",
    read: () => api("PUT", `${employees}/${dee.id}`, org.auth, { team: "Yard" }),
    authorized: (t, b) => full(t, "put", b.data),
    unauthorized: (t, b) => reduced(t, "put", b.data),
  },
  {
    door: "REST POST employee",
    read: () =>
      api("POST", employees, org.auth, {
        email: `new${++created}@example.org`,
        first_name: "N",
        last_name: "N",
        external_id: `N${created}`,
      }),
    authorized: (t, b) => full(t, "post", b.data),
    unauthorized: (t, b) => reduced(t, "post", b.data),
  },
  {
    door: "REST GET external badges",
    read: () => api("GET", `${employees}/${dee.id}/external_badges`, org.auth),
    authorized: (t, b) => t.equal(b.data.length, 1),
    unauthorized: 403,
  },
  {
    door: "REST GET external badges of an unknown employee",
    read: () => api("GET", `${employees}/0190f000-0000-7000-8000-0000000000ee/external_badges`, org.auth),
    authorized: (t) => t.fail("an unknown employee is not found"),
    unauthorized: 403,
  },
  {
    door: "events: employment.connection.accepted",
    read: () => api("GET", `/organizations/${org.id}/events/${connected}`, org.auth),
    authorized: (t, b) => {
      full(t, "event", b.data.employment);
      t.equal(b.data.employment.badges.length, 1);
    },
    unauthorized: (t, b) => reduced(t, "event", b.data.employment),
  },
  {
    door: "events: employment.external_badges.added",
    read: () => api("GET", `/organizations/${org.id}/events/${externalAdded}`, org.auth),
    authorized: (t, b) => t.ok(b.data.external_badge, "the external badge"),
    unauthorized: (t, b) => {
      reduced(t, "external badge event", b.data.employment);
      t.notOk("external_badge" in b.data, "no external badge");
    },
  },
  {
    door: "tRPC workforce.importEmployees",
    read: async () => ({
      status: 200,
      body: await trpc(laurel, "workforce.importEmployees", {
        organization_id: org.id,
        employees: [{ email: "dee@example.org", first_name: "Dee", last_name: "D", external_id: "D" }],
      }),
    }),
    authorized: (t, b) => t.same(Object.keys(b[0]).sort(), ["external_id", "id", "index", "status"]),
    unauthorized: (t, b) => t.same(Object.keys(b[0]).sort(), ["external_id", "id", "index", "status"]),
  },
];

for (const authorized of [true, false]) {
  t.test(`an organization ${authorized ? "authorized" : "not authorized"} for workforce data`, async (t) => {
    await authorize(authorized);
    for (const row of rows) {
      const res = await row.read();
      if (authorized || row.unauthorized !== 403) {
        if (row.door.includes("unknown employee")) {
          t.equal(res.status, 404, `${row.door}: 404`);
          continue;
        }
        t.ok(res.status === 200 || res.status === 201, `${row.door}: ${res.status}`);
        if (authorized) row.authorized(t, res.body);
        else (row.unauthorized as (t: Test, b: Json) => void)(t, res.body);
      } else {
        t.equal(res.status, 403, `${row.door}: refused`);
        t.match(res.body?.data, { code: "forbidden", message: /not authorized for workforce data/ }, row.door);
      }
    }
  });
}

t.test("webhooks carry the summary alone, whatever the authorization", async (t) => {
  await waitFor("the connection at the receiver", () =>
    receiver.received.some((r) => r.json.event_type === "employment.connection.accepted"),
  );
  for (const d of receiver.received) {
    t.same(
      Object.keys(d.json).sort(),
      ["delivered_at", "event_type", "id", "occurred_at", "organization_id"],
      `${d.json.event_type}: no employment in the body`,
    );
  }
});
