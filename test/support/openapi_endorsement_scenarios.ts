import { basic, type TestLaurel } from "./laurel.ts";
import { type BadgeScenario, type ScenarioCall as Call, scenario } from "./openapi_badge_scenarios.ts";

/**
 * Real successes and errors of the endorsement operations, for the OpenAPI test: three other
 * organizations endorse the scenarios' organization, which endorses one of them; one is accepted
 * and one withdrawn in the setup, so that a credential is served and another is gone.
 */
export const endorsementScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { call, admin, laurel } = ctx;
  const org = "/v1/organizations/{organization_id}";
  const endorsements = (id: string) => `${laurel.baseUrl}/organizations/${id}/endorsements`;
  const mine = endorsements(ctx.organizationId);
  const json = (v: unknown) => JSON.stringify(v);
  const other = async (name: string) => {
    const made = await laurel.createOrganization(name);
    return { id: made.organization.id, auth: basic(made.authorization_token.token) };
  };
  const endorse = async (from: { id: string; auth: string }, to: string) => {
    const r = await call("POST", endorsements(from.id), {
      auth: from.auth,
      body: json({ target_kind: "organization", target_id: to, comment: "Scenario" }),
    });
    if (r.status !== 201) throw new Error(`setup endorsement: ${r.status} ${r.text}`);
    return JSON.parse(r.text).data as { id: string };
  };
  const [b, c, d, e] = [
    await other("Endorser B"),
    await other("Endorser C"),
    await other("Endorser D"),
    await other("Endorsed E"),
  ];
  const toAccept = await endorse(b, ctx.organizationId);
  const toReject = await endorse(c, ctx.organizationId);
  const published = await endorse(d, ctx.organizationId);
  const given = await endorse({ id: ctx.organizationId, auth: admin }, e.id);
  const accepted = await call("PUT", `${mine}/${published.id}/accept`, { auth: admin });
  if (accepted.status !== 200) throw new Error(`setup acceptance: ${accepted.status} ${accepted.text}`);
  const dropped = await endorse(e, ctx.organizationId);
  const withdrawn = await call("DELETE", `${endorsements(e.id)}/${dropped.id}`, { auth: e.auth });
  if (withdrawn.status !== 204) throw new Error(`setup withdrawal: ${withdrawn.status} ${withdrawn.text}`);
  const body = { target_kind: "organization", target_id: b.id, comment: "Reliable" };
  return {
    [`POST ${org}/endorsements`]: [
      scenario("endorsed", 201, () => call("POST", mine, { auth: admin, body: json(body) }), body),
      scenario("itself", 422, () =>
        call("POST", mine, { auth: admin, body: json({ ...body, target_id: ctx.organizationId }) }),
      ),
    ],
    [`PUT ${org}/endorsements/{endorsement_id}/accept`]: [
      scenario("accepted", 200, () => call("PUT", `${mine}/${toAccept.id}/accept`, { auth: admin })),
      scenario("by the endorser", 403, () => call("PUT", `${mine}/${given.id}/accept`, { auth: admin })),
    ],
    [`PUT ${org}/endorsements/{endorsement_id}/reject`]: [
      scenario("rejected", 200, () => call("PUT", `${mine}/${toReject.id}/reject`, { auth: admin })),
      scenario("already rejected", 422, () => call("PUT", `${mine}/${toReject.id}/reject`, { auth: admin })),
    ],
    [`DELETE ${org}/endorsements/{endorsement_id}`]: [
      scenario("not the endorser", 403, () => call("DELETE", `${mine}/${toAccept.id}`, { auth: admin })),
      scenario("withdrawn", 204, () => call("DELETE", `${mine}/${given.id}`, { auth: admin })),
    ],
    "GET /v1/obi/v3/endorsements/{id}": [
      scenario("accepted", 200, () => call("GET", `${laurel.baseUrl}/obi/v3/endorsements/${published.id}`)),
      scenario("withdrawn", 410, () => call("GET", `${laurel.baseUrl}/obi/v3/endorsements/${dropped.id}`)),
    ],
  };
};
