import type { TestLaurel } from "./laurel.ts";
import type { BadgeScenario, ScenarioCall as Call } from "./openapi_badge_scenarios.ts";

/** Real successes and errors of the CSV import operations (badges and employees), for the OpenAPI test. */
export const importScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { call, admin } = ctx;
  const api = `${ctx.laurel.baseUrl}/organizations/${ctx.organizationId}`;
  const template = await call("POST", `${api}/badge_templates`, {
    auth: admin,
    body: JSON.stringify({ name: "Imported", description: "by the import scenarios", state: "active" }),
  });
  if (template.status !== 201) throw new Error(`setup: template ${template.status} ${template.text}`);
  const templateId = JSON.parse(template.text).data.id as string;
  const files = {
    badges: `badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at\n${templateId},doc-import@example.org,Open,Api,2024-01-01T00:00:00Z\n${templateId},bad,Open,Api,2024-01-01T00:00:00Z\n`,
    employees: "external_id,email,first_name,last_name\nIMP-1,imp-1@example.org,Open,Api\nIMP-2,bad,Open,Api\n",
  };
  const out: Record<string, BadgeScenario[]> = {};
  for (const kind of ["badges", "employees"] as const) {
    const base = `${api}/${kind}/imports`;
    const csv = (url: string, body: string) => () => call("POST", url, { auth: admin, body, type: "text/csv" });
    const started = await csv(base, files[kind])();
    if (started.status !== 201) throw new Error(`setup: ${kind} import ${started.status} ${started.text}`);
    const id = JSON.parse(started.text).data.id as string;
    const doc = `/v1/organizations/{organization_id}/${kind}/imports`;
    out[`POST ${doc}`] = [
      { name: "dry run", status: 200, run: csv(`${base}?dry_run=true`, files[kind]) },
      { name: "the same file again", status: 422, run: csv(base, files[kind]) },
      { name: "started", status: 201, run: csv(`${base}?repeat=true`, files[kind]) },
      { name: "no header", status: 422, run: csv(base, "") },
    ];
    out[`GET ${doc}/{import_id}`] = [
      { name: "found", status: 200, run: () => call("GET", `${base}/${id}`, { auth: admin }) },
    ];
    out[`GET ${doc}/{import_id}/result`] = [
      { name: "found", status: 200, run: () => call("GET", `${base}/${id}/result`, { auth: admin }) },
    ];
  }
  return out;
};
