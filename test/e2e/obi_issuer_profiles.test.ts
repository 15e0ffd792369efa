import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import { buildApiServer, StartupRefused } from "../../apps/api_server.ts";
import { readConfig } from "../../apps/config.ts";
import { apiClient, basicOrg, createTemplate, issueBody, trpc, trpcFailure } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import {
  checkAssertion,
  checkBadgeClass,
  checkIssuer,
  checkRevokedAssertion,
  expandStrict,
} from "../support/ob2/check.ts";
import { runTs } from "../support/processes.ts";

/**
 * Issuer profiles valid under OB 2.0: every organization has a contact e-mail, and each hosted
 * document class of an organization with no website passes the validator's rules and expands.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

// biome-ignore lint/suspicious/noExplicitAny: OBI documents are JSON
const get = async (url: string): Promise<{ status: number; body: any }> => {
  const res = await fetch(url);
  return { status: res.status, body: await res.json().catch(() => null) };
};

t.test("an organization needs a contact e-mail", async (t) => {
  const none = await trpcFailure(laurel, "organizations.create", { name: "No Mail" });
  t.equal(none.code, "BAD_REQUEST");
  t.match(none.message, /email/);
  const bad = await trpcFailure(laurel, "organizations.create", { name: "Bad Mail", email: "not-an-address" });
  t.equal(bad.code, "BAD_REQUEST");
});

t.test("an organization's website and image are http(s) addresses, whatever door creates it", async (t) => {
  for (const [field, value] of [
    ["image_url", "javascript:alert(1)"],
    ["website_url", "javascript:alert(1)"],
    ["image_url", "data:image/png;base64,iVBORw0KGgo="],
    ["website_url", "ftp://files.example/"],
  ] as const) {
    const refused = await trpcFailure(laurel, "organizations.create", {
      name: "Link Org",
      email: "links@example.org",
      [field]: value,
    });
    t.equal(refused.code, "BAD_REQUEST", `${field} ${value}`);
    t.match(refused.message, /must match pattern/, "refused as not an http(s) address");
  }
  const made = await trpc(laurel, "organizations.create", {
    name: "Link Org",
    email: "links@example.org",
    website_url: "HTTPS://links.example",
    image_url: "https://links.example/logo.png",
  });
  t.ok(basicOrg(made).id, "http(s) addresses are taken");
});

t.test("every hosted document class of an issuer without a website passes OB 2.0 and expands", async (t) => {
  const created = await trpc(laurel, "organizations.create", { name: "Plain Org", email: "Badges@Plain.example" });
  const org = basicOrg(created);
  const tpl = await createTemplate(laurel, org, {
    name: "Plain",
    image_url: "https://cdn.example/p.png",
    allow_duplicate_badges: true,
  });
  const email = "earner@example.org";
  const issue = async () => {
    const res = await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: email }));
    await trpc(laurel, "badges.accept", { badge_id: res.body.data.id });
    return res.body.data.id as string;
  };
  const kept = await issue();
  const revoked = await issue();
  await api("PUT", `${org.badges}/${revoked}/revoke`, org.auth, { reason: "Withdrawn" });

  const assertion = await get(`${laurel.baseUrl}/obi/v2/badge_assertions/${kept}`);
  t.equal(assertion.status, 200);
  t.same(checkAssertion(assertion.body, { now: new Date(), email }), [], "Assertion");
  const badgeClass = await get(assertion.body.badge);
  t.same(checkBadgeClass(badgeClass.body), [], "BadgeClass");
  const issuerUrl = typeof badgeClass.body.issuer === "string" ? badgeClass.body.issuer : badgeClass.body.issuer.id;
  const profile = await get(issuerUrl);
  t.equal(profile.status, 200);
  t.same(checkIssuer(profile.body), [], "Profile");
  t.match(profile.body, { name: "Plain Org", email: "Badges@Plain.example" });
  t.equal((await fetch(profile.body.url)).status, 200, "the profile's url answers");
  const gone = await get(`${laurel.baseUrl}/obi/v2/badge_assertions/${revoked}`);
  t.equal(gone.status, 410);
  t.same(checkRevokedAssertion(gone.body), [], "revoked Assertion");
  for (const [label, doc] of [
    ["Assertion", assertion.body],
    ["BadgeClass", badgeClass.body],
    ["Profile", profile.body],
    ["revoked Assertion", gone.body],
  ]) {
    const expanded = await expandStrict(doc);
    t.equal(expanded.length, 1, `${label} expands with no term lost`);
  }
  t.ok(
    checkIssuer({ ...profile.body, email: undefined }).includes("issuer: email is required"),
    "the check needs email",
  );
});

t.test("start-up: organizations without an e-mail get ISSUER_DEFAULT_EMAIL, or the server refuses", async (t) => {
  const created = await trpc(laurel, "organizations.create", { name: "Old Org", email: "old@example.org" });
  const id = (created as { organization: { id: string } }).organization.id;
  await laurel.db.all("update organizations set email = null where id = ?", [id]);
  const env = {
    PORT: "0",
    BASE_URL: laurel.baseUrl,
    AUTH_URL: laurel.authUrl,
    DATA_DIR: laurel.dataDir,
    ...(laurel.database ? { DATABASE_URL: laurel.database.url } : {}),
  };
  const refused = await buildApiServer(readConfig(env), laurel.db, laurel.nc, false).catch((err: unknown) => err);
  t.ok(refused instanceof StartupRefused, "refused");
  t.match((refused as Error).message, /1 organization\(s\) have no contact e-mail.*set ISSUER_DEFAULT_EMAIL/);
  if (laurel.database) {
    const port = await freePort();
    const server = await runTs("apps/server.ts", [], {
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      NATS_URL: laurel.nats.url,
      ISSUER_DEFAULT_EMAIL: "",
      LOG_LEVEL: "silent",
    });
    t.equal(server.code, 2, "npm run server exits 2");
    t.match(server.stderr, /Laurel cannot start: 1 organization\(s\) have no contact e-mail/);
  }
  await t.rejects(
    buildApiServer(readConfig({ ...env, ISSUER_DEFAULT_EMAIL: "nope" }), laurel.db, laurel.nc, false),
    /ISSUER_DEFAULT_EMAIL must be an e-mail address/,
  );
  const server = await buildApiServer(
    readConfig({ ...env, ISSUER_DEFAULT_EMAIL: "issuers@laurel.example" }),
    laurel.db,
    laurel.nc,
    false,
  );
  await server.close();
  const [row] = await laurel.db.all<{ email: string }>("select email from organizations where id = ?", [id]);
  t.equal(row?.email, "issuers@laurel.example");
  const again = await buildApiServer(readConfig(env), laurel.db, laurel.nc, false);
  await again.close();
  t.pass("with every organization given an e-mail, no default is needed");
});
