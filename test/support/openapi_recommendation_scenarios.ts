import type { TestLaurel } from "./laurel.ts";
import { type BadgeScenario, type ScenarioCall as Call, scenario } from "./openapi_badge_scenarios.ts";

/**
 * Real successes and errors of the recommendation operations, for the OpenAPI test: a template of
 * the scenarios' organization is recommended to two addresses in the setup, one of them read and
 * one deleted by the scenarios.
 */
export const recommendationScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { call, admin, laurel } = ctx;
  const org = "/v1/organizations/{organization_id}";
  const base = `${laurel.baseUrl}/organizations/${ctx.organizationId}`;
  const json = (v: unknown) => JSON.stringify(v);
  const template = await call("POST", `${base}/badge_templates`, {
    auth: admin,
    body: json({ name: "Recommended", description: "Earn it next", state: "active" }),
  });
  if (template.status !== 201) throw new Error(`setup template: ${template.status} ${template.text}`);
  const templateId = (JSON.parse(template.text) as { data: { id: string } }).data.id;
  const made = await call("POST", `${base}/recommendations`, {
    auth: admin,
    body: json({
      recommendations: [
        { badge_template_id: templateId, recipient_email: "read@example.org" },
        { badge_template_id: templateId, recipient_email: "gone@example.org" },
      ],
    }),
  });
  if (made.status !== 201) throw new Error(`setup recommendations: ${made.status} ${made.text}`);
  const [read, gone] = (JSON.parse(made.text) as { data: Array<{ id: string }> }).data;
  const one = { badge_template_id: templateId, recipient_email: "new@example.org", message: "Next step" };
  const unknown = "00000000-0000-4000-8000-000000000000";
  return {
    [`POST ${org}/recommendations`]: [
      scenario(
        "recommended",
        201,
        () => call("POST", `${base}/recommendations`, { auth: admin, body: json(one) }),
        one,
      ),
      scenario("a batch", 201, () =>
        call("POST", `${base}/recommendations`, {
          auth: admin,
          body: json({ recommendations: [{ badge_template_id: templateId, recipient_email: "batch@example.org" }] }),
        }),
      ),
      scenario("already recommended", 422, () =>
        call("POST", `${base}/recommendations`, { auth: admin, body: json(one) }),
      ),
    ],
    [`GET ${org}/recommendations/{recommendation_id}`]: [
      scenario("found", 200, () => call("GET", `${base}/recommendations/${read?.id}`, { auth: admin })),
      scenario("unknown", 404, () => call("GET", `${base}/recommendations/${unknown}`, { auth: admin })),
    ],
    [`DELETE ${org}/recommendations/{recommendation_id}`]: [
      scenario("deleted", 204, () => call("DELETE", `${base}/recommendations/${gone?.id}`, { auth: admin })),
      scenario("unknown", 404, () => call("DELETE", `${base}/recommendations/${unknown}`, { auth: admin })),
    ],
  };
};
