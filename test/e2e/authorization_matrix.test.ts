import t from "tap";
import { trpc } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { routesOf } from "../support/routes.ts";

/**
 * Every route of the HTTP app, read from Fastify itself, against every kind of credential: a Basic
 * token with each combination of flags, a Bearer token of an application created by each of
 * those, another organization's credentials, none, and the full credentials of an organization
 * authorized for workforce data (the others' organization is not). Each route has a row saying who passes its
 * authorization; a route without a row, or an answer the row does not allow, fails.
 *
 * Requests carry ids that do not exist and bodies that do not validate, so an allowed request
 * answers 2xx, 400, 404 or 422 without changing anything, and a refused one 401 or 403.
 */

type FlagSet = "---" | "r--" | "-w-" | "--d" | "rw-" | "r-d" | "-wd" | "rwd";
const FLAG_SETS: FlagSet[] = ["---", "r--", "-w-", "--d", "rw-", "r-d", "-wd", "rwd"];
const flagsOf = (f: FlagSet) => ({
  read_enabled: f[0] === "r",
  write_enabled: f[1] === "w",
  delete_enabled: f[2] === "d",
});

/**
 * Who passes: Basic tokens holding `basic`, Bearer tokens of applications created with these flags;
 * with `workforce`, only those of an organization the operator authorized for workforce data.
 */
type Row =
  | { guarded: true; basic: "r" | "w" | "d"; bearer: FlagSet[]; workforce?: true; own?: true }
  | { guarded: false; who: "anyone" | "nobody" | "session" };

const READ: Row = { guarded: true, basic: "r", bearer: ["rw-", "rwd"] };
const WRITE: Row = { guarded: true, basic: "w", bearer: ["-w-", "rw-", "-wd", "rwd"] };
const DELETE: Row = { guarded: true, basic: "d", bearer: ["-wd", "rwd"] };
/** Workforce data alone (an employee's external badges): refused to an organization not authorized for it. */
const WORKFORCE_READ: Row = { ...READ, workforce: true };
/** `authorization_tokens` is granted only to applications whose creator held every flag. */
const TOKENS_READ: Row = { guarded: true, basic: "r", bearer: ["rwd"] };
const TOKENS_WRITE: Row = { guarded: true, basic: "w", bearer: ["rwd"] };
const PUBLIC: Row = { guarded: false, who: "anyone" };
/** Client credentials (the token endpoint) or the admin token: no API credential gets a 2xx. */
const NOBODY: Row = { guarded: false, who: "nobody" };
/** An earner's page: API credentials mean nothing there; without a session it sends to sign-in. */
const SESSION: Row = { guarded: false, who: "session" };

const ORG = "/v1/organizations/:organization_id";
const TABLE: Record<string, Row> = {
  "GET /docs": PUBLIC,
  "GET /docs/static/index.html": PUBLIC,
  "GET /docs/static/swagger-initializer.js": PUBLIC,
  "GET /docs/*": PUBLIC,
  "GET /docs/json": PUBLIC,
  "GET /docs/yaml": PUBLIC,
  "GET /healthz": PUBLIC,
  "GET /readyz": PUBLIC,
  "GET /metrics": PUBLIC,
  "GET /openapi.json": PUBLIC,
  "GET /.well-known/jwks.json": PUBLIC,
  "GET /.well-known/oauth-authorization-server": PUBLIC,
  "POST /oauth/token": NOBODY,
  "POST /oauth/revoke": NOBODY,
  "POST /oauth/register": NOBODY,
  "GET /v1/ims/ob/v3p0/discovery": PUBLIC,
  "GET /v1/ims/ob/v3p0/credentials": NOBODY,
  "POST /v1/ims/ob/v3p0/credentials": NOBODY,
  "GET /v1/ims/ob/v3p0/profile": NOBODY,
  "PUT /v1/ims/ob/v3p0/profile": NOBODY,
  /** The organization itself: any credential of it reads; changing it takes the `oauth_applications` scope. */
  "GET /v1/organizations": { ...READ, own: true },
  [`GET ${ORG}`]: READ,
  [`PUT ${ORG}`]: WRITE,
  [`GET ${ORG}/oauth_applications`]: READ,
  [`POST ${ORG}/oauth_applications`]: WRITE,
  [`GET ${ORG}/oauth_applications/:oauth_application_id`]: READ,
  [`PUT ${ORG}/oauth_applications/:oauth_application_id`]: WRITE,
  [`DELETE ${ORG}/oauth_applications/:oauth_application_id`]: DELETE,
  [`GET ${ORG}/authorization_tokens`]: TOKENS_READ,
  [`POST ${ORG}/authorization_tokens`]: TOKENS_WRITE,
  [`POST ${ORG}/authorization_tokens/rotate`]: TOKENS_WRITE,
  [`GET ${ORG}/badge_templates`]: READ,
  [`POST ${ORG}/badge_templates`]: WRITE,
  [`GET ${ORG}/badge_templates/:badge_template_id`]: READ,
  [`PUT ${ORG}/badge_templates/:badge_template_id`]: WRITE,
  [`DELETE ${ORG}/badge_templates/:badge_template_id`]: DELETE,
  [`PUT ${ORG}/badge_templates/:badge_template_id/archive`]: WRITE,
  [`PUT ${ORG}/badge_templates/:badge_template_id/unarchive`]: WRITE,
  [`GET ${ORG}/endorsements`]: READ,
  [`POST ${ORG}/endorsements`]: WRITE,
  [`GET ${ORG}/endorsements/received`]: READ,
  [`PUT ${ORG}/endorsements/:endorsement_id/accept`]: WRITE,
  [`PUT ${ORG}/endorsements/:endorsement_id/reject`]: WRITE,
  [`DELETE ${ORG}/endorsements/:endorsement_id`]: DELETE,
  /** Authorized issuers: the grantor's side under `badge_templates`, the issuer's under `issued_badges`. */
  [`GET ${ORG}/issuers`]: READ,
  [`POST ${ORG}/issuers`]: WRITE,
  [`GET ${ORG}/issuers/:issuer_authorization_id`]: READ,
  [`DELETE ${ORG}/issuers/:issuer_authorization_id`]: DELETE,
  [`GET ${ORG}/grantors`]: READ,
  [`GET ${ORG}/grantors/:issuer_authorization_id`]: READ,
  [`PUT ${ORG}/grantors/:issuer_authorization_id/accept`]: WRITE,
  [`DELETE ${ORG}/grantors/:issuer_authorization_id`]: DELETE,
  /** Recommendations: scope `recommendations`. */
  [`GET ${ORG}/recommendations`]: READ,
  [`POST ${ORG}/recommendations`]: WRITE,
  [`GET ${ORG}/recommendations/:recommendation_id`]: READ,
  [`DELETE ${ORG}/recommendations/:recommendation_id`]: DELETE,
  /** Pathways: scope `pathways`. */
  [`GET ${ORG}/pathways`]: READ,
  [`POST ${ORG}/pathways`]: WRITE,
  [`GET ${ORG}/pathways/:pathway_id`]: READ,
  [`PUT ${ORG}/pathways/:pathway_id`]: WRITE,
  [`PUT ${ORG}/pathways/:pathway_id/publish`]: WRITE,
  [`PUT ${ORG}/pathways/:pathway_id/archive`]: WRITE,
  [`DELETE ${ORG}/pathways/:pathway_id`]: DELETE,
  [`GET ${ORG}/pathways/:pathway_id/earners`]: READ,
  [`GET ${ORG}/badges`]: READ,
  [`POST ${ORG}/badges`]: WRITE,
  [`POST ${ORG}/badges/batch`]: WRITE,
  [`GET ${ORG}/badges/:badge_id`]: READ,
  [`DELETE ${ORG}/badges/:badge_id`]: DELETE,
  [`PUT ${ORG}/badges/:badge_id/revoke`]: WRITE,
  [`POST ${ORG}/badges/:badge_id/replace`]: WRITE,
  [`GET ${ORG}/high_volume_issued_badge_search`]: READ,
  [`GET ${ORG}/employees`]: READ,
  [`POST ${ORG}/employees`]: WRITE,
  [`POST ${ORG}/employees/batch`]: WRITE,
  [`POST ${ORG}/badges/imports`]: WRITE,
  [`GET ${ORG}/badges/imports/:import_id`]: READ,
  [`GET ${ORG}/badges/imports/:import_id/result`]: READ,
  [`POST ${ORG}/employees/imports`]: WRITE,
  [`GET ${ORG}/employees/imports/:import_id`]: READ,
  [`GET ${ORG}/employees/imports/:import_id/result`]: READ,
  [`POST ${ORG}/employees/send_invitations`]: WRITE,
  [`GET ${ORG}/employees/:employee_id`]: READ,
  [`PUT ${ORG}/employees/:employee_id`]: WRITE,
  [`DELETE ${ORG}/employees/:employee_id`]: DELETE,
  [`GET ${ORG}/employees/:employee_id/external_badges`]: WORKFORCE_READ,
  [`GET ${ORG}/memberships`]: READ,
  [`GET ${ORG}/memberships/:membership_id`]: READ,
  [`PUT ${ORG}/memberships/:membership_id`]: WRITE,
  [`DELETE ${ORG}/memberships/:membership_id`]: DELETE,
  [`GET ${ORG}/invitations`]: READ,
  [`POST ${ORG}/invitations`]: WRITE,
  [`GET ${ORG}/invitations/:invitation_id`]: READ,
  [`DELETE ${ORG}/invitations/:invitation_id`]: DELETE,
  [`GET ${ORG}/events`]: READ,
  [`GET ${ORG}/events/:event_id`]: READ,
  "GET /": PUBLIC,
  "GET /*": PUBLIC,
  "GET /sign_in": PUBLIC,
  "GET /sign_in/link": PUBLIC,
  "GET /badges/:id": PUBLIC,
  "GET /badges/:id/accept": PUBLIC,
  /** Baked images: as public as the badge's hosted records, a private one to its earner. */
  "GET /badges/:id/image.png": PUBLIC,
  "GET /badges/:id/image.svg": PUBLIC,
  "POST /badges/:id/verify_email": PUBLIC,
  "GET /organizations/:id": PUBLIC,
  "GET /pathways/:id": PUBLIC,
  "GET /users/:who": PUBLIC,
  /** The earner's public badge feed (404 for a private profile). */
  "GET /users/:who/badges": PUBLIC,
  "GET /users/:who/badges.json": PUBLIC,
  "GET /wallet": SESSION,
  "POST /wallet/employers/:id/accept": NOBODY,
  "POST /wallet/employers/:id/reject": NOBODY,
  "POST /wallet/employers/:id/disconnect": NOBODY,
  "POST /wallet/recommendations/:id/dismiss": NOBODY,
  "POST /wallet/external_badges": NOBODY,
  "POST /wallet/external_badges/image": NOBODY,
  "POST /wallet/external_badges/:id/remove": NOBODY,
  "POST /wallet/external_badges/:id/check": NOBODY,
  "GET /account": SESSION,
  "GET /account/connections": SESSION,
  "POST /account/connections/:grant_id/remove": NOBODY,
  "GET /oauth/authorize": PUBLIC,
  "POST /oauth/authorize": NOBODY,
  "POST /sign_in": NOBODY,
  "POST /sign_in/link": NOBODY,
  "POST /sign_out": NOBODY,
  "POST /sign_out_everywhere": NOBODY,
  "POST /badges/:id/accept": NOBODY,
  "POST /badges/:id/continue": NOBODY,
  "POST /badges/:id/reject": NOBODY,
  "POST /badges/:id/privacy": NOBODY,
  "POST /account/name": NOBODY,
  "POST /account/emails": NOBODY,
  "POST /account/emails/remove": NOBODY,
  "POST /account/profile": NOBODY,
  "POST /account/merge": NOBODY,
  "POST /account/export": NOBODY,
  /** A mailed export link: its token is the key (wrong or none: 404; expired: 410). */
  "GET /account/export/:id": PUBLIC,
  /** The organization console: a member's session only (its own table: console_authorization.test.ts). */
  "GET /console": SESSION,
  "GET /console/:org": SESSION,
  "GET /console/:org/audit": SESSION,
  "GET /console/:org/developers/authorization_tokens": SESSION,
  "GET /console/:org/developers/oauth_applications": SESSION,
  "GET /console/:org/developers/oauth_applications/:id": SESSION,
  "GET /console/:org/developers/webhooks": SESSION,
  "GET /console/:org/members": SESSION,
  "GET /console/:org/pathways": SESSION,
  "GET /console/:org/pathways/new": SESSION,
  "POST /console/:org/pathways": NOBODY,
  "GET /console/:org/pathways/:id": SESSION,
  "POST /console/:org/pathways/:id": NOBODY,
  "POST /console/:org/pathways/:id/publish": NOBODY,
  "POST /console/:org/pathways/:id/archive": NOBODY,
  "POST /console/:org/pathways/:id/delete": NOBODY,
  "GET /console/:org/pathways/:id/earners": SESSION,
  "GET /console/:org/endorsements": SESSION,
  "POST /console/:org/endorsements": NOBODY,
  "POST /console/:org/endorsements/:id/accept": NOBODY,
  "POST /console/:org/endorsements/:id/reject": NOBODY,
  "POST /console/:org/endorsements/:id/withdraw": NOBODY,
  "GET /console/:org/issuers": SESSION,
  "POST /console/:org/issuers": NOBODY,
  "POST /console/:org/issuers/:id/end": NOBODY,
  "POST /console/:org/grantors/:id/accept": NOBODY,
  "POST /console/:org/grantors/:id/end": NOBODY,
  "GET /console/:org/profile": SESSION,
  "GET /console/:org/imports": SESSION,
  "GET /console/:org/imports/examples/:file": SESSION,
  "GET /console/:org/imports/:id": SESSION,
  "GET /console/:org/imports/:id/status": SESSION,
  "GET /console/:org/imports/:id/result": SESSION,
  "GET /console/:org/templates": SESSION,
  "GET /console/:org/issue": SESSION,
  "GET /console/:org/badges": SESSION,
  "GET /console/:org/badges/:id": SESSION,
  "GET /console/:org/employees": SESSION,
  "GET /console/:org/employees/:id": SESSION,
  "GET /console/:org/templates/new": SESSION,
  "GET /console/:org/templates/:id": SESSION,
  "GET /console/:org/templates/:id/mail": SESSION,
  "GET /console/:org/templates/:id/mail.html": SESSION,
  "GET /console/:org/figures": SESSION,
  "GET /console/:org/figures.csv": SESSION,
  /** An invitation link's page: the link is the key (an unknown one is a plain 404 page). */
  "GET /console/invitations/:token": PUBLIC,
  "POST /console/:org/developers/authorization_tokens": NOBODY,
  "POST /console/:org/developers/authorization_tokens/:id/revoke": NOBODY,
  "POST /console/:org/developers/authorization_tokens/:id/rotate": NOBODY,
  "POST /console/:org/developers/oauth_applications": NOBODY,
  "POST /console/:org/developers/oauth_applications/:id": NOBODY,
  "POST /console/:org/developers/oauth_applications/:id/delete": NOBODY,
  "POST /console/:org/developers/webhooks": NOBODY,
  "POST /console/:org/developers/webhooks/redeliver": NOBODY,
  "POST /console/:org/developers/webhooks/redeliver_failed": NOBODY,
  "POST /console/:org/developers/webhooks/secret": NOBODY,
  "POST /console/:org/developers/webhooks/secret/rotate": NOBODY,
  "POST /console/:org/developers/webhooks/test": NOBODY,
  "POST /console/:org/members/:id/remove": NOBODY,
  "POST /console/:org/members/:id/role": NOBODY,
  "POST /console/:org/members/invitations": NOBODY,
  "POST /console/:org/members/invitations/:id/cancel": NOBODY,
  "POST /console/:org/members/invitations/:id/resend": NOBODY,
  "POST /console/:org/profile": NOBODY,
  "POST /console/:org/profile/image": NOBODY,
  "POST /console/:org/imports": NOBODY,
  "POST /console/:org/imports/:id/start": NOBODY,
  "POST /console/:org/templates": NOBODY,
  "POST /console/:org/issue": NOBODY,
  "POST /console/:org/badges/:id/resend": NOBODY,
  "POST /console/:org/badges/bulk/revoke": NOBODY,
  "POST /console/:org/badges/bulk/resend": NOBODY,
  "POST /console/:org/badges/:id/revoke": NOBODY,
  "POST /console/:org/badges/:id/replace": NOBODY,
  "POST /console/:org/badges/:id/delete": NOBODY,
  "POST /console/:org/templates/:id": NOBODY,
  "POST /console/:org/templates/:id/archive": NOBODY,
  "POST /console/:org/templates/:id/unarchive": NOBODY,
  "POST /console/:org/templates/:id/delete": NOBODY,
  "POST /console/invitations/:token": NOBODY,
  /** Stored images (issuer and template images), content-addressed. */
  "GET /images/:name": PUBLIC,
  /** Earners' tokens only: no organization credential reaches them. */
  "GET /v1/me": NOBODY,
  "GET /v1/me/badges": NOBODY,
  "GET /v1/obi/v2/badge_assertions/:id": PUBLIC,
  "GET /v1/obi/v2/badge_classes/:id": PUBLIC,
  "GET /v1/obi/v2/issuers/:id": PUBLIC,
  "GET /v1/obi/v3/issuers/:id": PUBLIC,
  "GET /v1/obi/v2/images/default_badge.svg": PUBLIC,
  "GET /v1/obi/v3/credentials/:id": PUBLIC,
  "GET /v1/obi/v3/credentials/:id/ldp": PUBLIC,
  "GET /v1/obi/v3/multikeys/:organization_id/:key": PUBLIC,
  "GET /v1/obi/v3/keys/:thumbprint": PUBLIC,
  "GET /v1/obi/v3/endorsements/:id": PUBLIC,
  "GET /v1/obi/v3/status_lists/:organization_id/:list": PUBLIC,
};
/** The admin API answers every method, all of them for the admin token only. */
const TRPC = "/trpc/:path";

interface Kind {
  name: string;
  header: string | undefined;
  /** The organization whose paths it is sent to. */
  organizationId: string;
  /** Whether that organization holds workforce authorization (the credential's own, when it is its). */
  workforceAuthorized: boolean;
  /** The row's verdict for this credential on a guarded route. */
  passes(row: Extract<Row, { guarded: true }>): boolean;
  /** 401 or 403 when it does not pass. */
  refusedWith: 401 | 403;
  /**
   * A full credential of an organization other than the path's: on a route of the caller's own
   * organization (`own`, a path that names none) it passes as in its own.
   */
  elsewhere?: true;
}

let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

const json = async (method: string, path: string, auth: string, body?: unknown) => {
  const res = await laurel.server.app.inject({
    method: method as "GET",
    url: path,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null };
};

const bearerFor = async (clientId: string, secret: string, scope: string): Promise<string> => {
  const res = await laurel.server.app.inject({
    method: "POST",
    url: "/oauth/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: secret,
      scope,
    }).toString(),
  });
  if (res.statusCode !== 200) throw new Error(`token endpoint: ${res.statusCode} ${res.body}`);
  return `Bearer ${(JSON.parse(res.body) as { access_token: string }).access_token}`;
};

t.test("every route x every credential kind", async (t) => {
  const a = await laurel.createOrganization("Matrix A");
  const b = await laurel.createOrganization("Matrix B");
  const orgA = `/v1/organizations/${a.organization.id}`;
  const fullA = basic(a.authorization_token.token);
  // A is not authorized for workforce data (the default); W is, and its full credentials pass everywhere.
  const w = await laurel.createOrganization("Matrix W");
  await trpc(laurel, "workforce.authorize", { organization_id: w.organization.id, authorized: true });
  const fullW = basic(w.authorization_token.token);
  const appW = await json("POST", `/v1/organizations/${w.organization.id}/oauth_applications`, fullW, { name: "W" });
  const ofA = { organizationId: a.organization.id, workforceAuthorized: false };

  const kinds: Kind[] = [];
  for (const f of FLAG_SETS) {
    const made = await json("POST", `${orgA}/authorization_tokens`, fullA, { description: f, ...flagsOf(f) });
    t.equal(made.status, 201);
    const header = basic(made.body.data.token);
    kinds.push({
      name: `Basic ${f}`,
      header,
      ...ofA,
      passes: (row) => f.includes(row.basic),
      refusedWith: 403,
    });
    // An application of this token, and an access token with every scope it may be granted.
    const app = await json("POST", `${orgA}/oauth_applications`, header, { name: `app ${f}` });
    if (!f.includes("w")) {
      t.equal(app.status, 403, `a ${f} token cannot create an application`);
      continue;
    }
    t.equal(app.status, 201);
    const bearer = await bearerFor(app.body.data.uid, app.body.data.secret, app.body.data.scopes);
    kinds.push({
      name: `Bearer of ${f}`,
      header: bearer,
      ...ofA,
      passes: (row) => row.bearer.includes(f),
      refusedWith: 403,
    });
  }
  const appB = await json(
    "POST",
    `/v1/organizations/${b.organization.id}/oauth_applications`,
    basic(b.authorization_token.token),
    {
      name: "B",
    },
  );
  kinds.push(
    {
      name: "another organization's Basic",
      header: basic(b.authorization_token.token),
      ...ofA,
      passes: () => false,
      refusedWith: 403,
      elsewhere: true,
    },
    {
      name: "another organization's Bearer",
      header: await bearerFor(appB.body.data.uid, appB.body.data.secret, appB.body.data.scopes),
      ...ofA,
      passes: () => false,
      refusedWith: 403,
      elsewhere: true,
    },
    { name: "none", header: undefined, ...ofA, passes: () => false, refusedWith: 401 },
    {
      name: "a workforce-authorized organization's Basic rwd",
      header: fullW,
      organizationId: w.organization.id,
      workforceAuthorized: true,
      passes: () => true,
      refusedWith: 403,
    },
    {
      name: "a workforce-authorized organization's Bearer of rwd",
      header: await bearerFor(appW.body.data.uid, appW.body.data.secret, appW.body.data.scopes),
      organizationId: w.organization.id,
      workforceAuthorized: true,
      passes: () => true,
      refusedWith: 403,
    },
    {
      name: "a workforce-authorized organization's Basic, on A",
      header: fullW,
      ...ofA,
      passes: () => false,
      refusedWith: 403,
      elsewhere: true,
    },
  );

  const routes = routesOf(laurel.server.app.printRoutes({ commonPrefix: false }));
  t.ok(routes.length > 30, `routes read from the app (${routes.length})`);
  const probe = "0190a0d8-0000-7000-8000-000000000000";
  for (const { method, path } of routes) {
    const key = `${method} ${path}`;
    const row = path === TRPC ? NOBODY : TABLE[key];
    if (!row) {
      t.fail(`${key} has no row in the authorization table`);
      continue;
    }
    if (method === "QUERY" || method === "TRACE") continue; // not sendable by HTTP clients we test with
    const at = (organizationId: string) =>
      path
        .replace(":organization_id", organizationId)
        .replace(":oauth_application_id", "2147483000")
        .replace(/:(badge_template_id|badge_id|event_id|employee_id|membership_id|invitation_id|id)\b/, probe)
        .replace(":who", "probe")
        .replace(":grant_id", probe)
        .replace(":thumbprint", "probe")
        .replace(":path", "organizations.list")
        .replace("*", "probe");
    const hasBody = method === "POST" || method === "PUT" || method === "PATCH";
    const isTokenEndpoint = path === "/oauth/token";
    for (const kind of kinds) {
      const res = await laurel.server.app.inject({
        method: method as "GET",
        url: at(kind.organizationId),
        headers: {
          ...(kind.header ? { authorization: kind.header } : {}),
          ...(hasBody
            ? { "content-type": isTokenEndpoint ? "application/x-www-form-urlencoded" : "application/json" }
            : {}),
        },
        ...(hasBody
          ? { payload: isTokenEndpoint ? "grant_type=client_credentials&scope=events" : '{"matrix_probe":true}' }
          : {}),
      });
      const status = res.statusCode;
      const label = `${key} as ${kind.name}: ${status}`;
      t.ok(status < 500, `${label} is not a server error`);
      if (!row.guarded) {
        if (row.who === "anyone") t.ok(status !== 401 && status !== 403, label);
        else if (row.who === "session") t.ok(status >= 300 && status < 400, `${label} (sent to sign-in)`);
        // No credential of the API is let in: 401, or a 4xx of its own for methods it never serves.
        else t.ok(status >= 400 && status < 500, `${label} (refused)`);
        continue;
      }
      if ((row.own && kind.elsewhere) || (kind.passes(row) && (!row.workforce || kind.workforceAuthorized)))
        t.ok(status !== 401 && status !== 403, `${label} (allowed)`);
      else t.equal(status, kind.refusedWith, `${label} (refused)`);
    }
  }
});
