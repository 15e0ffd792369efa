import t from "tap";
import { apiClient, createTemplate, organization } from "../support/badges.ts";
import { look, startBrowserLaurel } from "../support/console.ts";

/**
 * The wallet's "Recommended for you" in Chromium: the template's picture, words and criteria, who
 * recommends it and their message (escaped), dismissed without a script; axe and screenshots at
 * phone and desktop width.
 */
const HOSTILE = '"><img src=x onerror=alert(1)>';
const { laurel, browser, flows } = await startBrowserLaurel(t);

t.test("an earner sees a recommendation on the wallet and dismisses it", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, "Forge Academy");
  const tpl = await createTemplate(laurel, org, {
    name: "Advanced Welding",
    description: "Joins thick steel plates in every position",
    criteria_url: "https://forge.example/criteria/advanced",
  });
  const made = await api("POST", `/organizations/${org.id}/recommendations`, org.auth, {
    badge_template_id: tpl.id,
    recipient_email: "grace@example.org",
    message: `You are ready for this one.\nAsk us for the practice hours. ${HOSTILE}`,
  });
  t.equal(made.status, 201);
  const dialogs: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await flows.signIn(context, "grace@example.org");
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${laurel.origin}/wallet`);
  const item = page.locator(`[data-recommendation="${made.body.data.id}"]`);
  t.equal(await item.locator("h3").textContent(), "Advanced Welding");
  t.match(await item.textContent(), "Recommended by Forge Academy");
  t.match(await item.locator("blockquote").textContent(), `Ask us for the practice hours. ${HOSTILE}`, "as written");
  t.equal(await page.locator("img[src=x]").count(), 0, "no markup of theirs");
  t.equal(await item.locator("a:has-text('What it asks for')").getAttribute("href"), tpl.criteria_url);
  await look(t, page, "recommendations", "wallet");

  await Promise.all([page.waitForNavigation(), item.locator("button:has-text('Dismiss')").click()]);
  t.match(await page.textContent("main"), "Recommendation dismissed");
  t.equal(await page.locator("[data-recommendation]").count(), 0, "gone from the wallet");
  const after = await api("GET", `/organizations/${org.id}/recommendations/${made.body.data.id}`, org.auth);
  t.equal(after.body.data.state, "dismissed");
  t.same(dialogs, [], "nothing ran");
  await context.close();
});
