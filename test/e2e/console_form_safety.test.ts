import type { Page } from "playwright-core";
import t, { type Test } from "tap";
import { look, startBrowserLaurel } from "../support/console.ts";
import { png } from "../support/images.ts";
import { basic, trpcMutation } from "../support/laurel.ts";
import {
  makeTestCa,
  recordEvents,
  startReceiver,
  startTestPipeline,
  waitFor,
  webhookEnv,
} from "../support/webhooks.ts";

/**
 * The console's forms as an issuer falls into them, in Chromium: a 4.9 MB image keeps what was
 * typed and names the 1 MiB limit (stopped in the browser, refused by the server without
 * JavaScript); a reload after creating an OAuth application creates nothing and no longer shows
 * the secret; a new webhook receives every kind by default and the page says what is sent and
 * why not; destructive actions ask first, without JavaScript too, and an admin is offered nothing
 * on an owner. axe and screenshots on each page.
 */
const ca = makeTestCa();
const receiver = await startReceiver(ca);
t.teardown(async () => {
  await receiver.close();
  ca.remove();
});
const { laurel, browser, flows, memberPage } = await startBrowserLaurel(t, { env: webhookEnv(ca) });
const pipeline = await startTestPipeline(laurel, webhookEnv(ca));
t.teardown(() => pipeline.stop());

/** 4.9 MB that start as a PNG: the size is what is judged first. */
const HUGE = Buffer.concat([png(8, 8), Buffer.alloc(4_900_000 - png(8, 8).length, 7)]);

const fillTemplate = async (page: Page) => {
  await page.fill("#tpl-name", "Forklift safety");
  await page.fill("#tpl-description", "Drives a forklift safely in the warehouse");
  await page.fill("#tpl-skills", "forklift, safety");
  await page.fill("#tpl-criteria", "https://criteria.example/forklift");
};

const keptFields = async (t: Test, page: Page) => {
  t.equal(await page.inputValue("#tpl-name"), "Forklift safety", "the name is kept");
  t.equal(await page.inputValue("#tpl-description"), "Drives a forklift safely in the warehouse", "the description");
  t.equal(await page.inputValue("#tpl-skills"), "forklift, safety", "the skills");
  t.equal(await page.inputValue("#tpl-criteria"), "https://criteria.example/forklift", "the criteria address");
};

t.test("a 4.9 MB image keeps the template form and names the 1 MiB limit", async (t) => {
  const { organization } = await laurel.createOrganization("Upload Co");
  const org = organization.id;
  const page = await memberPage(org, "uploads-owner@example.org", "owner");
  await page.goto(`${laurel.origin}/console/${org}/templates/new`);
  t.match(await page.textContent("label[for=tpl-image]"), /at most 1 MiB/, "the limit is said beside the field");

  // With JavaScript: the file is refused as it is chosen, and the form is not sent.
  await fillTemplate(page);
  await page.setInputFiles("#tpl-image", { name: "photo.png", mimeType: "image/png", buffer: HUGE });
  await page.click("button:has-text('Create template')");
  t.match(await page.$eval("#tpl-image", (el) => (el as HTMLInputElement).validationMessage), /at most 1 MiB/);
  t.match(page.url(), /\/templates\/new$/, "still on the form");
  await keptFields(t, page);

  // Without JavaScript: the server reads the whole form, drops the file and shows the form as typed.
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  t.teardown(() => context.close());
  const plain = await flows.signIn(context, "uploads-owner@example.org");
  await plain.goto(`${laurel.origin}/console/${org}/templates/new`);
  await fillTemplate(plain);
  await plain.setInputFiles("#tpl-image", { name: "photo.png", mimeType: "image/png", buffer: HUGE });
  const [answer] = await Promise.all([
    plain.waitForResponse((r) => r.request().method() === "POST"),
    plain.click("button:has-text('Create template')"),
  ]);
  await plain.waitForLoadState();
  t.equal(answer.status(), 413);
  t.match(await plain.textContent(".status.bad"), /larger than 1 MiB.*at most 1 MiB/s, "the error names the limit");
  await keptFields(t, plain);
  t.match(await plain.textContent("header"), /Sign out/, "the session is still shown");
  t.notMatch(await plain.textContent("header"), /Sign in/);
  // The same answer in the first browser (axe runs as a script): the field's own check taken off.
  await page.$eval("#tpl-image", (el) => {
    el.removeAttribute("data-max-bytes");
    (el as HTMLInputElement).setCustomValidity("");
  });
  await flows.click(page, "Create template");
  await keptFields(t, page);
  await look(t, page, "template-image-too-large");
  const made = await laurel.db.all("select id from badge_templates where organization_id = ?", [org]);
  t.equal(made.length, 0, "nothing was created");

  // The organization's image form: the same limit, said before and after, the session kept.
  await plain.goto(`${laurel.origin}/console/${org}/profile`);
  t.match(await plain.textContent("label[for=org-image]"), /at most 1 MiB/);
  await plain.setInputFiles("#org-image", { name: "logo.png", mimeType: "image/png", buffer: HUGE });
  await flows.click(plain, "Upload image");
  t.match(await plain.textContent(".status.bad"), /larger than 1 MiB/);
  t.match(await plain.textContent("header"), /Sign out/);
});

t.test("a reload after creating an OAuth application creates nothing and no longer shows the secret", async (t) => {
  const { organization } = await laurel.createOrganization("Reload Co");
  const org = organization.id;
  const page = await memberPage(org, "reload-owner@example.org", "owner");
  await page.goto(`${laurel.origin}/console/${org}/developers/oauth_applications`);
  await page.fill("#app-name", "Warehouse sync");
  const [posted] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST"),
    page.click("button:has-text('Create application')"),
  ]);
  await page.waitForLoadState();
  t.equal(posted.status(), 303, "the form redirects");
  t.match(page.url(), /oauth_applications\?done=created$/, "to the list, the secret out of the address");
  const secret = await page.inputValue("#new-secret");
  t.ok(secret.length >= 40, "the secret is shown once");
  t.match(await page.textContent(".secret-once"), /only time Laurel shows it/);
  await look(t, page, "oauth-application-created");
  const count = async () =>
    (await laurel.db.all("select id from oauth_applications where organization_id = ?", [org])).length;
  t.equal(await count(), 1);

  await page.reload();
  t.equal(await count(), 1, "the reload created nothing");
  t.equal(await page.locator("#new-secret").count(), 0, "and shows no secret");
  t.notMatch(await page.content(), secret, "anywhere in the page");
  t.match(await page.textContent("main"), /Warehouse sync/, "the application is listed once");
  t.equal(await page.locator("h3:has-text('Warehouse sync')").count(), 1);
});

t.test("a new webhook delivers every kind by default; the page says what is sent and why not", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Hooks Co");
  const org = organization.id;
  const page = await memberPage(org, "hooks-owner@example.org", "owner");
  const path = `${laurel.origin}/console/${org}/developers/webhooks`;
  await page.goto(path);
  t.ok(await page.isChecked("input[name=all_kinds]"), "every kind is chosen for a new webhook");
  const outlook = async () => (await page.textContent(".outlook")) ?? "";
  t.match(await outlook(), /Nothing is sent now/);
  t.match(await outlook(), /There is no address/);
  t.notMatch(await outlook(), /No event kind/, "the kinds ticked by default are not said missing");
  t.match(await outlook(), /data services enabled/, "the missing data-services application is named");
  t.equal(await page.getAttribute(".outlook a", "href"), `/console/${org}/developers/oauth_applications`);
  await look(t, page, "webhooks-new");

  // Data services on an application (Laurel's operators do it), then only the address is missing.
  const app = await fetch(`${laurel.baseUrl}/organizations/${org}/oauth_applications`, {
    method: "POST",
    headers: { authorization: basic(authorization_token.token), "content-type": "application/json" },
    body: JSON.stringify({ name: "Data services" }),
  });
  const { id } = ((await app.json()) as { data: { id: number } }).data;
  await trpcMutation(laurel.adminOrigin, laurel.server.adminToken, "oauthApplications.setDataServices", {
    organization_id: org,
    application_id: id,
    enabled: true,
  });
  await page.fill("#webhook-url", receiver.url);
  await flows.click(page, "Save webhook settings");
  t.match(await page.textContent(".notice"), /Webhook settings saved\./);
  t.match(await outlook(), /What Laurel sends/);
  t.match(await outlook(), /every kind of event/);
  await look(t, page, "webhooks-on");

  // A real event, not a test: it arrives.
  const [event] = await recordEvents(laurel.db, org, 1);
  await waitFor("the event at the receiver", () => receiver.received.find((d) => d.json.id === event?.id));
  t.pass("a real event is delivered with the default settings");

  // Saving with no kind says plainly that nothing will be sent.
  await page.uncheck("input[name=all_kinds]");
  for (const box of await page.locator("input[name=event_types]").all()) await box.uncheck();
  await flows.click(page, "Save webhook settings");
  t.match(await page.textContent(".notice"), /no event kind is chosen: Laurel sends nothing/);
  t.match(await outlook(), /No event kind is chosen/);
  t.notOk(await page.isChecked("input[name=all_kinds]"), "once saved, the choice stays as saved");
  await look(t, page, "webhooks-no-kinds");

  // An address that does not answer: the page says the latest delivery did not arrive, and why.
  await page.check("input[name=all_kinds]");
  await page.fill("#webhook-url", "https://127.0.0.1:9/hooks");
  await flows.click(page, "Save webhook settings");
  await flows.click(page, "Send a test event");
  await waitFor("the failed attempt on the page", async () => {
    await page.goto(path);
    return /did not arrive/.test((await page.textContent("main")) ?? "");
  });
  t.match(await page.textContent(".status.bad"), /could not connect/);
  await look(t, page, "webhooks-failing");
});

t.test("destructive actions ask first, without JavaScript too; an admin is offered nothing on the owner", async (t) => {
  const { organization } = await laurel.createOrganization("People Co");
  const org = organization.id;
  const owner = await memberPage(org, "people-owner@example.org", "owner");
  const admin = await memberPage(org, "people-admin@example.org", "admin");
  await memberPage(org, "people-viewer@example.org", "viewer");
  const members = `${laurel.origin}/console/${org}/members`;
  const card = (page: typeof admin, email: string) => page.locator("li.card", { hasText: email });

  // An invitation to become an owner: only an owner may send it again or cancel it.
  await owner.goto(members);
  await owner.fill("#invite-email", "next-owner@example.org");
  await owner.selectOption("#invite-role", "owner");
  await flows.click(owner, "Send invitation");
  t.equal(
    await card(owner, "next-owner@example.org").locator("button").count(),
    2,
    "the owner may resend or cancel it",
  );

  // The admin sees the owner's card without "Remove" or "Change role"; the viewer's with both.
  await admin.goto(members);
  t.equal(await card(admin, "next-owner@example.org").locator("button").count(), 0, "the admin may not");
  t.equal(await card(admin, "people-owner@example.org").locator("button").count(), 0, "no action on the owner");
  t.equal(await card(admin, "people-owner@example.org").locator("select").count(), 0, "no role change");
  t.equal(await card(admin, "people-viewer@example.org").locator("button:has-text('Remove')").count(), 1);
  const options = await card(admin, "people-viewer@example.org").locator("option").allTextContents();
  t.notOk(options.includes("Owner"), `an admin cannot make an owner (${options.join(", ")})`);
  await look(t, admin, "members-as-admin");
  await owner.goto(members);
  t.equal(
    await card(owner, "people-owner@example.org").locator("button:has-text('Leave')").count(),
    0,
    "the last owner is not offered to leave",
  );

  // Removing the viewer without JavaScript: a question first, nothing changed until it is answered.
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  t.teardown(() => context.close());
  const plain = await flows.signIn(context, "people-owner@example.org");
  await plain.goto(members);
  await flows.click(plain, "", "li.card:has-text('people-viewer') button:has-text('Remove')");
  t.match(await plain.textContent("h1"), /Remove .* from People Co\?/);
  const count = async () => (await laurel.db.all("select id from memberships where organization_id = ?", [org])).length;
  t.equal(await count(), 3, "nothing removed yet");
  await flows.click(plain, "", "a:has-text('Cancel')");
  t.equal(await count(), 3, "cancelled: still a member");
  await plain.goto(members);
  await flows.click(plain, "", "li.card:has-text('people-viewer') button:has-text('Remove')");
  await flows.click(plain, "Remove member");
  t.match(await plain.textContent(".notice"), /Member removed/);
  t.equal(await count(), 2, "removed once confirmed");

  await owner.goto(members);
  await flows.click(owner, "", "li.card:has-text('people-admin') button:has-text('Remove')");
  await look(t, owner, "member-remove-confirm");

  // The webhook secret's rotation asks too.
  await owner.goto(`${laurel.origin}/console/${org}/developers/webhooks`);
  await flows.click(owner, "Rotate secret");
  t.match(await owner.textContent("h1"), /Rotate the webhook signing secret\?/);
  await look(t, owner, "webhook-rotate-confirm");
  await flows.click(owner, "Rotate secret");
  t.match(await owner.textContent(".notice"), /Secret rotated/);
  const shown = await owner.inputValue("#webhook-secret");
  t.match(shown, /^whsec_/, "the new secret is shown once");
  await owner.reload();
  t.equal(await owner.locator("#webhook-secret").count(), 0, "and not after a reload");
});

t.test("refused Developers forms come back as typed", async (t) => {
  const { organization } = await laurel.createOrganization("Typed Co");
  const org = organization.id;
  const page = await memberPage(org, "typed-owner@example.org", "owner");
  const base = `${laurel.origin}/console/${org}/developers`;

  // A token description past its 2,000 characters: refused, the description and the boxes kept.
  await page.goto(`${base}/authorization_tokens`);
  const long = "n".repeat(2001);
  await page.$eval("#token-description", (el) => el.removeAttribute("maxlength"));
  await page.fill("#token-description", long);
  await page.uncheck("input[name=write_enabled]");
  await flows.click(page, "Create token");
  t.match(await page.textContent(".status.bad"), /description/);
  t.equal(await page.inputValue("#token-description"), long, "the description is kept");
  t.notOk(await page.isChecked("input[name=write_enabled]"), "and the box left unticked");

  // An application's edit with an empty name: the other changes are kept.
  await page.goto(`${base}/oauth_applications`);
  await page.fill("#app-name", "Payroll");
  await flows.click(page, "Create application");
  await flows.click(page, "", "a.button:has-text('Edit')");
  await page.$eval("#app-name", (el) => el.removeAttribute("required"));
  await page.fill("#app-name", "");
  await page.fill("#app-description", "Nightly payroll export");
  await page.uncheck("input[value=events]");
  await flows.click(page, "Save changes");
  t.match(await page.textContent(".status.bad"), /name/);
  t.equal(await page.inputValue("#app-description"), "Nightly payroll export", "the description is kept");
  t.notOk(await page.isChecked("input[value=events]"), "and the unticked scope");

  // A webhook address the rules refuse: the address and the chosen kinds are kept.
  await page.goto(`${base}/webhooks`);
  await page.fill("#webhook-url", "http://example.org/hooks");
  await page.uncheck("input[name=all_kinds]");
  for (const box of await page.locator("input[name=event_types]").all()) await box.uncheck();
  await page.check("input[value='badge.created']");
  await flows.click(page, "Save webhook settings");
  t.match(await page.textContent(".status.bad"), /webhook.url/i);
  t.equal(await page.inputValue("#webhook-url"), "http://example.org/hooks", "the address is kept");
  t.notOk(await page.isChecked("input[name=all_kinds]"));
  t.ok(await page.isChecked("input[value='badge.created']"), "and the kind chosen");
  t.notOk(await page.isChecked("input[value='badge.deleted']"));
  await look(t, page, "webhooks-refused");
});

t.test("the wallet's baked-image form names its 2 MiB limit before and after, signed in", async (t) => {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  t.teardown(() => context.close());
  const plain = await flows.signIn(context, "wallet-uploads@example.org");
  await plain.goto(`${laurel.origin}/wallet`);
  t.match(await plain.textContent("label[for=external-image]"), /at most 2 MiB/, "the limit beside the field");
  await plain.setInputFiles("#external-image", { name: "badge.png", mimeType: "image/png", buffer: HUGE });
  await flows.click(plain, "Add badge from image");
  t.match(await plain.textContent("main"), /larger than 2 MiB/, "the refusal names it");
  t.match(await plain.textContent("header"), /Sign out/, "the session is still shown");
});
