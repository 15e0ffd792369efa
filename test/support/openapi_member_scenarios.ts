import { randomUUID } from "node:crypto";
import type { TestLaurel } from "./laurel.ts";
import { type BadgeScenario, type ScenarioCall as Call, scenario } from "./openapi_badge_scenarios.ts";

/**
 * Members of an organization as accepting an invitation leaves them: an account with a confirmed
 * address and a membership (the acceptance itself is the console's, tested with the members API).
 */
export const addMember = async (laurel: TestLaurel, organizationId: string, email: string, role: string) => {
  const userId = randomUUID();
  const id = randomUUID();
  await laurel.db.run(
    "insert into users (id, first_name, last_name, created_at, updated_at) values (?, 'Doc', 'Member', now(), now())",
    [userId],
  );
  await laurel.db.run(
    "insert into user_emails (email_key, user_id, email, position, confirmed, created_at) values (?, ?, ?, 0, true, now())",
    [email.toLowerCase(), userId, email],
  );
  await laurel.db.run(
    "insert into memberships (id, organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, ?, now(), now())",
    [id, organizationId, userId, role],
  );
  return { id, userId };
};

/** Real successes and errors of the membership and invitation operations, for the OpenAPI test. */
export const memberScenarios = async (ctx: {
  laurel: TestLaurel;
  call: Call;
  organizationId: string;
  admin: string;
}): Promise<Record<string, BadgeScenario[]>> => {
  const { call, admin } = ctx;
  const org = "/v1/organizations/{organization_id}";
  const base = `${ctx.laurel.baseUrl}/organizations/${ctx.organizationId}`;
  const json = (v: unknown) => JSON.stringify(v);
  const owner = await addMember(ctx.laurel, ctx.organizationId, "owner.doc@example.org", "owner");
  const shown = await addMember(ctx.laurel, ctx.organizationId, "shown.doc@example.org", "issuer");
  const removable = await addMember(ctx.laurel, ctx.organizationId, "gone.doc@example.org", "viewer");
  const invite = async (email: string) => {
    const r = await call("POST", `${base}/invitations`, { auth: admin, body: json({ email, role: "viewer" }) });
    if (r.status !== 201) throw new Error(`setup invitation: ${r.status} ${r.text}`);
    return JSON.parse(r.text).data as { id: string };
  };
  const pending = await invite("pending.doc@example.org");
  const cancelled = await invite("cancelled.doc@example.org");
  return {
    [`GET ${org}/memberships/{membership_id}`]: [
      scenario("found", 200, () => call("GET", `${base}/memberships/${shown.id}`, { auth: admin })),
    ],
    [`PUT ${org}/memberships/{membership_id}`]: [
      scenario(
        "role changed",
        200,
        () => call("PUT", `${base}/memberships/${shown.id}`, { auth: admin, body: json({ role: "viewer" }) }),
        { role: "viewer" },
      ),
      scenario("an owner is not changed by a credential", 403, () =>
        call("PUT", `${base}/memberships/${owner.id}`, { auth: admin, body: json({ role: "admin" }) }),
      ),
      scenario(
        "unknown role",
        422,
        () => call("PUT", `${base}/memberships/${shown.id}`, { auth: admin, body: json({ role: "king" }) }),
        { role: "king" },
      ),
    ],
    [`DELETE ${org}/memberships/{membership_id}`]: [
      scenario("removed", 204, () => call("DELETE", `${base}/memberships/${removable.id}`, { auth: admin })),
    ],
    [`POST ${org}/invitations`]: [
      scenario(
        "invited",
        201,
        () =>
          call("POST", `${base}/invitations`, {
            auth: admin,
            body: json({ email: "new.doc@example.org", role: "issuer" }),
          }),
        { email: "new.doc@example.org", role: "issuer" },
      ),
      scenario("an owner is not invited by a credential", 403, () =>
        call("POST", `${base}/invitations`, { auth: admin, body: json({ email: "o.doc@example.org", role: "owner" }) }),
      ),
      scenario("a member's address", 422, () =>
        call("POST", `${base}/invitations`, {
          auth: admin,
          body: json({ email: "shown.doc@example.org", role: "viewer" }),
        }),
      ),
    ],
    [`GET ${org}/invitations/{invitation_id}`]: [
      scenario("found", 200, () => call("GET", `${base}/invitations/${pending.id}`, { auth: admin })),
    ],
    [`DELETE ${org}/invitations/{invitation_id}`]: [
      scenario("cancelled", 204, () => call("DELETE", `${base}/invitations/${cancelled.id}`, { auth: admin })),
    ],
  };
};
