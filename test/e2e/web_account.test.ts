import t from "tap";
import { apiClient, createTemplate, eventRows, issueBody, organization, trpc } from "../support/badges.ts";
import { screenshots, seriousViolations } from "../support/browser.ts";
import { startBrowserLaurel } from "../support/console.ts";

/**
 * The account page in a real browser: merging two accounts (events for every organization holding
 * a badge of either), adding and removing addresses, the public profile and its vanity name,
 * sign out everywhere, and a badge to an unconfirmed address that cannot be accepted yet.
 */
const { laurel, smtp, browser, flows } = await startBrowserLaurel(t);
const { linkMailedTo, signIn, useLink } = flows;

t.test("merge, addresses, profile, sign out everywhere", async (t) => {
  const api = apiClient(laurel);
  const first = await organization(laurel, "First");
  const second = await organization(laurel, "Second");
  const t1 = await createTemplate(laurel, first, { name: "Go" });
  const t2 = await createTemplate(laurel, second, { name: "SQL" });
  const mine = await api("POST", first.badges, first.auth, issueBody(t1.id, { recipient_email: "grace@example.org" }));
  const other = await api(
    "POST",
    second.badges,
    second.auth,
    issueBody(t2.id, { recipient_email: "grace@work.example" }),
  );

  // The other account exists: its owner signed in once with the work address.
  const workContext = await browser.newContext();
  const workPage = await signIn(workContext, "grace@work.example");
  t.match(await workPage.textContent("main"), /SQL/);

  const context = await browser.newContext();
  const page = await signIn(context, "grace@example.org");
  t.match(page.url(), /\/wallet\?done=signed_in$/);
  await page.click("button:has-text('Accept')");
  await page.waitForSelector("text=Badge accepted");

  // Merge: the link goes to the other address and is opened where this account is signed in.
  await page.goto(`${laurel.origin}/account`);
  await page.fill("#merge-email", "grace@work.example");
  let before = smtp.mails.length;
  await page.click("button:has-text('Send merge link')");
  await page.waitForSelector("text=We sent a merge link");
  const mergeLink = await linkMailedTo("grace@work.example", before);
  // Opened without this account's session, it merges nothing.
  const stranger = await browser.newPage();
  await useLink(stranger, mergeLink);
  t.match(await stranger.textContent("h1"), /Sign in first/);
  await stranger.context().close();
  await useLink(page, mergeLink);
  t.match(page.url(), /\/account\?done=merged$/);
  t.match(await page.textContent("main"), /grace@work\.example/);
  await page.goto(`${laurel.origin}/wallet`);
  t.match(await page.textContent("main"), /SQL/);
  t.match(await page.textContent("main"), /Go/);

  const ownerOf = async (badgeId: string): Promise<string> => {
    const [row] = (await laurel.db.all("select user_id from badges where id = ?", [badgeId])) as {
      user_id: string;
    }[];
    return row?.user_id as string;
  };
  const destination = await ownerOf(mine.body.data.id);
  for (const org of [first, second]) {
    const merged = await eventRows(laurel, org.id, "user.account_merged");
    t.equal(merged.length, 1, "user.account_merged for each organization holding a badge of either account");
    t.equal(merged[0]?.detail.destination_user_id, destination);
    t.not(merged[0]?.detail.source_user_id, destination);
    const listed = await api("GET", `/organizations/${org.id}/events`, org.auth);
    t.ok(
      listed.body.data.some((e: { event_type: string }) => e.event_type === "user.account_merged"),
      "and in the events list",
    );
  }
  t.equal(await ownerOf(other.body.data.id), destination, "the other account's badge moved");
  // The closed account's session ended.
  await workPage.goto(`${laurel.origin}/wallet`);
  t.match(workPage.url(), /\/sign_in\?next=%2Fwallet$/);
  await workContext.close();

  // Add an address, confirm it, remove it.
  await page.goto(`${laurel.origin}/account`);
  await page.fill("#new-email", "grace@home.example");
  before = smtp.mails.length;
  await page.click("button:has-text('Add')");
  await page.waitForSelector("text=We sent a confirmation link");
  await useLink(page, await linkMailedTo("grace@home.example", before));
  t.match(page.url(), /\/account\?done=email_confirmed$/);
  t.match(await page.textContent(".emails"), /grace@home\.example\s*confirmed/);
  await page.click("button[aria-label='Remove grace@home.example']");
  await page.waitForSelector("text=Address removed");
  t.notMatch(await page.textContent(".emails"), /grace@home\.example/);

  // Name and profile.
  await page.fill("#first_name", "Grace");
  await page.fill("#last_name", "Hopper");
  await page.click("button:has-text('Save name')");
  await page.waitForSelector("text=Name saved");
  await page.fill("#vanity_name", "bad name!");
  await page.evaluate(() => document.querySelector("#vanity_name")?.removeAttribute("pattern"));
  await page.click("button:has-text('Save profile')");
  await page.waitForSelector("text=Check the profile name");
  await page.check("input[name=public_profile]");
  await page.fill("#vanity_name", "grace-h");
  await page.click("button:has-text('Save profile')");
  await page.waitForSelector("text=Profile saved");
  const visitor = await browser.newPage();
  t.equal((await visitor.goto(`${laurel.origin}/users/grace-h`))?.status(), 200);
  t.match(await visitor.textContent("h1"), /Grace Hopper/);
  t.match(await visitor.textContent("main"), /Go/, "the accepted public badge is listed");
  t.notMatch(await visitor.textContent("main"), /SQL/, "the pending badge is not");
  await screenshots(visitor, "profile");
  t.same(await seriousViolations(visitor), [], "profile page: no serious axe violation");
  t.equal((await visitor.goto(`${laurel.origin}/users/${destination}`))?.status(), 200);
  await page.uncheck("input[name=public_profile]");
  await page.click("button:has-text('Save profile')");
  await page.waitForSelector("text=Profile saved");
  t.equal((await visitor.goto(`${laurel.origin}/users/grace-h`))?.status(), 404, "off: the 404 page");
  await visitor.context().close();

  // Sign out everywhere ends the other browser's session too.
  const elsewhere = await signIn(await browser.newContext(), "grace@example.org");
  await page.goto(`${laurel.origin}/account`);
  await page.click("button:has-text('Sign out everywhere')");
  await page.waitForURL(`${laurel.origin}/sign_in`);
  await elsewhere.goto(`${laurel.origin}/account`);
  t.match(elsewhere.url(), /\/sign_in\?next=%2Faccount$/);
  await elsewhere.context().close();
  await context.close();
});

t.test("a badge to an address the account has not confirmed cannot be accepted", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, "Third");
  const template = await createTemplate(laurel, org, { name: "Ops" });
  await trpc(laurel, "users.create", {
    email: "lin@example.org",
    additional_emails: ["lin@old.example"],
    first_name: "Lin",
    last_name: "Chen",
  });
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "lin@old.example" }),
  );
  const page = await signIn(await browser.newContext(), "lin@example.org");
  await page.goto(`${laurel.origin}/badges/${issued.body.data.id}`);
  t.match(await page.textContent("main"), /Confirm that address on your account|Confirm lin@old\.example/);
  t.equal(await page.locator("button:has-text('Accept')").count(), 0);
  // Posting the form anyway is refused by core.
  const token = await page.inputValue("input[name=_csrf]");
  const answer = await page.evaluate(
    async ({ url, token }) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `_csrf=${encodeURIComponent(token)}`,
      });
      return res.status;
    },
    { url: `/badges/${issued.body.data.id}/accept`, token },
  );
  t.equal(answer, 403);
  t.equal((await api("GET", `${org.badges}/${issued.body.data.id}`, org.auth)).body.data.state, "pending");
  await page.context().close();
});
