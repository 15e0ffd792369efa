import t from "tap";
import { trpc, trpcFailure } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { runTs } from "../support/processes.ts";

/**
 * Workforce authorization through the internal tools: employment events (here from creating an
 * employee over REST) are read in full or reduced by the authorization at read time.
 */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

const call = async (method: string, path: string, auth: string, body?: unknown) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, {
    method,
    headers: { authorization: auth, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
};

const employee = { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace", external_id: "E-1" };

t.test("details follow the authorization at read time", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Employer");
  const auth = basic(authorization_token.token);
  const created = await call("POST", `/organizations/${organization.id}/employees`, auth, employee);
  t.equal(created.status, 201);
  const id = created.body.data.id as string;
  const list = await call("GET", `/organizations/${organization.id}/events`, auth);
  const events = list.body.data as unknown as Array<{ id: string; event_type: string; employment: unknown }>;
  t.same(
    events.map((e) => e.event_type),
    ["employment.created"],
  );
  const eventId = events[0]?.id as string;
  const reduced = { id, email: "ada@example.com", external_id: "E-1" };
  t.same(events[0]?.employment, reduced, "reduced: not authorized");

  t.same(await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: true }), {
    organization_id: organization.id,
    workforce_authorized: true,
  });
  t.same(created.body.data, reduced, "the create's answer is reduced too: not authorized");
  const full = await call("GET", `/organizations/${organization.id}/events/${eventId}`, auth);
  const read = await call("GET", `/organizations/${organization.id}/employees/${id}`, auth);
  t.match(read.body.data, { first_name: "Ada", badges: [] }, "the record in full once authorized");
  t.same(full.body.data.employment, read.body.data, "the event in full once authorized");

  await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: false });
  const again = await call("GET", `/organizations/${organization.id}/events/${eventId}`, auth);
  t.same(again.body.data.employment, reduced, "reduced again");

  const other = await laurel.createOrganization("Someone else");
  const foreign = await call(
    "GET",
    `/organizations/${organization.id}/events/${eventId}`,
    basic(other.authorization_token.token),
  );
  t.equal(foreign.status, 403, "another organization's credential cannot read it");

  const missing = await trpcFailure(laurel, "workforce.authorize", {
    organization_id: "0190f000-0000-7000-8000-0000000000cc",
    authorized: true,
  });
  t.match(missing, { status: 404, code: "NOT_FOUND" }, "unknown organization");
  const injected = await trpcFailure(laurel, "workforce.recordEvent", { organization_id: organization.id });
  t.match(injected, { status: 404 }, "no operator injection of employment events");
});

t.test("the CLI: workforce authorize", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("CLI employer");
  const auth = basic(authorization_token.token);
  const env = { LAUREL_URL: laurel.adminOrigin, LAUREL_ADMIN_TOKEN: laurel.server.adminToken };
  const cli = (...args: string[]) => runTs("apps/cli.ts", args, env);
  await call("POST", `/organizations/${organization.id}/employees`, auth, employee);
  const [event] = (await call("GET", `/organizations/${organization.id}/events`, auth)).body.data as unknown as Array<{
    id: string;
  }>;

  const authorized = await cli("workforce", "authorize", "--organization", organization.id, "--json");
  t.equal(authorized.code, 0, authorized.stderr);
  t.same(JSON.parse(authorized.stdout), { organization_id: organization.id, workforce_authorized: true });
  const detail = await call("GET", `/organizations/${organization.id}/events/${event?.id}`, auth);
  t.match(detail.body.data.employment, { first_name: "Ada", badges: [] });

  const human = await cli("workforce", "authorize", "--organization", organization.id, "--revoke");
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /workforce data not authorized/);
  const reduced = await call("GET", `/organizations/${organization.id}/events/${event?.id}`, auth);
  t.same(Object.keys(reduced.body.data.employment as object).sort(), ["email", "external_id", "id"]);

  const removed = await cli("workforce", "record", "--organization", organization.id);
  t.not(removed.code, 0, "workforce record is gone");
});
