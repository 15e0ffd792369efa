import t from "tap";
import { Value } from "typebox/value";
import { EmploymentEventDetailSchema, EmploymentSchema } from "../../core/events/mod.ts";
import { apiClient, createTemplate, issueBody, trpc } from "../support/badges.ts";
import { screenshots, seriousViolations } from "../support/browser.ts";
import { startEarnerWebhookStack } from "../support/earner_flows.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

/**
 * The connection between employee records and earner accounts from real actions: an account
 * signing in, a record created or changed over REST and batch, the wallet's prompt and its
 * Connect / Not now / Disconnect buttons in Chromium, an address removed, an account merged away.
 * Every kind is delivered to the organization's webhook receiver with its documented detail.
 */
const stack = await startEarnerWebhookStack();
t.teardown(stack.close);
const { laurel, smtp, browser, receiver, click, linkMailedTo, signIn, useLink } = stack;

// biome-ignore lint/suspicious/noExplicitAny: event details of many shapes
type Detail = any;

t.test("every connection kind comes from a real action and is delivered with its shape", async (t) => {
  const api = apiClient(laurel);
  const org = await webhookOrganization(laurel, { url: receiver.url, events: "all", name: "Acme" });
  await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
  const fixture = {
    id: org.id,
    auth: org.auth,
    templates: `/organizations/${org.id}/badge_templates`,
    badges: `/organizations/${org.id}/badges`,
  };
  const template = await createTemplate(laurel, fixture, { name: "Welding" });
  const badge = (
    await api("POST", fixture.badges, org.auth, issueBody(template.id, { recipient_email: "ann@example.org" }))
  ).body.data;
  const path = `/organizations/${org.id}/employees`;
  const ann = (
    await api("POST", path, org.auth, { email: "Ann@Example.org", first_name: "Ann", last_name: "A", external_id: "A" })
  ).body.data;
  t.equal(ann.employee_state, "created");

  /** The details of this organization's events of `kind`, oldest first, as the events API shows them. */
  const details = async (kind: string, n = 1): Promise<Detail[]> => {
    await waitFor(`${n} × ${kind}`, () => receiver.received.filter((r) => r.json.event_type === kind).length >= n);
    const out: Detail[] = [];
    for (const d of receiver.received.filter((r) => r.json.event_type === kind)) {
      const detail = (await api("GET", `/organizations/${org.id}/events/${d.json.id}`, org.auth)).body.data;
      t.ok(Value.Check(EmploymentEventDetailSchema, detail), `${kind}: the detail's schema`);
      t.ok(Value.Check(EmploymentSchema, detail.employment), `${kind}: the full employment`);
      out.push(detail);
    }
    return out;
  };

  // Signing in makes Ann's account: her record is associated, and the wallet she lands on prompts.
  // The employer is told of the association with the prompt, not before.
  const context = await browser.newContext();
  const page = await signIn(context, "ann@example.org");
  const [associated] = await details("employment.user_account.associated");
  t.equal(associated.employment.id, ann.id);
  t.equal(associated.employment.employee_state, "pending");
  const [pending] = await details("employment.connection.pending");
  t.equal(pending.employment.employee_state, "pending");
  t.match(await page.textContent("main"), /Acme lists you as an employee/);
  t.same(await seriousViolations(page), [], "the prompt passes axe");
  await screenshots(page, "wallet-employer-prompt");
  // A second visit prompts no more.
  await page.reload();
  t.equal((await api("GET", `${path}/${ann.id}`, org.auth)).body.data.employee_state, "pending");

  // Accepting the badge first: once connected, the employer sees it.
  await click(page, "Accept");
  await click(page, "Connect to Acme");
  await page.waitForSelector("text=Connected: your employer");
  const [accepted] = await details("employment.connection.accepted");
  t.equal(accepted.employment.employee_state, "accepted");
  t.same(
    accepted.employment.badges.map((b: Detail) => [b.id, b.state, b.public]),
    [[badge.id, "accepted", true]],
    "the accepted public badge is revealed",
  );

  // Disconnect: back to rejected, the badges hidden.
  await click(page, "Disconnect from Acme");
  await page.waitForSelector("text=Disconnected");
  const [disconnected] = await details("employment.connection.rejected");
  t.equal(disconnected.employment.employee_state, "rejected");
  t.same(disconnected.employment.badges, []);
  // Connecting again from rejected.
  await click(page, "Connect to Acme");
  await details("employment.connection.accepted", 2);

  // An account that exists before its record: the batch associates it; the earner declines.
  const bobContext = await browser.newContext();
  const bobPage = await signIn(bobContext, "bob@example.org");
  const batch = await api("POST", `${path}/batch`, org.auth, {
    employees: [{ email: "bob@example.org", first_name: "Bob", last_name: "B", external_id: "B" }],
  });
  const bobId = batch.body.data[0].id;
  await bobPage.goto(`${laurel.origin}/wallet`);
  await details("employment.user_account.associated", 2);
  await click(bobPage, "Not now");
  await bobPage.waitForSelector("text=Connection declined");
  const rejected = await details("employment.connection.rejected", 2);
  t.equal(rejected[1].employment.id, bobId);

  // The organization moves Bob's record to an address nobody owns: disassociated, back to created.
  const moved = await api("PUT", `${path}/${bobId}`, org.auth, { email: "robert@example.org" });
  t.equal(moved.body.data.employee_state, "created");
  const [gone] = await details("employment.user_account.disassociated");
  t.equal(gone.employment.id, bobId);
  t.equal(gone.employment.employee_state, "created");

  // Bob adds that address to his account: associated again, told when his wallet asks him.
  await bobPage.goto(`${laurel.origin}/account`);
  await bobPage.fill("#new-email", "robert@example.org");
  let before = smtp.mails.length;
  await click(bobPage, "Add");
  await useLink(bobPage, await linkMailedTo("robert@example.org", before));
  await bobPage.goto(`${laurel.origin}/wallet`);
  await details("employment.user_account.associated", 3);

  // ... and removes it again: disassociated.
  await bobPage.goto(`${laurel.origin}/account`);
  await click(bobPage, "", "button[aria-label='Remove robert@example.org']");
  await details("employment.user_account.disassociated", 2);

  // Ann's account merged away into Bob's: her record leaves her account and joins his.
  await bobPage.goto(`${laurel.origin}/account`);
  await bobPage.fill("#merge-email", "ann@example.org");
  before = smtp.mails.length;
  await click(bobPage, "Send merge link");
  await useLink(bobPage, await linkMailedTo("ann@example.org", before));
  const afterMerge = await details("employment.user_account.disassociated", 3);
  t.equal(afterMerge[2].employment.id, ann.id);
  await bobPage.goto(`${laurel.origin}/wallet`);
  const reassociated = await details("employment.user_account.associated", 4);
  t.equal(reassociated[3].employment.id, ann.id);
  const row = (await laurel.db.all(
    "select u.first_name from employees e join users u on u.id = e.user_id where e.id = ?",
    [ann.id],
  )) as {
    first_name: string;
  }[];
  t.equal(row[0]?.first_name, "bob", "Ann's record now belongs to the merged account");
  t.same(receiver.verify([org.secret]), [], "signed");
  await context.close();
  await bobContext.close();
});
