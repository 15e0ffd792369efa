import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { trpc, trpcFailure } from "../support/badges.ts";
import { employmentOf } from "../support/employment.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { runTs } from "../support/processes.ts";
import { tempDir } from "../support/services.ts";
import { BADGE } from "../support/webhooks.ts";

/** Workforce authorization and employment events through the internal tools, read over REST. */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

const get = async (path: string, auth: string) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, { headers: { authorization: auth } });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
};

const EMPLOYEE = "0190f000-0000-7000-8000-0000000000aa";

t.test("recorded over tRPC, listed over REST; details follow the authorization at read time", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Employer");
  const auth = basic(authorization_token.token);
  const employment = employmentOf(organization.id, EMPLOYEE);
  const recorded = (await trpc(laurel, "workforce.recordEvent", {
    organization_id: organization.id,
    event_type: "employment.badges.added",
    employment,
    badge: BADGE,
  })) as { id: string; event_type: string; employment: unknown; badge?: unknown };
  t.equal(recorded.event_type, "employment.badges.added");
  t.same(
    recorded.employment,
    { id: EMPLOYEE, email: "ada@example.com", external_id: "E-1" },
    "reduced: not authorized",
  );
  t.notOk("badge" in recorded, "the badge is withheld too");

  const list = await get(`/organizations/${organization.id}/events`, auth);
  t.equal(list.status, 200);
  t.same(
    (list.body.data as unknown as Array<{ id: string }>).map((e) => e.id),
    [recorded.id],
    "the event is in the organization's list",
  );

  t.same(await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: true }), {
    organization_id: organization.id,
    workforce_authorized: true,
  });
  const full = await get(`/organizations/${organization.id}/events/${recorded.id}`, auth);
  t.same(full.body.data.employment, employment, "in full once authorized");
  t.same(full.body.data.badge, BADGE);

  await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: false });
  const again = await get(`/organizations/${organization.id}/events/${recorded.id}`, auth);
  t.same(again.body.data.employment, { id: EMPLOYEE, email: "ada@example.com", external_id: "E-1" }, "reduced again");

  const other = await laurel.createOrganization("Someone else");
  const foreign = await get(
    `/organizations/${organization.id}/events/${recorded.id}`,
    basic(other.authorization_token.token),
  );
  t.equal(foreign.status, 403, "another organization's credential cannot read it");
});

t.test("refused inputs: clear errors, nothing recorded", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Strict employer");
  const employment = employmentOf(organization.id, EMPLOYEE);
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ["a kind outside employment.*", { event_type: "badge.created", employment }, 400, "BAD_REQUEST"],
    [
      "badges.added without its badge",
      { event_type: "employment.badges.added", employment },
      422,
      "UNPROCESSABLE_CONTENT",
    ],
    [
      "an employee of another employer",
      { event_type: "employment.created", employment: employmentOf("0190f000-0000-7000-8000-0000000000bb", EMPLOYEE) },
      422,
      "UNPROCESSABLE_CONTENT",
    ],
    [
      "an incomplete employment",
      { event_type: "employment.created", employment: { id: EMPLOYEE } },
      400,
      "BAD_REQUEST",
    ],
  ];
  for (const [name, body, status, code] of cases) {
    const failure = await trpcFailure(laurel, "workforce.recordEvent", { organization_id: organization.id, ...body });
    t.match(failure, { status, code }, name);
  }
  const missing = await trpcFailure(laurel, "workforce.recordEvent", {
    organization_id: "0190f000-0000-7000-8000-0000000000cc",
    event_type: "employment.created",
    employment: employmentOf("0190f000-0000-7000-8000-0000000000cc", EMPLOYEE),
  });
  t.match(missing, { status: 404, code: "NOT_FOUND" }, "unknown organization");
  const list = await get(`/organizations/${organization.id}/events`, basic(authorization_token.token));
  t.same(list.body.data, [], "nothing was recorded");
});

t.test("the CLI: workforce authorize and record", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("CLI employer");
  const env = { LAUREL_URL: laurel.adminOrigin, LAUREL_ADMIN_TOKEN: laurel.server.adminToken };
  const cli = (...args: string[]) => runTs("apps/cli.ts", args, env);
  const record = (path: string, ...extra: string[]) =>
    cli(
      "workforce",
      "record",
      "--organization",
      organization.id,
      "--type",
      "employment.created",
      "--file",
      path,
      ...extra,
    );
  const dir = tempDir();
  const file = join(dir.path, "employment.json");
  writeFileSync(file, JSON.stringify({ employment: employmentOf(organization.id, EMPLOYEE) }));

  const authorized = await cli("workforce", "authorize", "--organization", organization.id, "--json");
  t.equal(authorized.code, 0, authorized.stderr);
  t.same(JSON.parse(authorized.stdout), { organization_id: organization.id, workforce_authorized: true });

  const recorded = await record(file, "--json");
  t.equal(recorded.code, 0, recorded.stderr);
  const event = JSON.parse(recorded.stdout);
  t.match(event, {
    event_type: "employment.created",
    organization_id: organization.id,
    employment: { first_name: "Ada" },
  });

  const human = await cli("workforce", "authorize", "--organization", organization.id, "--revoke");
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /workforce data not authorized/);
  const detail = await get(`/organizations/${organization.id}/events/${event.id}`, basic(authorization_token.token));
  t.same(detail.body.data.employment, { id: EMPLOYEE, email: "ada@example.com", external_id: "E-1" });

  const bad = await record(join(dir.path, "none.json"));
  t.equal(bad.code, 2, "an unreadable file is a usage error");
  dir.remove();
});
