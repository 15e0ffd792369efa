import t from "tap";
import { apiClient, createTemplate, eventRows, issueBody, type OrgFixture } from "../support/badges.ts";
import { startEarnerWebhookStack } from "../support/earner_flows.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

/**
 * Merging two accounts on the account page, in a real browser: `user.account_merged` reaches the
 * webhook receiver of the organization holding a badge of the merged-away account, signed, and
 * its detail read by id over REST names both accounts.
 */
t.test("a merge on the account page is delivered to the organization's webhook receiver", async (t) => {
  const stack = await startEarnerWebhookStack();
  t.teardown(stack.close);
  const { laurel, smtp, browser, receiver, signIn, useLink, linkMailedTo } = stack;

  const hooked = await webhookOrganization(laurel, { url: receiver.url, events: ["user.account_merged"] });
  const org: OrgFixture = {
    id: hooked.id,
    auth: hooked.auth,
    templates: `/organizations/${hooked.id}/badge_templates`,
    badges: `/organizations/${hooked.id}/badges`,
  };
  const api = apiClient(laurel);
  const ownerOf = async (badgeId: string): Promise<string | undefined> => {
    const [row] = (await laurel.db.all("select user_id from badges where id = ?", [badgeId])) as {
      user_id: string | null;
    }[];
    return row?.user_id ?? undefined;
  };
  const template = await createTemplate(laurel, org, { name: "SQL" });
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "kay@work.example" }),
  );
  t.equal(issued.status, 201);

  // The account to be merged away signs in once with the work address, which owns the badge.
  const workContext = await browser.newContext();
  await signIn(workContext, "kay@work.example");
  await workContext.close();
  const source = await ownerOf(issued.body.data.id);
  t.ok(source, "signing in gave the work account the badge");
  const context = await browser.newContext();
  const page = await signIn(context, "kay@example.org");
  await page.goto(`${laurel.origin}/account`);
  await page.fill("#merge-email", "kay@work.example");
  const before = smtp.mails.length;
  await page.click("button:has-text('Send merge link')");
  await page.waitForSelector("text=We sent a merge link");
  await useLink(page, await linkMailedTo("kay@work.example", before));
  t.match(page.url(), /\/account\?done=merged$/);
  await context.close();

  const [row] = await eventRows(laurel, org.id, "user.account_merged");
  t.ok(row, "the merge recorded user.account_merged for the organization");
  const delivered = await waitFor(
    "the user.account_merged delivery",
    () => receiver.received.find((d) => d.json.event_type === "user.account_merged"),
    15_000,
  );
  t.same(receiver.verify([hooked.secret], [delivered]), [], "signed with the organization's secret");
  t.equal(delivered.json.organization_id, org.id);
  t.equal(delivered.json.id, row?.id, "the delivery names the recorded event");
  t.equal(delivered.headers["webhook-id"], row?.id);

  // The delivery names the event; its detail is read from the events API.
  const detail = await api("GET", `/organizations/${org.id}/events/${delivered.json.id}`, org.auth);
  t.equal(detail.status, 200);
  t.equal(detail.body.data.event_type, "user.account_merged");
  const destination = await ownerOf(issued.body.data.id);
  t.equal(detail.body.data.source_user_id, source, "the merged-away account");
  t.equal(detail.body.data.destination_user_id, destination, "the account the badge moved to");
  t.not(detail.body.data.source_user_id, detail.body.data.destination_user_id);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.received.length, 1, "one delivery for one merge");
});
