import { decodeJwt } from "jose";
import { type TestLaurel, trpcMutation } from "./laurel.ts";
import { checkOpenBadgeCredentialJwt } from "./ob3.ts";

/**
 * The badge scenarios for test/e2e/openapi.test.ts: a real success (and a few errors) of every
 * badge template, badge and hosted-record operation, keyed as the OpenAPI document keys them.
 */
export interface ScenarioAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface BadgeScenario {
  name: string;
  status: number;
  run(): Promise<ScenarioAnswer>;
  requestBody?: unknown;
}

/** How a scenario sends its request: the OpenAPI test's recording fetch. */
export type ScenarioCall = (
  method: string,
  url: string,
  opts?: { auth?: string | null; body?: string; type?: string | null },
) => Promise<ScenarioAnswer>;
type Call = ScenarioCall;

/** One scenario: its name, the status it must answer, how it runs, and the body it sends (documented). */
export const scenario = (
  name: string,
  status: number,
  run: () => Promise<ScenarioAnswer>,
  requestBody?: unknown,
): BadgeScenario => ({ name, status, run, ...(requestBody === undefined ? {} : { requestBody }) });

export const badgeScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  /** Full authorization token of the organization (HTTP Basic header). */
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { laurel, call, admin } = ctx;
  const api = laurel.baseUrl;
  const org = `/v1/organizations/{organization_id}`;
  const templates = `${api}/organizations/${ctx.organizationId}/badge_templates`;
  const badges = `${api}/organizations/${ctx.organizationId}/badges`;
  const json = (v: unknown) => JSON.stringify(v);
  const post = async (url: string, body: unknown) => {
    const r = await call("POST", url, { auth: admin, body: json(body) });
    if (r.status !== 201) throw new Error(`setup ${url}: ${r.status} ${r.text}`);
    return JSON.parse(r.text).data;
  };
  const templateBody = { name: "Documented", description: "Exercised by the OpenAPI test", state: "active" };
  const tpl = await post(templates, templateBody);
  const spare = await post(templates, { name: "Spare", description: "to archive" });
  const archived = await post(templates, { name: "Archived", description: "to unarchive", state: "active" });
  const deletable = await post(templates, { name: "Deletable", description: "to delete" });
  const issue = (email: string) => ({
    badge_template_id: tpl.id,
    issued_at: "2024-01-02T03:04:05+01:00",
    issued_to_first_name: "Open",
    issued_to_last_name: "Api",
    recipient_email: email,
  });
  const shown = await post(badges, issue("shown@example.org"));
  const toRevoke = await post(badges, issue("revoke@example.org"));
  const toReplace = await post(badges, issue("replace@example.org"));
  const toDelete = await post(badges, issue("delete@example.org"));
  const revoked = await post(badges, issue("revoked@example.org"));
  await trpcMutation(laurel.adminOrigin, laurel.server.adminToken, "badges.accept", { badge_id: shown.id });
  await call("PUT", `${templates}/${archived.id}/archive`, { auth: admin });
  await call("PUT", `${badges}/${revoked.id}/revoke`, { auth: admin, body: json({ reason: "Revoked in setup" }) });
  const credential = await call("GET", `${api}/obi/v3/credentials/${shown.id}`);
  const credentialErrors = checkOpenBadgeCredentialJwt(credential.text, decodeJwt(credential.text));
  if (credentialErrors.length > 0) throw new Error(`invalid OB 3.0 credential: ${credentialErrors.join("; ")}`);
  const kid = JSON.parse(Buffer.from(credential.text.split(".")[0] ?? "", "base64url").toString()).kid as string;
  const proven = await call("GET", `${api}/obi/v3/credentials/${shown.id}/ldp`);
  const verificationMethod = JSON.parse(proven.text).proof.verificationMethod as string;
  const updateBody = { description: "Updated by a scenario" };

  return {
    [`POST ${org}/badge_templates`]: [
      {
        name: "created",
        status: 201,
        requestBody: templateBody,
        run: () => call("POST", templates, { auth: admin, body: json(templateBody) }),
      },
      {
        name: "description missing",
        status: 422,
        requestBody: { name: "x" },
        run: () => call("POST", templates, { auth: admin, body: json({ name: "x" }) }),
      },
    ],
    [`GET ${org}/badge_templates/{badge_template_id}`]: [
      { name: "found", status: 200, run: () => call("GET", `${templates}/${tpl.id}`, { auth: admin }) },
      { name: "not a UUID", status: 400, run: () => call("GET", `${templates}/x`, { auth: admin }) },
    ],
    [`PUT ${org}/badge_templates/{badge_template_id}`]: [
      {
        name: "updated",
        status: 200,
        requestBody: updateBody,
        run: () => call("PUT", `${templates}/${tpl.id}`, { auth: admin, body: json(updateBody) }),
      },
      {
        // A domain rule refuses it, not the schema: no requestBody to check against the schema.
        name: "back to draft",
        status: 422,
        run: () => call("PUT", `${templates}/${tpl.id}`, { auth: admin, body: json({ state: "draft" }) }),
      },
    ],
    [`PUT ${org}/badge_templates/{badge_template_id}/archive`]: [
      { name: "archived", status: 200, run: () => call("PUT", `${templates}/${spare.id}/archive`, { auth: admin }) },
    ],
    [`PUT ${org}/badge_templates/{badge_template_id}/unarchive`]: [
      {
        name: "unarchived",
        status: 200,
        run: () => call("PUT", `${templates}/${archived.id}/unarchive`, { auth: admin }),
      },
      {
        name: "not archived",
        status: 422,
        run: () => call("PUT", `${templates}/${tpl.id}/unarchive`, { auth: admin }),
      },
    ],
    [`DELETE ${org}/badge_templates/{badge_template_id}`]: [
      { name: "has badges", status: 422, run: () => call("DELETE", `${templates}/${tpl.id}`, { auth: admin }) },
      { name: "deleted", status: 204, run: () => call("DELETE", `${templates}/${deletable.id}`, { auth: admin }) },
    ],
    [`POST ${org}/badges`]: [
      {
        name: "issued",
        status: 201,
        requestBody: issue("new@example.org"),
        run: () => call("POST", badges, { auth: admin, body: json(issue("new@example.org")) }),
      },
      {
        name: "duplicate",
        status: 422,
        run: () => call("POST", badges, { auth: admin, body: json(issue("new@example.org")) }),
      },
    ],
    [`POST ${org}/badges/batch`]: [
      {
        name: "issued in part",
        status: 201,
        requestBody: { badges: [issue("batch@example.org")] },
        run: () =>
          call("POST", `${badges}/batch`, {
            auth: admin,
            body: json({ badges: [issue("batch@example.org"), issue("batch@example.org")] }),
          }),
      },
    ],
    [`GET ${org}/badges/{badge_id}`]: [
      { name: "found", status: 200, run: () => call("GET", `${badges}/${shown.id}`, { auth: admin }) },
    ],
    [`PUT ${org}/badges/{badge_id}/revoke`]: [
      {
        name: "revoked",
        status: 200,
        requestBody: { reason: "Issued in error" },
        run: () =>
          call("PUT", `${badges}/${toRevoke.id}/revoke`, { auth: admin, body: json({ reason: "Issued in error" }) }),
      },
      {
        name: "reason missing",
        status: 422,
        requestBody: {},
        run: () => call("PUT", `${badges}/${toRevoke.id}/revoke`, { auth: admin, body: "{}" }),
      },
    ],
    [`POST ${org}/badges/{badge_id}/replace`]: [
      {
        name: "replaced",
        status: 201,
        requestBody: { issued_at: "2024-02-01T00:00:00Z" },
        run: () =>
          call("POST", `${badges}/${toReplace.id}/replace`, {
            auth: admin,
            body: json({ issued_at: "2024-02-01T00:00:00Z" }),
          }),
      },
    ],
    [`DELETE ${org}/badges/{badge_id}`]: [
      { name: "deleted", status: 204, run: () => call("DELETE", `${badges}/${toDelete.id}`, { auth: admin }) },
    ],
    "GET /v1/obi/v2/badge_assertions/{id}": [
      { name: "accepted badge", status: 200, run: () => call("GET", `${api}/obi/v2/badge_assertions/${shown.id}`) },
      { name: "revoked badge", status: 410, run: () => call("GET", `${api}/obi/v2/badge_assertions/${revoked.id}`) },
    ],
    "GET /v1/obi/v2/badge_classes/{id}": [
      { name: "active template", status: 200, run: () => call("GET", `${api}/obi/v2/badge_classes/${tpl.id}`) },
    ],
    "GET /v1/obi/v2/issuers/{id}": [
      { name: "organization", status: 200, run: () => call("GET", `${api}/obi/v2/issuers/${ctx.organizationId}`) },
    ],
    "GET /v1/obi/v3/issuers/{id}": [
      { name: "organization", status: 200, run: () => call("GET", `${api}/obi/v3/issuers/${ctx.organizationId}`) },
    ],
    "GET /v1/obi/v3/credentials/{id}": [
      { name: "accepted badge", status: 200, run: () => call("GET", `${api}/obi/v3/credentials/${shown.id}`) },
      { name: "revoked badge", status: 410, run: () => call("GET", `${api}/obi/v3/credentials/${revoked.id}`) },
    ],
    "GET /v1/obi/v3/keys/{thumbprint}": [{ name: "the kid's key", status: 200, run: () => call("GET", kid) }],
    "GET /v1/obi/v3/credentials/{id}/ldp": [
      { name: "accepted badge", status: 200, run: () => call("GET", `${api}/obi/v3/credentials/${shown.id}/ldp`) },
      { name: "revoked badge", status: 410, run: () => call("GET", `${api}/obi/v3/credentials/${revoked.id}/ldp`) },
    ],
    "GET /v1/obi/v3/multikeys/{organization_id}/{key}": [
      { name: "the proof's verification method", status: 200, run: () => call("GET", verificationMethod) },
      {
        name: "another key",
        status: 404,
        run: () => call("GET", `${api}/obi/v3/multikeys/${ctx.organizationId}/z6MkOther`),
      },
    ],
    "GET /v1/obi/v3/status_lists/{organization_id}/{list}": [
      {
        name: "the organization's first list",
        status: 200,
        run: () => call("GET", `${api}/obi/v3/status_lists/${ctx.organizationId}/0`),
      },
      {
        name: "a list it does not have",
        status: 404,
        run: () => call("GET", `${api}/obi/v3/status_lists/${ctx.organizationId}/9`),
      },
    ],
  };
};
