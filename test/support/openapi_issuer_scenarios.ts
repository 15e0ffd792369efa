import { basic, type TestLaurel } from "./laurel.ts";
import { type BadgeScenario, type ScenarioCall as Call, scenario } from "./openapi_badge_scenarios.ts";

/**
 * Real successes and errors of the authorized-issuer operations, for the OpenAPI test: the
 * scenarios' organization authorizes two others (one in the setup, one by a scenario), and two
 * others authorize it, one to accept and one to read and end.
 */
export const issuerAuthorizationScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { call, admin, laurel } = ctx;
  const org = "/v1/organizations/{organization_id}";
  const issuers = (id: string) => `${laurel.baseUrl}/organizations/${id}/issuers`;
  const grantors = `${laurel.baseUrl}/organizations/${ctx.organizationId}/grantors`;
  const json = (v: unknown) => JSON.stringify(v);
  const other = async (name: string) => {
    const made = await laurel.createOrganization(name);
    return { id: made.organization.id, auth: basic(made.authorization_token.token) };
  };
  const grant = async (from: { id: string; auth: string }, to: string) => {
    const r = await call("POST", issuers(from.id), {
      auth: from.auth,
      body: json({ issuer_organization_id: to }),
    });
    if (r.status !== 201) throw new Error(`setup authorization: ${r.status} ${r.text}`);
    return JSON.parse(r.text).data as { id: string };
  };
  const [p1, p2, g1, g2] = [
    await other("Issuer P1"),
    await other("Issuer P2"),
    await other("Grantor G1"),
    await other("Grantor G2"),
  ];
  const mine = { id: ctx.organizationId, auth: admin };
  const given = await grant(mine, p1.id);
  const toAccept = await grant(g1, ctx.organizationId);
  const received = await grant(g2, ctx.organizationId);
  const body = { issuer_organization_id: p2.id, badge_template_ids: null };
  return {
    [`POST ${org}/issuers`]: [
      scenario("granted", 201, () => call("POST", issuers(mine.id), { auth: admin, body: json(body) }), body),
      scenario("itself", 422, () =>
        call("POST", issuers(mine.id), { auth: admin, body: json({ issuer_organization_id: mine.id }) }),
      ),
    ],
    [`GET ${org}/issuers/{issuer_authorization_id}`]: [
      scenario("found", 200, () => call("GET", `${issuers(mine.id)}/${given.id}`, { auth: admin })),
      scenario("received, not given", 404, () => call("GET", `${issuers(mine.id)}/${received.id}`, { auth: admin })),
    ],
    [`DELETE ${org}/issuers/{issuer_authorization_id}`]: [
      scenario("ended", 204, () => call("DELETE", `${issuers(mine.id)}/${given.id}`, { auth: admin })),
      scenario("ended already", 422, () => call("DELETE", `${issuers(mine.id)}/${given.id}`, { auth: admin })),
    ],
    [`GET ${org}/grantors/{issuer_authorization_id}`]: [
      scenario("found", 200, () => call("GET", `${grantors}/${received.id}`, { auth: admin })),
    ],
    [`PUT ${org}/grantors/{issuer_authorization_id}/accept`]: [
      scenario("accepted", 200, () => call("PUT", `${grantors}/${toAccept.id}/accept`, { auth: admin })),
      scenario("accepted already", 422, () => call("PUT", `${grantors}/${toAccept.id}/accept`, { auth: admin })),
    ],
    [`DELETE ${org}/grantors/{issuer_authorization_id}`]: [
      scenario("ended", 204, () => call("DELETE", `${grantors}/${received.id}`, { auth: admin })),
    ],
  };
};
