import type { TestLaurel } from "./laurel.ts";
import { type BadgeScenario, type ScenarioCall as Call, scenario } from "./openapi_badge_scenarios.ts";

/**
 * Real successes and errors of the pathway operations, for the OpenAPI test: two templates of the
 * scenarios' organization and four pathways made in the setup: one read, changed and archived by the
 * scenarios, one published by them, one deleted, and one published in the setup.
 */
export const pathwayScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { call, admin, laurel } = ctx;
  const org = "/v1/organizations/{organization_id}";
  const base = `${laurel.baseUrl}/organizations/${ctx.organizationId}`;
  const json = (v: unknown) => JSON.stringify(v);
  const template = async (name: string) => {
    const made = await call("POST", `${base}/badge_templates`, {
      auth: admin,
      body: json({ name, description: "On the path", state: "active" }),
    });
    if (made.status !== 201) throw new Error(`setup template: ${made.status} ${made.text}`);
    return (JSON.parse(made.text) as { data: { id: string } }).data.id;
  };
  const step = await template("Pathway step");
  const done = await template("Pathway done");
  const body = {
    name: "Path",
    completion_badge_template_id: done,
    milestones: [{ name: "Step", badge_template_ids: [step], required: 1 }],
  };
  const draft = async () => {
    const made = await call("POST", `${base}/pathways`, { auth: admin, body: json(body) });
    if (made.status !== 201) throw new Error(`setup pathway: ${made.status} ${made.text}`);
    return `${base}/pathways/${(JSON.parse(made.text) as { data: { id: string } }).data.id}`;
  };
  const [kept, published, gone, live] = [await draft(), await draft(), await draft(), await draft()];
  const setup = await call("PUT", `${live}/publish`, { auth: admin });
  if (setup.status !== 200) throw new Error(`setup publish: ${setup.status} ${setup.text}`);
  const unknown = `${base}/pathways/00000000-0000-4000-8000-000000000000`;
  const change = { description: "Changed" };
  const wrong = { ...body, milestones: [{ name: "Step", badge_template_ids: [step], required: 2 }] };
  return {
    [`POST ${org}/pathways`]: [
      scenario("created", 201, () => call("POST", `${base}/pathways`, { auth: admin, body: json(body) }), body),
      scenario("more required than named", 422, () =>
        call("POST", `${base}/pathways`, { auth: admin, body: json(wrong) }),
      ),
    ],
    [`GET ${org}/pathways/{pathway_id}`]: [
      scenario("found", 200, () => call("GET", kept, { auth: admin })),
      scenario("unknown", 404, () => call("GET", unknown, { auth: admin })),
    ],
    [`PUT ${org}/pathways/{pathway_id}`]: [
      scenario("changed", 200, () => call("PUT", kept, { auth: admin, body: json(change) }), change),
      scenario("unknown", 404, () => call("PUT", unknown, { auth: admin, body: json(change) })),
    ],
    [`PUT ${org}/pathways/{pathway_id}/publish`]: [
      scenario("published", 200, () => call("PUT", `${published}/publish`, { auth: admin })),
      scenario("published already", 422, () => call("PUT", `${live}/publish`, { auth: admin })),
    ],
    [`PUT ${org}/pathways/{pathway_id}/archive`]: [
      scenario("archived", 200, () => call("PUT", `${kept}/archive`, { auth: admin })),
      scenario("archived already", 422, () => call("PUT", `${kept}/archive`, { auth: admin })),
    ],
    [`GET ${org}/pathways/{pathway_id}/earners`]: [
      scenario("a page", 200, () => call("GET", `${live}/earners?recipient_email=ada@example.org`, { auth: admin })),
      scenario("unknown", 404, () => call("GET", `${unknown}/earners`, { auth: admin })),
    ],
    [`DELETE ${org}/pathways/{pathway_id}`]: [
      scenario("deleted", 204, () => call("DELETE", gone, { auth: admin })),
      scenario("published: archived instead", 422, () => call("DELETE", live, { auth: admin })),
    ],
  };
};
