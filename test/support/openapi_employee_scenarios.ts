import { trpc } from "./badges.ts";
import type { TestLaurel } from "./laurel.ts";
import { type BadgeScenario, type ScenarioCall as Call, scenario } from "./openapi_badge_scenarios.ts";

/** Real successes and errors of the employee operations, for the OpenAPI test. */
export const employeeScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { call, admin } = ctx;
  const org = "/v1/organizations/{organization_id}/employees";
  const base = `${ctx.laurel.baseUrl}/organizations/${ctx.organizationId}/employees`;
  const json = (v: unknown) => JSON.stringify(v);
  const authorize = (authorized: boolean) =>
    trpc(ctx.laurel, "workforce.authorize", { organization_id: ctx.organizationId, authorized });
  const person = (external_id: string) => ({
    email: `${external_id}@example.org`,
    first_name: "Open",
    last_name: "Api",
    external_id,
    employment_histories: [{ current: true, employer_job_title: "Writer" }],
  });
  const create = async (external_id: string) => {
    const r = await call("POST", base, { auth: admin, body: json(person(external_id)) });
    if (r.status !== 201) throw new Error(`setup ${base}: ${r.status} ${r.text}`);
    return JSON.parse(r.text).data as { id: string };
  };
  const shown = await create("doc-1");
  const deletable = await create("doc-2");
  const post = (url: string, body: unknown) => () => call("POST", url, { auth: admin, body: json(body) });
  return {
    [`POST ${org}`]: [
      scenario("created", 201, post(base, person("doc-3")), person("doc-3")),
      scenario("duplicate external_id", 422, post(base, person("doc-1"))),
    ],
    [`POST ${org}/batch`]: [
      scenario("upserted", 200, post(`${base}/batch`, { employees: [person("doc-1"), { external_id: "x" }] })),
    ],
    [`POST ${org}/send_invitations`]: [
      scenario("sent", 200, post(`${base}/send_invitations`, { employee_ids: [shown.id] }), {
        employee_ids: [shown.id],
      }),
    ],
    [`GET ${org}/{employee_id}`]: [scenario("found", 200, () => call("GET", `${base}/${shown.id}`, { auth: admin }))],
    [`GET ${org}/{employee_id}/external_badges`]: [
      scenario("none before the employee connects", 200, async () => {
        await authorize(true);
        return call("GET", `${base}/${shown.id}/external_badges`, { auth: admin });
      }),
      scenario("the organization not authorized for workforce data", 403, async () => {
        await authorize(false);
        return call("GET", `${base}/${shown.id}/external_badges`, { auth: admin });
      }),
    ],
    [`PUT ${org}/{employee_id}`]: [
      scenario(
        "updated",
        200,
        () => call("PUT", `${base}/${shown.id}`, { auth: admin, body: json({ team: "Docs" }) }),
        { team: "Docs" },
      ),
    ],
    [`DELETE ${org}/{employee_id}`]: [
      scenario("deleted", 204, () => call("DELETE", `${base}/${deletable.id}`, { auth: admin })),
    ],
  };
};
