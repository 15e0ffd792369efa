import t from "tap";
import { apiClient, trpc } from "../support/badges.ts";
import { startEarnerWebhookServices } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { webhookOrganization } from "../support/webhooks.ts";

/**
 * An organization cannot learn whether an address has a Laurel account by creating an employee
 * record for it: a record of an account's address and one of an address nobody owns look the
 * same, over REST and in events, until the person has been shown the employer's prompt on the
 * wallet (`employment.user_account.associated` then `employment.connection.pending`). The
 * organization is authorized for workforce data, so it sees everything it may.
 */

// biome-ignore lint/suspicious/noExplicitAny: REST bodies and event details of many shapes
type Json = any;

const services = await startEarnerWebhookServices();
t.teardown(services.close);
const { laurel, smtp } = services;
const api = apiClient(laurel);

const org = await webhookOrganization(laurel, { url: null, name: "Prober" });
await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
const employees = `/organizations/${org.id}/employees`;

const known = httpEarner(laurel.origin, smtp);
await known.signIn("known@example.org");

/** The kinds of this organization's events about the record `id`, oldest first. */
const kindsOf = async (id: string): Promise<string[]> => {
  const out: Json[] = [];
  let url: string | null = `/organizations/${org.id}/events`;
  while (url) {
    const page: Json = await api("GET", url, org.auth);
    out.push(...page.body.data);
    url = page.body.metadata.next_page_url;
  }
  return out
    .filter((e) => e.employment?.id === id)
    .reverse()
    .map((e) => e.event_type);
};

/** What the organization can read of a record, less what differs by construction. */
const seen = async (id: string): Promise<Json> => {
  const { data } = (await api("GET", `${employees}/${id}`, org.auth)).body;
  const {
    id: _,
    email,
    external_id,
    created_at,
    last_updated_by_organization_at,
    employee_state_updated_at,
    ...rest
  } = data;
  return rest;
};

const person = (email: string, external_id: string) => ({ email, first_name: "P", last_name: "Q", external_id });

t.test("a record of an account's address looks like any other until the person is asked", async (t) => {
  const mine = (await api("POST", employees, org.auth, person("Known@Example.org", "K1"))).body.data;
  const nobody = (await api("POST", employees, org.auth, person("nobody@example.org", "N1"))).body.data;
  const batch = await api("POST", `${employees}/batch`, org.auth, {
    employees: [person("known@example.org", "K2"), person("nobody2@example.org", "N2")],
  });
  const [mine2, nobody2] = batch.body.data.map((r: Json) => r.id);

  for (const [what, a, b] of [
    ["created over REST", mine.id, nobody.id],
    ["created by batch", mine2, nobody2],
  ]) {
    t.same(await kindsOf(a), await kindsOf(b), `${what}: the same events`);
    t.same(await kindsOf(a), ["employment.created"], `${what}: only the creation`);
    t.same(await seen(a), await seen(b), `${what}: the same record`);
  }
  const listed = await api("GET", `${employees}?filter=employee_state::created`, org.auth);
  t.same(
    listed.body.data.map((e: Json) => e.external_id).sort(),
    ["K1", "K2", "N1", "N2"],
    "all four are still created",
  );

  // Moving a record off the account's address before the person was asked tells nothing either.
  await api("PUT", `${employees}/${mine2}`, org.auth, { email: "elsewhere@example.org" });
  t.same(await kindsOf(mine2), ["employment.created", "employment.updated"], "no disassociation shown");

  // The person opens the wallet and is asked: now the organization is told, in that order.
  t.match((await known.get("/wallet")).text, /Prober<\/strong> lists you as an employee/);
  t.same(await kindsOf(mine.id), [
    "employment.created",
    "employment.user_account.associated",
    "employment.connection.pending",
  ]);
  t.same(await kindsOf(nobody.id), ["employment.created"], "the other record still has nothing");
});

t.test("an address confirmed later is not told before the person is asked either", async (t) => {
  const later = (await api("POST", employees, org.auth, person("known.work@example.org", "K3"))).body.data;
  await known.get("/account");
  const before = smtp.mails.length;
  await known.post("/account/emails", { email: "known.work@example.org" });
  await known.useMailedLink("known.work@example.org", before);
  t.match((await known.get("/account")).text, /known\.work@example\.org<\/span> <span class="tag ok">confirmed/);
  t.same(await kindsOf(later.id), ["employment.created"], "confirmed, not yet asked: nothing");
  await known.get("/wallet");
  t.same(await kindsOf(later.id), [
    "employment.created",
    "employment.user_account.associated",
    "employment.connection.pending",
  ]);
});
