import type { Browser } from "playwright-core";
import t from "tap";
import { launchChromium, watchedPage } from "../support/browser.ts";
import { look } from "../support/console.ts";
import { earnerFlows } from "../support/earner_flows.ts";
import { basic, startLaurel, type TestLaurel, trpcMutation } from "../support/laurel.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";
import {
  makeTestCa,
  type Receiver,
  startReceiver,
  startTestPipeline,
  type TestCa,
  waitFor,
  webhookEnv,
} from "../support/webhooks.ts";

/**
 * The organization console in a real browser (Debian's chromium through playwright-core): the
 * owner signs in through the console's own address, creates an OAuth application whose secret is
 * shown once and works at the token endpoint, creates and revokes an authorization token, sets the
 * webhook address and kinds, sends a test event that the signed HTTPS receiver gets, finds it in
 * the delivery log and redelivers it. An issuer and a viewer are refused every Developers page and
 * form. Hostile names stay text; axe-core and screenshots on every console page.
 */
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

const HOSTILE = {
  script: "<script>alert('s')</script>",
  img: '"><img src=x onerror=alert(1)>',
};

let laurel: TestLaurel;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let browser: Browser;
let ca: TestCa;
let receiver: Receiver;
let pipeline: Awaited<ReturnType<typeof startTestPipeline>>;
t.before(async () => {
  ca = makeTestCa();
  receiver = await startReceiver(ca);
  smtp = await startSmtpSink();
  laurel = await startLaurel({ env: { SMTP_URL: smtp.url, ...webhookEnv(ca) } });
  pipeline = await startTestPipeline(laurel, webhookEnv(ca));
  browser = await launchChromium();
});
t.teardown(async () => {
  await browser?.close();
  await pipeline?.stop();
  await laurel?.close();
  await smtp?.close();
  await receiver?.close();
  ca?.remove();
});

const flows = earnerFlows(() => ({ origin: laurel.origin, smtp }));

t.test("owner: applications, tokens, webhooks; issuer and viewer refused the Developers section", async (t) => {
  // The operator creates the organization with its first owner's address (as the CLI's --owner-email).
  const created = (await trpcMutation(laurel.adminOrigin, laurel.server.adminToken, "organizations.create", {
    name: `Acme ${HOSTILE.img}`,
    email: "issuer@example.org",
    owner_email: "owner@example.org",
  })) as { organization: { id: string } };
  const org = created.organization.id;
  const dialogs: string[] = [];
  const payloadRequests: string[] = [];
  const page = await watchedPage(browser, dialogs, payloadRequests);

  // Signed out, a console address leads to sign-in and back.
  await page.goto(`${laurel.origin}/console/${org}/developers/oauth_applications`);
  t.match(page.url(), /\/sign_in\?next=%2Fconsole%2F/, "signed out: to sign-in, with the way back");

  // The owner follows the mailed invitation, signs in with that address and accepts.
  const ownerLink = await flows.mailedLink(
    "owner@example.org",
    /https?:\/\/\S+\/console\/invitations\/[A-Za-z0-9_%-]+/,
    0,
  );
  await page.goto(ownerLink);
  await flows.click(page, "", "a.button:has-text('Sign in to accept')");
  t.equal(await page.inputValue("#email"), "owner@example.org", "the invited address is filled in");
  const before = smtp.mails.length;
  await page.click("button:has-text('Send me a sign-in link')");
  await page.waitForSelector("h1:has-text('Check your inbox')");
  await flows.useLink(page, await flows.linkMailedTo("owner@example.org", before));
  await flows.click(page, "Accept and open the console");
  t.equal(new URL(page.url()).pathname, `/console/${org}`, "the owner lands in the console");
  t.match(await page.textContent(".console-org"), /Owner/);

  await page.goto(`${laurel.origin}/console`);
  t.match(await page.textContent("main"), `Acme ${HOSTILE.img}`, "the organization, its name as text");
  await look(t, page, "organizations");
  await flows.click(page, "", `a.org-link`);
  t.equal(new URL(page.url()).pathname, `/console/${org}`);
  await look(t, page, "home");

  // OAuth applications: the secret once, usable at the token endpoint.
  await page.click("a.console-link:has-text('OAuth applications')");
  await page.waitForSelector("h1:has-text('OAuth applications')");
  await look(t, page, "oauth-applications-empty");
  await page.fill("#app-name", `Sync ${HOSTILE.script}`);
  await page.fill("#app-description", `Reads badges ${HOSTILE.img}`);
  await flows.click(page, "Create application");
  const secret = await page.inputValue("#new-secret");
  t.ok(secret.length >= 40, "the secret is shown");
  t.match(await page.textContent(".secret-once"), /only time Laurel shows it/, "with a plain warning");
  t.equal(await page.getAttribute("button[data-copy='new-secret']", "type"), "button", "and a copy button");
  const clientId = ((await page.textContent(".facts .raw")) ?? "").trim();
  await look(t, page, "oauth-applications-created");
  const tokenRes = await fetch(`${laurel.authUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: secret,
      scope: "issued_badges",
    }).toString(),
  });
  t.equal(tokenRes.status, 200, "a client-credentials request with the shown secret succeeds");
  await page.goto(page.url());
  t.equal(await page.locator("#new-secret").count(), 0, "the secret is never shown again");
  t.notMatch((await page.content()) ?? "", secret, "nor anywhere in the page");
  t.match(await page.textContent("main"), `Sync ${HOSTILE.script}`, "the hostile name is text");
  // Edit, as the API would.
  await flows.click(page, "", "a.button:has-text('Edit')");
  await look(t, page, "oauth-application-edit");
  await page.fill("#app-name", "Sync service");
  await page.uncheck("#edit-scope-workforce");
  await flows.click(page, "Save changes");
  t.match(await page.textContent("main"), /Application saved/);
  t.notMatch((await page.textContent(".chips")) ?? "", /workforce/, "the scope is gone");

  // Data services are the operator's switch; the page shows them read-only.
  const appId = Number(
    new URL((await page.getAttribute("a.button:has-text('Edit')", "href")) ?? "", laurel.origin).pathname
      .split("/")
      .at(-1),
  );
  await trpcMutation(laurel.adminOrigin, laurel.server.adminToken, "oauthApplications.setDataServices", {
    organization_id: org,
    application_id: appId,
    enabled: true,
  });

  // Authorization tokens: created within the role's ceiling, shown once, revoked.
  await page.click("a.console-link:has-text('Authorization tokens')");
  await page.waitForSelector("h1:has-text('Authorization tokens')");
  await page.fill("#token-description", `CI ${HOSTILE.img}`);
  await page.uncheck("input[name=delete_enabled]");
  await flows.click(page, "Create token");
  const tokenValue = await page.inputValue("#new-token");
  await look(t, page, "authorization-tokens");
  const listed = await fetch(`${laurel.baseUrl}/organizations/${org}/badge_templates`, {
    headers: { authorization: basic(tokenValue) },
  });
  t.equal(listed.status, 200, "the new token works");
  await page.goto(page.url());
  t.notMatch(await page.content(), tokenValue, "its value is never shown again");
  t.match(await page.textContent("main"), /Expires/, "its expiry is shown");
  await flows.click(page, "", `button[aria-label^='Revoke CI']`);
  t.match(await page.textContent("h1"), /Revoke “CI/, "revoking asks first, naming the token");
  await look(t, page, "authorization-token-revoke-confirm");
  await flows.click(page, "Revoke token");
  t.match(await page.textContent("main"), /Token revoked/);
  const afterRevoke = await fetch(`${laurel.baseUrl}/organizations/${org}/badge_templates`, {
    headers: { authorization: basic(tokenValue) },
  });
  t.equal(afterRevoke.status, 401, "the revoked token no longer works");
  // Rotating gives a new value, shown once; the old one stops at once.
  await page.fill("#token-description", "Nightly");
  await flows.click(page, "Create token");
  const nightly = await page.inputValue("#new-token");
  await page.goto(page.url());
  await flows.click(page, "", "button[aria-label='Rotate Nightly']");
  await flows.click(page, "Rotate token");
  const rotated = await page.inputValue("#new-token");
  t.not(rotated, nightly, "a new value");
  const statusWith = async (value: string) =>
    (
      await fetch(`${laurel.baseUrl}/organizations/${org}/badge_templates`, {
        headers: { authorization: basic(value) },
      })
    ).status;
  t.equal(await statusWith(nightly), 401, "the rotated value no longer works");
  t.equal(await statusWith(rotated), 200, "the new one does");

  // Webhooks: an address the API would refuse is refused here too.
  await page.click("a.console-link:has-text('Webhooks')");
  await page.waitForSelector("h1:has-text('Webhooks')");
  t.equal(
    await page.locator("input[name=event_types]").count(),
    32,
    "all 32 event kinds (the interface's 30, Laurel's 2)",
  );
  t.equal(await page.locator("fieldset.kind-group").count(), 8, "grouped by family");
  await page.fill("#webhook-url", "http://example.org/hooks");
  await flows.click(page, "Save webhook settings");
  t.match(await page.textContent(".status.bad"), /webhook.url/i, "plain http is refused");
  await page.fill("#webhook-url", receiver.url);
  await page.uncheck("input[name=all_kinds]");
  for (const box of await page.locator("input[name=event_types]").all()) await box.uncheck();
  await page.check("input[value='badge.created']");
  await page.check("input[value='employment.created']");
  await flows.click(page, "Save webhook settings");
  t.match(await page.textContent("main"), /Webhook settings saved/);
  t.ok(await page.isChecked("input[value='badge.created']"), "the chosen kinds stay chosen");
  t.notOk(await page.isChecked("input[value='badge.deleted']"));
  await flows.click(page, "Reveal secret");
  const signingSecret = await page.inputValue("#webhook-secret");
  t.match(signingSecret, /^whsec_/);
  await look(t, page, "webhooks-secret");

  await flows.click(page, "Send a test event");
  t.match(await page.textContent("main"), /Test event sent/);
  const got = await waitFor("the test delivery", () =>
    receiver.received.find((d) => d.json.event_type === "webhook.test"),
  );
  t.same(receiver.verify([signingSecret], [got]), [], "signed with the organization's secret");
  t.equal(got.json.organization_id, org);
  await waitFor("the log to show it delivered", async () => {
    await page.goto(`${laurel.origin}/console/${org}/developers/webhooks`);
    return /succeeded/.test((await page.textContent("#deliveries")) ?? "");
  });
  t.match(await page.textContent("#deliveries"), /webhook\.test/);
  t.match(await page.textContent("#deliveries"), /HTTP 200/, "the attempt with its response code");
  await look(t, page, "webhooks-log");
  await flows.click(page, "", `button[aria-label^='Redeliver webhook.test']`);
  t.match(await page.textContent("main"), /Redelivery queued/);
  await waitFor("the redelivery", () => receiver.received.filter((d) => d.json.id === got.json.id).length >= 2);
  const again = receiver.received.filter((d) => d.json.id === got.json.id);
  t.equal(again[1]?.headers["webhook-id"], got.headers["webhook-id"], "the same webhook-id");

  // Members: the owner invites an issuer and a viewer; each accepts from the mail.
  await page.click("a.console-link:has-text('Members')");
  await page.waitForSelector("h1:has-text('Members')");
  for (const role of ["issuer", "viewer"] as const) {
    await page.fill("#invite-email", `${role}@example.org`);
    await page.selectOption("#invite-role", role);
    await flows.click(page, "Send invitation");
    t.match(await page.textContent("main"), /Invitation sent/);
  }
  t.match(await page.textContent("#invitations-h + ul"), /issuer@example\.org/, "pending invitations listed");
  await look(t, page, "members");

  for (const role of ["issuer", "viewer"] as const) {
    const email = `${role}@example.org`;
    const invitationLink = await flows.mailedLink(email, /https?:\/\/\S+\/console\/invitations\/[A-Za-z0-9_%-]+/, 0);
    const mail = smtp.mails.find((m) => m.to.some((r) => r.includes(email)) && /invitations/.test(m.data));
    t.match(mail?.data ?? "", /multipart\/alternative/, `${role}: the invitation mail is text and HTML`);
    const other = await watchedPage(browser, dialogs, payloadRequests);
    await other.goto(invitationLink);
    t.match(
      await other.textContent("h1"),
      `Join Acme ${HOSTILE.img}`,
      `${role}: the invitation names the organization`,
    );
    if (role === "issuer") await look(t, other, "invitation");
    await flows.click(other, "", "a.button:has-text('Sign in to accept')");
    t.equal(await other.inputValue("#email"), email, "the invited address is filled in");
    const beforeSignIn = smtp.mails.length;
    await other.click("button:has-text('Send me a sign-in link')");
    await other.waitForSelector("h1:has-text('Check your inbox')");
    await flows.useLink(other, await flows.linkMailedTo(email, beforeSignIn));
    t.match(new URL(other.url()).pathname, /^\/console\/invitations\//, `${role}: back at the invitation, signed in`);
    await flows.click(other, "Accept and open the console");
    t.equal(new URL(other.url()).pathname, `/console/${org}`, `${role}: a member now, in the console`);
    t.equal(await other.locator("a.console-link:has-text('Webhooks')").count(), 0, `${role}: no Developers link`);
    await look(t, other, `home-${role}`);
    // Refused every Developers page and form (status and page), and the viewer every change.
    for (const section of ["oauth_applications", "authorization_tokens", "webhooks"]) {
      const res = await other.goto(`${laurel.origin}/console/${org}/developers/${section}`);
      t.equal(res?.status(), 403, `${role}: ${section} refused`);
      t.match(await other.textContent("h1"), /Not allowed/, `${role}: ${section}, a page saying so`);
    }
    await look(t, other, `forbidden-${role}`);
    const csrf = await other.evaluate(async (url) => {
      const page = await fetch(url);
      return /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    }, `${laurel.origin}/console/${org}/members`);
    for (const form of [
      `/console/${org}/developers/oauth_applications`,
      `/console/${org}/developers/authorization_tokens`,
      `/console/${org}/developers/webhooks`,
      `/console/${org}/developers/webhooks/test`,
      `/console/${org}/members/invitations`,
    ]) {
      const status = await other.evaluate(
        async ([url, token]) =>
          (
            await fetch(url as string, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams({ _csrf: token as string, name: "x", email: "x@example.org", role: "owner" }),
            })
          ).status,
        [`${laurel.origin}${form}`, csrf],
      );
      t.equal(status, 403, `${role}: POST ${form} refused`);
    }
    await other.goto(`${laurel.origin}/console/${org}/members`);
    t.equal(await other.locator("#invite-email").count(), 0, `${role}: no invitation form`);
    await other.context().close();
  }

  await page.goto(`${laurel.origin}/console/${org}/members`);
  t.equal(await page.locator("#invitations-h + ul").count(), 0, "both invitations accepted");
  t.match(await page.textContent("main"), /Issuer[\s\S]*Viewer|Viewer[\s\S]*Issuer/, "both members listed with roles");
  await look(t, page, "members-after");
  await page.click("a.console-link:has-text('Audit log')");
  await page.waitForSelector("h1:has-text('Audit log')");
  t.match(await page.textContent("main"), /invitation\.accepted/, "the audit log records the acceptance");
  await look(t, page, "audit");
  await page.click("a.console-link:has-text('Profile')");
  await page.waitForSelector("h1:has-text('Organization profile')");
  await page.fill("#org-description", `We teach ${HOSTILE.script}`);
  await page.fill("#org-website", "https://acme.example");
  await flows.click(page, "Save profile");
  t.match(await page.textContent("main"), /Profile saved/);
  // A hostile SVG is stored rebuilt without what it runs; a real PNG is stored and served at its stable address.
  await page.setInputFiles("#org-image", {
    name: "logo.svg",
    mimeType: "image/svg+xml",
    buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>'),
  });
  await flows.click(page, "Upload image");
  t.match(await page.textContent("main"), /Image saved/);
  const svgUrl = (await page.getAttribute("img.org-image", "src")) ?? "";
  t.match(svgUrl, /\/images\/[0-9a-f]{64}\.svg$/, "an SVG is stored");
  t.equal(
    await (await fetch(svgUrl)).text(),
    '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>',
    "without its onload",
  );
  await page.setInputFiles("#org-image", { name: "logo.png", mimeType: "image/png", buffer: PNG });
  await flows.click(page, "Upload image");
  t.match(await page.textContent("main"), /Image saved/);
  const imageUrl = (await page.getAttribute("img.org-image", "src")) ?? "";
  t.match(imageUrl, /\/images\/[0-9a-f]{64}\.png$/, "content-addressed");
  const served = await fetch(imageUrl);
  t.equal(served.headers.get("content-type"), "image/png");
  t.match(served.headers.get("cache-control") ?? "", /immutable/);
  t.same(Buffer.from(await served.arrayBuffer()), PNG, "the same bytes");
  const issuer = (await (await fetch(`${laurel.baseUrl}/obi/v2/issuers/${org}`)).json()) as { image?: string };
  t.equal(issuer.image, imageUrl, "the OB issuer image points there");
  await look(t, page, "profile");

  t.same(dialogs, [], "no dialog fired");
  t.same(payloadRequests, [], "no request to the payload's address");
  await page.context().close();
});
