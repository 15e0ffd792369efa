import { createHash } from "node:crypto";
import t from "tap";
import { apiClient, createTemplate, eventRows, issueBody, organization } from "../support/badges.ts";
import { screenshots, seriousViolations, watchedPage } from "../support/browser.ts";
import { startBrowserLaurel } from "../support/console.ts";

/**
 * The earner's journey in a real browser (Debian's chromium through playwright-core): a badge
 * issued over REST, its e-mail, its link signing the earner in with one press and no second mail,
 * accept, sign-in by mailed link, the public page, private, revoked;
 * hostile content inert, CSRF refused, used and expired links refused, axe-core on every page type.
 */
const { laurel, smtp, browser, flows } = await startBrowserLaurel(t, {
  env: { MAIL_FROM: "Laurel <badges@laurel.test>" },
});
const { mailedLink } = flows;

const HOSTILE = {
  script: "<script>alert('s')</script>",
  img: '"><img src=x onerror=alert(1)>',
};

t.test("issue, mail, sign in by link, accept, public, private, revoked", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, `Acme ${HOSTILE.img}`);
  const template = await createTemplate(laurel, org, {
    name: `Rust ${HOSTILE.script}`,
    description: `Writes safe code ${HOSTILE.img}`,
    skills: ["Rust", HOSTILE.script],
    criteria_url: "https://acme.example/criteria",
  });
  const mailsBefore = smtp.mails.length;
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, {
      issued_to_first_name: `Ada ${HOSTILE.img}`,
      recipient_email: "ada@example.org",
      evidence: [{ type: "UrlEvidence", name: `Proof ${HOSTILE.script}`, value: "https://acme.example/proof" }],
    }),
  );
  t.equal(issued.status, 201);
  const badgeId = issued.body.data.id as string;

  // The hostile javascript: URL never gets in through the API.
  const refused = await api("POST", org.badges, org.auth, {
    ...issueBody(template.id, { recipient_email: "x@example.org" }),
    evidence: [{ type: "UrlEvidence", name: "x", value: "javascript:alert(1)" }],
  });
  t.equal(refused.status, 422, "javascript: evidence is refused at the API");

  const acceptUrl = await mailedLink(
    "ada@example.org",
    /https?:\/\/\S+\/badges\/[0-9a-f-]+\/accept\?token=[A-Za-z0-9_-]+/,
    mailsBefore,
  );
  t.ok(acceptUrl.startsWith(`${laurel.origin}/badges/${badgeId}/accept?token=`), "the mail's link carries its token");

  const dialogs: string[] = [];
  const payloadRequests: string[] = [];
  const page = await watchedPage(browser, dialogs, payloadRequests);

  // Pending: the public page is the 404 page.
  const pending = await page.goto(`${laurel.origin}/badges/${badgeId}`);
  t.equal(pending?.status(), 404);

  // Without the mail's token the accept page names nobody.
  await page.goto(`${laurel.origin}/badges/${badgeId}/accept`);
  t.equal(await page.inputValue("#email"), "", "no token: the address is not pre-filled");

  await screenshots(page, "sign-in");
  t.same(await seriousViolations(page), [], "sign-in page: no serious axe violation");

  // The mail's link, signed out: the address is named, and one button press signs its recipient in,
  // with no second mail (the link itself proves the address).
  await page.goto(acceptUrl);
  t.match(await page.textContent("h1"), /Your badge is waiting/);
  t.match(await page.textContent("main"), /ada@example\.org/, "the page names the address the badge was sent to");
  await screenshots(page, "badge-link");
  t.same(await seriousViolations(page), [], "badge link page: no serious axe violation");
  const beforeContinue = smtp.mails.length;
  await page.click("button:has-text('Continue')");
  await page.waitForURL(`${laurel.origin}/badges/${badgeId}`);
  t.ok(await page.isVisible("button:has-text('Accept')"), "the badge page offers Accept to its earner");
  await screenshots(page, "badge-pending");
  t.same(await seriousViolations(page), [], "pending badge page: no serious axe violation");

  await page.click("button:has-text('Accept')");
  await page.waitForSelector("text=Badge accepted");
  const changed = await eventRows(laurel, org.id, "badge.state.changed");
  t.equal(changed.at(-1)?.detail.badge.state, "accepted", "accepting records badge.state.changed");
  t.same(
    smtp.mails.slice(beforeContinue).filter((m) => m.to.some((r) => r.includes("ada@example.org"))),
    [],
    "from the mail's link to accepted, no second mail",
  );

  // Signing in another time: the sign-in page mails a link (text and HTML), pressed on its page.
  const again = await watchedPage(browser, dialogs, payloadRequests);
  await again.goto(`${laurel.origin}/sign_in`);
  await again.fill("#email", "ada@example.org");
  const beforeSignIn = smtp.mails.length;
  await again.click("button[type=submit]:has-text('Send me a sign-in link')");
  await again.waitForSelector("h1:has-text('Check your inbox')");
  const signInLink = await mailedLink(
    "ada@example.org",
    /https?:\/\/\S+\/sign_in\/link\?token=[A-Za-z0-9_-]+/,
    beforeSignIn,
  );
  t.match(smtp.mails.at(-1)?.data ?? "", /multipart\/alternative/, "the sign-in mail is text and HTML");
  await again.goto(signInLink);
  await screenshots(again, "link");
  await again.click("button:has-text('Continue')");
  await again.waitForURL(/\/wallet/);

  // The public page, in a browser with no session.
  const visitor = await watchedPage(browser, dialogs, payloadRequests);
  const publicRes = await visitor.goto(`${laurel.origin}/badges/${badgeId}`);
  t.equal(publicRes?.status(), 200);
  t.match(await visitor.textContent(".status"), /Valid/);
  const headers = publicRes?.headers() ?? {};
  t.match(headers["content-security-policy"], /frame-ancestors 'none'/);
  t.match(headers["content-security-policy"], /script-src 'self'/);
  t.equal(headers["x-content-type-options"], "nosniff");
  t.ok(headers["referrer-policy"]);
  t.equal(await visitor.getAttribute("meta[property='og:url']", "content"), `${laurel.origin}/badges/${badgeId}`);
  t.match(await visitor.getAttribute("a.linkedin", "href"), /^https:\/\/www\.linkedin\.com\/profile\/add\?/);
  t.match(await visitor.textContent("h1"), HOSTILE.script, "the template name shows as text");
  t.match(await visitor.textContent(".earner"), HOSTILE.img, "the earner name shows as text");
  t.equal(await visitor.locator("img[src='x']").count(), 0, "no element was injected");
  // The e-mail check against the hashed recipient.
  await visitor.fill("#verify-email", "ADA@example.org");
  await visitor.click("button:has-text('Check')");
  await visitor.waitForSelector("text=Yes: the badge's hashed recipient matches");
  await visitor.fill("#verify-email", "eve@example.org");
  await visitor.click("button:has-text('Check')");
  await visitor.waitForSelector("text=No: this badge was not issued");
  await screenshots(visitor, "badge-public");
  t.same(await seriousViolations(visitor), [], "public badge page: no serious axe violation");

  await visitor.goto(`${laurel.origin}/organizations/${org.id}`);
  t.match(await visitor.textContent("main"), /1 badge issued/);
  await screenshots(visitor, "organization");
  t.same(await seriousViolations(visitor), [], "organization page: no serious axe violation");

  // Private: the public page is the 404 page, the same as an unknown id.
  await page.click("button:has-text('Make private')");
  await page.waitForSelector("text=This badge is now private");
  t.equal((await visitor.goto(`${laurel.origin}/badges/${badgeId}`))?.status(), 404);
  const notFoundText = await visitor.textContent("main");
  t.equal((await visitor.goto(`${laurel.origin}/badges/00000000-0000-4000-8000-000000000000`))?.status(), 404);
  t.equal(await visitor.textContent("main"), notFoundText, "private and unknown look the same");
  await screenshots(visitor, "not-found");
  t.same(await seriousViolations(visitor), [], "404 page: no serious axe violation");
  const privacy = await eventRows(laurel, org.id, "badge.privacy.changed");
  t.equal(privacy.length, 1);

  // Revoked over REST: the wallet shows it with the reason.
  const revoked = await api("PUT", `${org.badges}/${badgeId}/revoke`, org.auth, {
    reason: `Cheated ${HOSTILE.script}`,
  });
  t.equal(revoked.status, 200);
  await page.goto(`${laurel.origin}/wallet`);
  t.match(await page.textContent("main"), `Revoked. Reason: Cheated ${HOSTILE.script}`);
  await screenshots(page, "wallet");
  t.same(await seriousViolations(page), [], "wallet: no serious axe violation");

  await page.goto(`${laurel.origin}/account`);
  await screenshots(page, "account");
  t.same(await seriousViolations(page), [], "account page: no serious axe violation");

  t.same(dialogs, [], "no dialog fired");
  t.same(payloadRequests, [], "no request to the payload's address");

  // Used link: refused with a clear page.
  await page.goto(signInLink);
  const used = page.waitForResponse((r) => r.url().endsWith("/sign_in/link") && r.request().method() === "POST");
  await page.click("button:has-text('Continue')");
  t.equal((await used).status(), 410);
  t.match(await page.textContent("h1"), /already used/);
  await page.context().close();
  await visitor.context().close();
});

t.test("an expired link is refused with a clear page", async (t) => {
  const token = "expired-token-for-the-test";
  const hash = createHash("sha256").update(token).digest("hex");
  await laurel.db.all(
    `insert into earner_links (token_hash, purpose, email, email_key, created_at, expires_at)
       values (?, 'sign_in', 'late@example.org', 'late@example.org', now() - interval '20 minutes', now() - interval '5 minutes')`,
    [hash],
  );
  const page = await browser.newPage();
  await page.goto(`${laurel.origin}/sign_in/link?token=${token}`);
  const answer = page.waitForResponse((r) => r.url().endsWith("/sign_in/link") && r.request().method() === "POST");
  await page.click("button:has-text('Continue')");
  t.equal((await answer).status(), 410);
  t.match(await page.textContent("h1"), /expired/);
  await screenshots(page, "link-expired");
  await page.context().close();
});

t.test("CSRF: a form without its token, or from another origin, is refused", async (t) => {
  const noToken = await fetch(`${laurel.origin}/sign_in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "email=ada%40example.org",
  });
  t.equal(noToken.status, 403);
  t.match(await noToken.text(), /This form has expired/);
  // A real browser on another origin posting a form here.
  const page = await browser.newPage();
  await page.goto(`${laurel.origin}/sign_in`);
  const cookies = await page.context().cookies();
  const token = await page.inputValue("input[name=_csrf]");
  const crossSite = await fetch(`${laurel.origin}/sign_in`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: "https://evil.example",
      cookie: cookies.map((c) => `${c.name}=${c.value}`).join("; "),
    },
    body: `email=ada%40example.org&_csrf=${encodeURIComponent(token)}`,
  });
  t.equal(crossSite.status, 403);
  t.match(await crossSite.text(), /another site/);
  await page.context().close();
});
