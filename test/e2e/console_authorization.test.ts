import t from "tap";
import type { Role } from "../../core/members/mod.ts";
import { signedInMember } from "../support/console.ts";
import { type HttpEarner, httpEarner } from "../support/earner_http.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { routesOf } from "../support/routes.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/**
 * Every console route, read from Fastify's route tree, asked by everyone who can ask: signed out,
 * signed in without a membership, and a member of each role. Each route has its expected answers
 * in the table; a route missing from it fails, and so does a row that is no route.
 */
type Who = "signed_out" | "stranger" | Role;
const WHO: readonly Who[] = ["signed_out", "stranger", "owner", "admin", "issuer", "viewer"];
type Expected = Record<Who, number>;

/** A route the roles in `roles` may use (answering `ok`), refused (403) to the others. */
const only = (roles: readonly Role[], ok: number): Expected => ({
  signed_out: 303,
  stranger: 403,
  owner: roles.includes("owner") ? ok : 403,
  admin: roles.includes("admin") ? ok : 403,
  issuer: roles.includes("issuer") ? ok : 403,
  viewer: roles.includes("viewer") ? ok : 403,
});
const EVERY_ROLE: readonly Role[] = ["owner", "admin", "issuer", "viewer"];
/** Owners and admins: the Developers section, the audit log, managing members. */
const DEVELOPERS: readonly Role[] = ["owner", "admin"];
/** Who issues, revokes and replaces badges, and imports them. */
const ISSUERS: readonly Role[] = ["owner", "admin", "issuer"];

const TABLE: Record<string, Expected> = {
  "GET /console": { signed_out: 303, stranger: 200, owner: 200, admin: 200, issuer: 200, viewer: 200 },
  // Open signup (set below): an empty form is refused as the API would refuse it.
  "POST /console/organizations": { signed_out: 303, stranger: 422, owner: 422, admin: 422, issuer: 422, viewer: 422 },
  // An unknown invitation: the same page for everyone.
  "GET /console/invitations/:token": {
    signed_out: 404,
    stranger: 404,
    owner: 404,
    admin: 404,
    issuer: 404,
    viewer: 404,
  },
  "POST /console/invitations/:token": {
    signed_out: 303,
    stranger: 404,
    owner: 404,
    admin: 404,
    issuer: 404,
    viewer: 404,
  },
  "GET /console/:org": only(EVERY_ROLE, 200),
  "GET /console/:org/profile": only(EVERY_ROLE, 200),
  "POST /console/:org/profile": only(DEVELOPERS, 422),
  // A form without a file.
  "POST /console/:org/profile/image": only(DEVELOPERS, 400),
  "GET /console/:org/templates": only(EVERY_ROLE, 200),
  "GET /console/:org/templates/new": only(DEVELOPERS, 200),
  // An empty form: refused as the API would refuse it.
  "POST /console/:org/templates": only(DEVELOPERS, 422),
  // A template id that names nothing.
  "GET /console/:org/templates/:id": only(DEVELOPERS, 404),
  "POST /console/:org/templates/:id": only(DEVELOPERS, 404),
  "POST /console/:org/templates/:id/archive": only(DEVELOPERS, 404),
  "POST /console/:org/templates/:id/unarchive": only(DEVELOPERS, 404),
  "POST /console/:org/templates/:id/delete": only(DEVELOPERS, 404),
  // The badge mail's preview, of an unknown template.
  "GET /console/:org/templates/:id/mail": only(EVERY_ROLE, 404),
  "GET /console/:org/templates/:id/mail.html": only(EVERY_ROLE, 404),
  "GET /console/:org/members": only(EVERY_ROLE, 200),
  "POST /console/:org/members/invitations": only(DEVELOPERS, 422),
  "POST /console/:org/members/invitations/:id/resend": only(DEVELOPERS, 404),
  "POST /console/:org/members/invitations/:id/cancel": only(DEVELOPERS, 404),
  "POST /console/:org/members/:id/role": only(DEVELOPERS, 422),
  "POST /console/:org/members/:id/remove": only(DEVELOPERS, 404),
  "GET /console/:org/audit": only(DEVELOPERS, 200),
  // Endorsements speak for the organization as its profile does: read by every role, given and answered by owners and admins.
  // Pathways: read under templates.read, changed under templates.write, as the API's; ids that name none.
  "GET /console/:org/pathways": only(EVERY_ROLE, 200),
  "GET /console/:org/pathways/new": only(DEVELOPERS, 200),
  // An empty form: refused as the API would refuse it.
  "POST /console/:org/pathways": only(DEVELOPERS, 422),
  "GET /console/:org/pathways/:id": only(EVERY_ROLE, 404),
  "POST /console/:org/pathways/:id": only(DEVELOPERS, 404),
  "POST /console/:org/pathways/:id/publish": only(DEVELOPERS, 404),
  "POST /console/:org/pathways/:id/archive": only(DEVELOPERS, 404),
  "POST /console/:org/pathways/:id/delete": only(DEVELOPERS, 404),
  "GET /console/:org/pathways/:id/earners": only(EVERY_ROLE, 404),
  "GET /console/:org/endorsements": only(EVERY_ROLE, 200),
  "POST /console/:org/endorsements": only(DEVELOPERS, 422),
  "POST /console/:org/endorsements/:id/accept": only(DEVELOPERS, 404),
  "POST /console/:org/endorsements/:id/reject": only(DEVELOPERS, 404),
  "POST /console/:org/endorsements/:id/withdraw": only(DEVELOPERS, 404),
  "GET /console/:org/issuers": only(EVERY_ROLE, 200),
  // An empty form names no organization.
  "POST /console/:org/issuers": only(DEVELOPERS, 422),
  "POST /console/:org/issuers/:id/end": only(DEVELOPERS, 404),
  "POST /console/:org/grantors/:id/accept": only(DEVELOPERS, 404),
  "POST /console/:org/grantors/:id/end": only(DEVELOPERS, 404),
  "GET /console/:org/developers/oauth_applications": only(DEVELOPERS, 200),
  // An empty form: refused as the API would refuse it.
  "POST /console/:org/developers/oauth_applications": only(DEVELOPERS, 422),
  "GET /console/:org/developers/oauth_applications/:id": only(DEVELOPERS, 404),
  "POST /console/:org/developers/oauth_applications/:id": only(DEVELOPERS, 404),
  "POST /console/:org/developers/oauth_applications/:id/delete": only(DEVELOPERS, 404),
  "GET /console/:org/developers/authorization_tokens": only(DEVELOPERS, 200),
  // No box ticked: a token with no permission is made and shown once.
  // Made, then to the list (303) that shows its value once.
  "POST /console/:org/developers/authorization_tokens": only(DEVELOPERS, 303),
  "POST /console/:org/developers/authorization_tokens/:id/rotate": only(DEVELOPERS, 404),
  "POST /console/:org/developers/authorization_tokens/:id/revoke": only(DEVELOPERS, 404),
  "GET /console/:org/developers/webhooks": only(DEVELOPERS, 200),
  "POST /console/:org/developers/webhooks": only(DEVELOPERS, 303),
  "POST /console/:org/developers/webhooks/secret": only(DEVELOPERS, 303),
  // Without confirm=yes: the question, nothing rotated.
  "POST /console/:org/developers/webhooks/secret/rotate": only(DEVELOPERS, 200),
  // No webhook address: nothing to send a test to.
  "POST /console/:org/developers/webhooks/test": only(DEVELOPERS, 422),
  "POST /console/:org/developers/webhooks/redeliver": only(DEVELOPERS, 422),
  "POST /console/:org/developers/webhooks/redeliver_failed": only(DEVELOPERS, 422),
  "GET /console/:org/imports": only(ISSUERS, 200),
  // A form without a file.
  "POST /console/:org/imports": only(ISSUERS, 422),
  // `:file` left as it is: no such example.
  "GET /console/:org/imports/examples/:file": only(ISSUERS, 404),
  "GET /console/:org/imports/:id": only(ISSUERS, 404),
  "POST /console/:org/imports/:id/start": only(ISSUERS, 404),
  "GET /console/:org/imports/:id/status": only(ISSUERS, 404),
  "GET /console/:org/imports/:id/result": only(ISSUERS, 404),
  "GET /console/:org/issue": only(ISSUERS, 200),
  // An empty form: refused as the API would refuse it.
  "POST /console/:org/issue": only(ISSUERS, 422),
  "GET /console/:org/badges": only(EVERY_ROLE, 200),
  "GET /console/:org/badges/:id": only(EVERY_ROLE, 404),
  // Bulk actions: no reason (revoke) or no badge picked (resend), so nothing is done.
  "POST /console/:org/badges/bulk/revoke": only(ISSUERS, 422),
  "POST /console/:org/badges/bulk/resend": only(ISSUERS, 422),
  "GET /console/:org/figures": only(EVERY_ROLE, 200),
  "GET /console/:org/figures.csv": only(EVERY_ROLE, 200),
  "POST /console/:org/badges/:id/resend": only(ISSUERS, 404),
  "POST /console/:org/badges/:id/revoke": only(ISSUERS, 404),
  "POST /console/:org/badges/:id/replace": only(ISSUERS, 404),
  // Owners and admins only, as the role table says.
  "POST /console/:org/badges/:id/delete": only(DEVELOPERS, 404),
  "GET /console/:org/employees": only(EVERY_ROLE, 200),
  "GET /console/:org/employees/:id": only(EVERY_ROLE, 404),
};

/** Path parameters: the organization under test, ids that name nothing (so no change is made). */
const fill = (path: string, org: string): string =>
  path
    .replace(":org", org)
    .replace(/oauth_applications\/:id/, "oauth_applications/2147483000")
    .replace(":id", "0190a0d8-0000-7000-8000-000000000000")
    .replace(":token", "no-such-invitation");

let laurel: TestLaurel;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
t.before(async () => {
  smtp = await startSmtpSink();
  laurel = await startLaurel({ env: { SMTP_URL: smtp.url, ORGANIZATION_SIGNUP: "open" } });
});
t.teardown(async () => {
  await laurel?.close();
  await smtp?.close();
});

t.test("every console route × role × signed in or not", async (t) => {
  const { organization } = await laurel.createOrganization("Authorization table");
  const browsers = new Map<Who, HttpEarner>();
  browsers.set("signed_out", httpEarner(laurel.origin, smtp));
  browsers.set("stranger", await signedInMember(laurel, smtp, organization.id, "stranger@example.org", null));
  for (const role of EVERY_ROLE) {
    browsers.set(role, await signedInMember(laurel, smtp, organization.id, `${role}@example.org`, role));
  }

  const routes = routesOf(laurel.server.app.printRoutes({ commonPrefix: false })).filter((r) =>
    r.path.startsWith("/console"),
  );
  t.ok(routes.length >= Object.keys(TABLE).length, `console routes read from the app (${routes.length})`);
  for (const { method, path } of routes) {
    const key = `${method} ${path}`;
    const row = TABLE[key];
    if (!row) {
      t.fail(`${key} has no row in the console authorization table`);
      continue;
    }
    const url = fill(path, organization.id);
    for (const who of WHO) {
      const browser = browsers.get(who) as HttpEarner;
      // A page read first, as a browser would: its form carries the CSRF token.
      await browser.get("/console");
      const answer = method === "GET" ? await browser.get(url) : await browser.submit(url, {});
      t.equal(answer.status, row[who], `${key} as ${who}`);
      if (row[who] === 303 && who === "signed_out") {
        t.match(answer.location ?? "", /^\/sign_in\?next=%2Fconsole/, `${key}: signed out, to sign-in and back`);
      }
      if (answer.status === 403) t.match(answer.text, /Not allowed/, `${key} as ${who}: a page saying so`);
    }
  }
  t.same(
    Object.keys(TABLE).filter((k) => !routes.some((r) => `${r.method} ${r.path}` === k)),
    [],
    "every row is a route of the app",
  );
});

t.test("open signup: a signed-in account creates an organization with a confirmed address and owns it", async (t) => {
  const maker = await signedInMember(laurel, smtp, "", "maker@example.org", null);
  await maker.get("/console");
  const refused = await maker.submit("/console/organizations", { name: "Elsewhere", email: "other@example.org" });
  t.equal(refused.status, 422, "an address the account has not confirmed is refused");
  const made = await maker.submit("/console/organizations", { name: "Maker Co", email: "maker@example.org" });
  t.equal(made.status, 303);
  const home = await maker.get(made.location ?? "");
  t.equal(home.status, 200);
  t.match(home.text, /Maker Co/);
  t.match(home.text, /Owner/, "its owner");
});
