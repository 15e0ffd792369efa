import t from "tap";
import { apiClient, trpc } from "../support/badges.ts";
import { screenshots, seriousViolations } from "../support/browser.ts";
import { startEarnerWebhookStack } from "../support/earner_flows.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

/**
 * Badges from other issuers on the wallet, in Chromium: an employee connected to their employer
 * adds another issuer's OB 2.0 assertion by its address and pastes an OB 3.0 credential (both
 * verified), adds one issued to someone else (kept, marked not verified with the reason), has a
 * bad address refused with what they typed kept, and removes one. The employer reads the result
 * over REST; the page passes axe and is screenshotted.
 */
const stack = await startEarnerWebhookStack();
t.teardown(stack.close);
const { laurel, browser, receiver, click, signIn } = stack;
const issuer = await startObIssuer(stack.ca);
t.teardown(issuer.close);

t.test("an employee adds, sees and removes badges from other issuers", async (t) => {
  const api = apiClient(laurel);
  const org = await webhookOrganization(laurel, { url: receiver.url, events: "all", name: "Northwind" });
  await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
  const employees = `/organizations/${org.id}/employees`;
  const lin = (
    await api("POST", employees, org.auth, {
      email: "lin@example.org",
      first_name: "Lin",
      last_name: "Ko",
      external_id: "L",
    })
  ).body.data;
  const listed = async () => (await api("GET", `${employees}/${lin.id}/external_badges`, org.auth)).body;

  // The other issuer's images are served behind the test's own CA, which the browser does not know.
  const page = await signIn(await browser.newContext({ ignoreHTTPSErrors: true }), "lin@example.org");
  await page.goto(`${laurel.origin}/wallet`);
  await click(page, "Connect to Northwind");
  t.match(await page.textContent("main"), /Connected: your employer now sees/);

  await page.fill("#external-url", issuer.assertion("Lin@Example.org"));
  await click(page, "Add badge");
  t.match(await page.textContent(".notice"), /Badge added and verified/);
  t.match(await page.textContent("#external"), /Rope Access Level 1/);
  t.match(
    await page.textContent("#external"),
    /Issuer named in the badge \(not verified\): Other Academy/,
    "the issuer's name is labelled as the badge's own claim",
  );
  t.match(
    await page.textContent("#external [data-issuer-origin]"),
    `Issuer verified: ${issuer.origin}`,
    "the verified identity is the issuer's origin",
  );

  await page.fill("#external-credential", await issuer.credential("lin@example.org"));
  await click(page, "Add badge");
  t.match(await page.textContent(".notice"), /Badge added and verified/);
  t.match(await page.textContent("#external"), /Confined Space Entry/);

  await page.fill("#external-url", issuer.assertion("someone.else@example.org"));
  await click(page, "Add badge");
  t.match(await page.textContent(".notice"), /could not be verified/);
  t.match(
    await page.textContent("#external"),
    /Not verified: It was issued to an address that is not a confirmed address/,
  );

  // A refused form comes back with the reason and what was typed.
  const refused = await Promise.all([
    page.waitForNavigation(),
    page.fill("#external-url", "ftp://files.example/badge.json").then(() => page.click("button:has-text('Add badge')")),
  ]);
  t.equal(refused[0]?.status(), 422);
  t.match(await page.textContent("[role=alert]"), /not a web address of a badge/);
  t.equal(await page.inputValue("#external-url"), "ftp://files.example/badge.json");
  t.same(await seriousViolations(page), [], "no serious or critical axe violation");
  await screenshots(page, "wallet-external-badges");

  const shown = await listed();
  t.equal(shown.metadata.total_count, 3, "the employer sees the three added badges");
  t.same(
    shown.data.map((b: { name: string; verification_status: string; verification_reason: string | null }) => [
      b.name,
      b.verification_status,
      b.verification_reason,
    ]),
    [
      ["Rope Access Level 1", "unvalidated", "recipient_mismatch"],
      ["Confined Space Entry", "validated", null],
      ["Rope Access Level 1", "validated", null],
    ],
  );

  const wrong = shown.data[0].id as string;
  await click(page, "Remove", `[data-external-badge="${wrong}"] button:has-text('Remove')`);
  t.match(await page.textContent(".notice"), /Badge removed/);
  t.equal((await listed()).metadata.total_count, 2);
  await waitFor("the removal at the employer's receiver", async () =>
    receiver.received.some((d) => d.json.event_type === "employment.external_badges.removed"),
  );
  t.equal(
    receiver.received.filter((d) => d.json.event_type === "employment.external_badges.added").length,
    3,
    "each addition was told to the employer",
  );
});
