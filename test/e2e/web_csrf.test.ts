import t from "tap";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { routesOf } from "../support/routes.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * Every state-changing route of the app, read from Fastify's route tree, sent four ways: signed in
 * with the form's CSRF token; signed in without it (with a query string naming the one exempt
 * route, which must not exempt anything else); signed in with the token from another origin, or
 * from a browser that says the form is cross-site; and signed out with the token. Each web route has its expected answers in the table; a route
 * missing from it fails. API routes take no cookie, so no form of another site can use them.
 */

type Case = "token" | "no_token" | "other_origin" | "cross_site" | "signed_out";
type Expected = Record<Case, number>;

/** Answers of a form route that needs a session and refuses a missing token or another site. */
const FORM = (token: number, signedOut = 303): Expected => ({
  token,
  no_token: 403,
  other_origin: 403,
  cross_site: 403,
  signed_out: signedOut,
});
const API = "api" as const;

const PROBE = "0190a0d8-0000-7000-8000-000000000000";
const TABLE: Record<string, Expected | typeof API> = {
  // Changes nothing and is the same for everyone: no token needed, another site still refused.
  "POST /badges/:id/verify_email": { token: 404, no_token: 404, other_origin: 403, cross_site: 403, signed_out: 404 },
  "POST /badges/:id/accept": FORM(404),
  // The mail link signs its recipient in: it works signed out (an unknown badge: 404).
  "POST /badges/:id/continue": FORM(404, 404),
  "POST /badges/:id/reject": FORM(404),
  "POST /badges/:id/privacy": FORM(404),
  "POST /account/name": FORM(422),
  "POST /account/profile": FORM(303),
  "POST /account/emails": FORM(422),
  "POST /account/emails/remove": FORM(404),
  "POST /account/merge": FORM(422),
  "POST /account/export": FORM(303),
  "POST /account/connections/:grant_id/remove": FORM(303),
  "POST /wallet/external_badges": FORM(422),
  // A form without the file (sent here as urlencoded) is refused on the wallet: no image.
  "POST /wallet/external_badges/image": FORM(422),
  "POST /wallet/external_badges/:id/remove": FORM(404),
  "POST /wallet/external_badges/:id/check": FORM(404),
  "POST /wallet/employers/:id/accept": FORM(404),
  "POST /wallet/employers/:id/reject": FORM(404),
  "POST /wallet/employers/:id/disconnect": FORM(404),
  "POST /wallet/recommendations/:id/dismiss": FORM(404),
  "POST /oauth/authorize": FORM(400, 400),
  "POST /sign_in": FORM(422, 422),
  "POST /sign_in/link": FORM(404, 404),
  "POST /sign_out": FORM(303),
  "POST /sign_out_everywhere": FORM(303),
  // An organization that does not exist: 404 once signed in and the token checked.
  "POST /console/invitations/:token": FORM(404),
  "POST /console/:org/profile": FORM(404),
  "POST /console/:org/profile/image": FORM(404),
  "POST /console/:org/imports": FORM(404),
  "POST /console/:org/imports/:id/start": FORM(404),
  "POST /console/:org/templates": FORM(404),
  "POST /console/:org/issue": FORM(404),
  "POST /console/:org/badges/:id/resend": FORM(404),
  "POST /console/:org/badges/:id/revoke": FORM(404),
  "POST /console/:org/badges/:id/replace": FORM(404),
  "POST /console/:org/badges/:id/delete": FORM(404),
  "POST /console/:org/badges/bulk/revoke": FORM(404),
  "POST /console/:org/badges/bulk/resend": FORM(404),
  "POST /console/:org/templates/:id": FORM(404),
  "POST /console/:org/templates/:id/archive": FORM(404),
  "POST /console/:org/templates/:id/unarchive": FORM(404),
  "POST /console/:org/templates/:id/delete": FORM(404),
  "POST /console/:org/members/invitations": FORM(404),
  "POST /console/:org/members/invitations/:id/resend": FORM(404),
  "POST /console/:org/members/invitations/:id/cancel": FORM(404),
  "POST /console/:org/pathways": FORM(404),
  "POST /console/:org/pathways/:id": FORM(404),
  "POST /console/:org/pathways/:id/publish": FORM(404),
  "POST /console/:org/pathways/:id/archive": FORM(404),
  "POST /console/:org/pathways/:id/delete": FORM(404),
  "POST /console/:org/endorsements": FORM(404),
  "POST /console/:org/endorsements/:id/accept": FORM(404),
  "POST /console/:org/endorsements/:id/reject": FORM(404),
  "POST /console/:org/endorsements/:id/withdraw": FORM(404),
  "POST /console/:org/issuers": FORM(404),
  "POST /console/:org/issuers/:id/end": FORM(404),
  "POST /console/:org/grantors/:id/accept": FORM(404),
  "POST /console/:org/grantors/:id/end": FORM(404),
  "POST /console/:org/members/:id/role": FORM(404),
  "POST /console/:org/members/:id/remove": FORM(404),
  "POST /console/:org/developers/oauth_applications": FORM(404),
  "POST /console/:org/developers/oauth_applications/:id": FORM(404),
  "POST /console/:org/developers/oauth_applications/:id/delete": FORM(404),
  "POST /console/:org/developers/authorization_tokens": FORM(404),
  "POST /console/:org/developers/authorization_tokens/:id/rotate": FORM(404),
  "POST /console/:org/developers/authorization_tokens/:id/revoke": FORM(404),
  "POST /console/:org/developers/webhooks": FORM(404),
  "POST /console/:org/developers/webhooks/secret": FORM(404),
  "POST /console/:org/developers/webhooks/secret/rotate": FORM(404),
  "POST /console/:org/developers/webhooks/test": FORM(404),
  "POST /console/:org/developers/webhooks/redeliver": FORM(404),
  "POST /console/:org/developers/webhooks/redeliver_failed": FORM(404),
  "POST /oauth/token": API,
  "POST /oauth/revoke": API,
  "POST /oauth/register": API,
  "POST /v1/ims/ob/v3p0/credentials": API,
  "PUT /v1/ims/ob/v3p0/profile": API,
  "PUT /v1/organizations/:organization_id": API,
  "POST /v1/organizations/:organization_id/oauth_applications": API,
  "PUT /v1/organizations/:organization_id/oauth_applications/:oauth_application_id": API,
  "DELETE /v1/organizations/:organization_id/oauth_applications/:oauth_application_id": API,
  "POST /v1/organizations/:organization_id/authorization_tokens": API,
  "POST /v1/organizations/:organization_id/authorization_tokens/rotate": API,
  "POST /v1/organizations/:organization_id/badge_templates": API,
  "PUT /v1/organizations/:organization_id/badge_templates/:badge_template_id": API,
  "DELETE /v1/organizations/:organization_id/badge_templates/:badge_template_id": API,
  "PUT /v1/organizations/:organization_id/badge_templates/:badge_template_id/archive": API,
  "PUT /v1/organizations/:organization_id/badge_templates/:badge_template_id/unarchive": API,
  "POST /v1/organizations/:organization_id/badges": API,
  "POST /v1/organizations/:organization_id/badges/batch": API,
  "DELETE /v1/organizations/:organization_id/badges/:badge_id": API,
  "PUT /v1/organizations/:organization_id/badges/:badge_id/revoke": API,
  "POST /v1/organizations/:organization_id/badges/:badge_id/replace": API,
  "POST /v1/organizations/:organization_id/employees": API,
  "POST /v1/organizations/:organization_id/employees/batch": API,
  "POST /v1/organizations/:organization_id/badges/imports": API,
  "POST /v1/organizations/:organization_id/employees/imports": API,
  "POST /v1/organizations/:organization_id/employees/send_invitations": API,
  "PUT /v1/organizations/:organization_id/employees/:employee_id": API,
  "DELETE /v1/organizations/:organization_id/employees/:employee_id": API,
  "PUT /v1/organizations/:organization_id/memberships/:membership_id": API,
  "DELETE /v1/organizations/:organization_id/memberships/:membership_id": API,
  "POST /v1/organizations/:organization_id/invitations": API,
  "DELETE /v1/organizations/:organization_id/invitations/:invitation_id": API,
  "POST /v1/organizations/:organization_id/endorsements": API,
  "PUT /v1/organizations/:organization_id/endorsements/:endorsement_id/accept": API,
  "PUT /v1/organizations/:organization_id/endorsements/:endorsement_id/reject": API,
  "DELETE /v1/organizations/:organization_id/endorsements/:endorsement_id": API,
  "POST /v1/organizations/:organization_id/issuers": API,
  "DELETE /v1/organizations/:organization_id/issuers/:issuer_authorization_id": API,
  "PUT /v1/organizations/:organization_id/grantors/:issuer_authorization_id/accept": API,
  "DELETE /v1/organizations/:organization_id/grantors/:issuer_authorization_id": API,
  "POST /v1/organizations/:organization_id/recommendations": API,
  "DELETE /v1/organizations/:organization_id/recommendations/:recommendation_id": API,
  "POST /v1/organizations/:organization_id/pathways": API,
  "PUT /v1/organizations/:organization_id/pathways/:pathway_id": API,
  "PUT /v1/organizations/:organization_id/pathways/:pathway_id/publish": API,
  "PUT /v1/organizations/:organization_id/pathways/:pathway_id/archive": API,
  "DELETE /v1/organizations/:organization_id/pathways/:pathway_id": API,
};
/** Sign-out routes end the session they are sent with: the earner signs in again after them. */
const ENDS_SESSION = new Set(["POST /sign_out", "POST /sign_out_everywhere"]);

const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

t.test("every state-changing route with and without the CSRF token, from another site, signed out", async (t) => {
  const earner = httpEarner(mailed.laurel.origin, mailed.smtp);
  await earner.signIn("csrf@example.org");
  const routes = routesOf(mailed.laurel.server.app.printRoutes({ commonPrefix: false })).filter(
    (r) => r.method !== "GET" && r.path !== "/trpc/:path",
  );
  t.ok(routes.length > 30, `state-changing routes read from the app (${routes.length})`);
  // The sign-out routes last, so every other route is walked signed in.
  routes.sort((a, b) => Number(a.path.startsWith("/sign_out")) - Number(b.path.startsWith("/sign_out")));

  const send = async (url: string, c: Case) => {
    await earner.get("/account");
    const jar = earner.cookies();
    if (c === "signed_out") jar.delete("laurel_session");
    const form = new URLSearchParams(c === "no_token" ? {} : { _csrf: earner.csrfToken() ?? "" });
    const res = await mailed.laurel.server.app.inject({
      method: "POST",
      url: c === "no_token" ? `${url}?x=/verify_email` : url,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(c === "cross_site"
          ? { "sec-fetch-site": "cross-site" }
          : { origin: c === "other_origin" ? "https://elsewhere.example" : mailed.laurel.origin }),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
      },
      payload: form.toString(),
    });
    return res.statusCode;
  };

  for (const { method, path } of routes) {
    const key = `${method} ${path}`;
    const row = TABLE[key];
    if (!row) {
      t.fail(`${key} has no row in the CSRF table`);
      continue;
    }
    if (row === API) continue;
    const url = path.replace(/:(id|grant_id|org)\b/g, PROBE);
    for (const c of ["no_token", "other_origin", "cross_site", "signed_out", "token"] as const) {
      t.equal(await send(url, c), row[c], `${key}, ${c.replace("_", " ")}`);
    }
    if (ENDS_SESSION.has(key)) await earner.signIn("csrf@example.org");
  }
  t.same(
    Object.keys(TABLE).filter((k) => !routes.some((r) => `${r.method} ${r.path}` === k)),
    [],
    "every row is a route of the app",
  );
});
