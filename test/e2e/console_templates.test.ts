import { createHash } from "node:crypto";
import t from "tap";
import { apiClient, issueBody, trpc } from "../support/badges.ts";
import { seriousViolations } from "../support/browser.ts";
import { look, startBrowserLaurel } from "../support/console.ts";
import { badImages, png } from "../support/images.ts";
import { basic } from "../support/laurel.ts";

/**
 * Badge templates in the console, in a real browser: an owner creates a template with an uploaded
 * PNG (a preview before sending, the stored image after), edits, archives and unarchives it; a
 * badge issued from it over REST shows that image on its public page. Every hostile image is
 * refused with the same message as the API's; a template that issued a badge cannot be deleted,
 * one that issued none can. Changes are in the audit log; a viewer sees the list and no form.
 */
const HOSTILE = '"><img src=x onerror=alert(1)>';

const { laurel, flows, memberPage: signedIn } = await startBrowserLaurel(t);

t.test("owner: create with an uploaded PNG, edit, archive; the badge page shows the stored image", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Template Co");
  const org = organization.id;
  const auth = basic(authorization_token.token);
  const dialogs: string[] = [];
  const page = await signedIn(org, "owner@example.org", "owner");
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });

  await page.goto(`${laurel.origin}/console/${org}`);
  await page.click("a.console-link:has-text('Templates')");
  await page.waitForSelector("h1:has-text('Badge templates')");
  await look(t, page, "templates-empty");
  await flows.click(page, "", "a.button:has-text('New template')");
  await look(t, page, "template-new");

  // The API's validation: an empty description and a bad alignment address are refused together.
  await page.fill("#tpl-name", `Welding ${HOSTILE}`);
  await page.fill("#tpl-alignments", "ESCO | not-an-address");
  await page.fill("#tpl-criteria", "ftp://files.example.org/criteria");
  await page.$eval("#tpl-description", (el) => el.removeAttribute("required"));
  await flows.click(page, "Create template");
  const refusal = (await page.textContent(".status.bad")) ?? "";
  t.match(refusal, /the description cannot be empty/, "the description is named, in words");
  t.match(refusal, /the criteria URL must be a web address starting with https:\/\//, "a criteria address in words");
  t.notMatch(refusal, /must match|fewer than|\^\[|characters|anyOf|_/, "no validator wording, no field code");
  await look(t, page, "template-refused-words");
  await page.fill("#tpl-criteria", "");
  t.match(refusal, /the URL of alignment 1 must be a full web address/, "and the alignment's address, in words");
  t.equal(await page.inputValue("#tpl-name"), `Welding ${HOSTILE}`, "the input is kept");

  // Each hostile image: the same refusal as the API's, the field named.
  for (const bad of badImages()) {
    await page.fill("#tpl-description", "Joins steel safely");
    await page.fill("#tpl-alignments", "");
    await page.setInputFiles("#tpl-image", { name: "badge.png", mimeType: bad.type, buffer: bad.bytes });
    await flows.click(page, "Create template");
    t.match(await page.textContent(".status.bad"), /image/, `${bad.what}: refused, naming the image`);
  }

  const bytes = png(96, 96, [30, 90, 160]);
  await page.fill("#tpl-description", "Joins steel safely");
  await page.fill("#tpl-skills", "welding, safety");
  await page.fill("#tpl-reporting-tags", "Q3 report, metalwork, q3 REPORT");
  await page.fill("#tpl-criteria", "https://criteria.example/welding");
  await page.fill("#tpl-alignments", "ESCO welding | https://esco.example/s/1 | Join metal");
  await page.selectOption("#tpl-state", "active");
  await page.setInputFiles("#tpl-image", { name: "badge.png", mimeType: "image/png", buffer: bytes });
  await page.waitForSelector("#tpl-image-preview:not([hidden])");
  t.match((await page.getAttribute("#tpl-image-preview", "src")) ?? "", /^data:image\/png;base64,/, "a preview");
  await look(t, page, "template-new-preview");
  await flows.click(page, "Create template");
  t.match(await page.textContent("main"), /Template created/);
  const stored = (await page.getAttribute(".template-current img", "src")) ?? "";
  const sha = createHash("sha256").update(bytes).digest("hex");
  t.match(stored, new RegExp(`/images/${sha}\\.png$`), "the page shows the stored image");
  t.ok(
    await page.$eval(".template-current img", (img) => (img as HTMLImageElement).naturalWidth === 96),
    "and it loads",
  );
  t.equal(await page.inputValue("#tpl-reporting-tags"), "Q3 report, metalwork", "the tags, each once");
  await look(t, page, "template-edit");
  const templateId = new URL(page.url()).pathname.split("/").at(-1) ?? "";

  const api = apiClient(laurel);
  const viaApi = await api("GET", `/organizations/${org}/badge_templates/${templateId}`, auth);
  t.match(viaApi.body.data, {
    name: `Welding ${HOSTILE}`,
    state: "active",
    skills: ["welding", "safety"],
    reporting_tags: ["Q3 report", "metalwork"],
    criteria_url: "https://criteria.example/welding",
    alignments: [{ name: "ESCO welding", url: "https://esco.example/s/1", description: "Join metal" }],
    image_url: stored,
  });

  // A badge issued over REST shows the uploaded image on its public page.
  const issued = await api("POST", `/organizations/${org}/badges`, auth, issueBody(templateId));
  t.equal(issued.status, 201);
  await trpc(laurel, "badges.accept", { badge_id: issued.body.data.id });
  const badgePage = await page.context().newPage();
  await badgePage.goto(issued.body.data.badge_url);
  t.equal(await badgePage.getAttribute("img.badge-image", "src"), stored, "the badge page shows the stored image");
  t.ok(
    await badgePage.$eval("img.badge-image", (img) => (img as HTMLImageElement).naturalWidth === 96),
    "and it loads there",
  );
  await badgePage.close();

  // Edit: a new name and image; the stored one shows after saving.
  await page.fill("#tpl-name", "Welding");
  const next = png(64, 64, [200, 30, 30]);
  await page.setInputFiles("#tpl-image", { name: "next.png", mimeType: "image/png", buffer: next });
  await flows.click(page, "Save changes");
  t.match(await page.textContent("main"), /Template saved/);
  const nextSha = createHash("sha256").update(next).digest("hex");
  t.match((await page.getAttribute(".template-current img", "src")) ?? "", new RegExp(`${nextSha}\\.png$`));
  t.equal(await page.locator("button:has-text('Delete this template')").count(), 0, "it issued a badge: no delete");
  await flows.click(page, "Archive this template");
  t.match(await page.textContent("main"), /Template archived/);
  await flows.click(page, "Unarchive this template");
  t.match(await page.textContent("main"), /Template unarchived/);
  const forced = await page.evaluate(async (url) => {
    const form = await fetch(url);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? "";
    const res = await fetch(`${url}/delete`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrf, confirm: "yes" }),
    });
    return { status: res.status, text: await res.text() };
  }, page.url().split("?")[0] as string);
  t.equal(forced.status, 422, "deleting a template that issued a badge is refused");
  t.match(forced.text, /archive it instead/);

  // A second template, never used: deleted.
  await page.goto(`${laurel.origin}/console/${org}/templates/new`);
  await page.fill("#tpl-name", "Spare");
  await page.fill("#tpl-description", "Never issued");
  await page.uncheck("input[name=public]");
  await page.check("input[name=allow_duplicate_badges]");
  await flows.click(page, "Create template");
  const spare = await api(
    "GET",
    `/organizations/${org}/badge_templates/${page.url().split("/").at(-1)?.split("?")[0]}`,
    auth,
  );
  t.match(spare.body.data, { state: "draft", public: false, allow_duplicate_badges: true, image_url: null });
  await flows.click(page, "Delete this template");
  t.match(await page.textContent("h1"), /Delete the template “Spare”\?/, "deleting asks first");
  await look(t, page, "template-delete-confirm");
  await flows.click(page, "Delete template");
  t.match(await page.textContent("main"), /Template deleted/);
  t.notMatch(await page.textContent("main"), /Spare/, "gone from the list");
  t.match(await page.textContent("main"), /1 badge issued/, "the list counts the badges issued");
  await look(t, page, "templates");

  const audit = await laurel.db.all<{ action: string }>(
    "select action from audit_log where organization_id = ? and action like 'badge_template.%' order by id",
    [org],
  );
  t.same(
    audit.map((r) => r.action),
    [
      "badge_template.created",
      "badge_template.updated",
      "badge_template.archived",
      "badge_template.unarchived",
      "badge_template.created",
      "badge_template.deleted",
    ],
    "every change is in the audit log",
  );

  // A viewer reads the list, with no form and no edit link; the forms refuse them.
  const viewer = await signedIn(org, "viewer@example.org", "viewer");
  await viewer.goto(`${laurel.origin}/console/${org}/templates`);
  t.match(await viewer.textContent("main"), /Welding/);
  t.equal(await viewer.locator("a:has-text('New template')").count(), 0, "no new-template link");
  t.equal(await viewer.locator(`a[href$='${templateId}']`).count(), 0, "no edit link");
  t.equal((await viewer.goto(`${laurel.origin}/console/${org}/templates/new`))?.status(), 403);
  await look(t, viewer, "templates-viewer");
  await viewer.context().close();

  t.same(dialogs, [], "no dialog fired");
  await page.context().close();
});

t.test(
  "templates without traps: no image said before saving, a second name warned, a draft shown on the issue form",
  async (t) => {
    const { organization } = await laurel.createOrganization("Twins Co");
    const org = organization.id;
    const page = await signedIn(org, "twins-owner@example.org", "owner");

    await page.goto(`${laurel.origin}/console/${org}/templates/new`);
    t.match(await page.textContent("#tpl-image-none"), /No image yet/, "no image is said before the template is saved");
    await page.setInputFiles("#tpl-image", { name: "badge.png", mimeType: "image/png", buffer: png(64, 64) });
    t.notOk(await page.isVisible("#tpl-image-none"), "and no longer once an image is chosen");
    await page.setInputFiles("#tpl-image", []);
    t.ok(await page.isVisible("#tpl-image-none"), "and again when the choice is cleared");

    const create = async (name: string, state: "draft" | "active") => {
      await page.goto(`${laurel.origin}/console/${org}/templates/new`);
      await page.fill("#tpl-name", name);
      await page.fill("#tpl-description", "Joins steel safely");
      await page.selectOption("#tpl-state", state);
      await flows.click(page, "Create template");
      return new URL(page.url()).pathname;
    };
    const first = await create("Welding", "active");
    t.equal(await page.locator("#tpl-same-name").count(), 0, "a first name is not warned of");
    t.match(await page.textContent("#tpl-image-none"), /No image yet/, "a saved template without an image says so");
    await create("welding", "draft");
    t.match(await page.textContent("#tpl-same-name"), /Another template is also named “welding”: Welding \(active\)/);
    t.equal(await page.getAttribute("#tpl-same-name a", "href"), first, "linked to the other");
    await look(t, page, "template-same-name");

    // Renaming a third template to a name in use is warned of too.
    await create("Brazing", "draft");
    await page.fill("#tpl-name", "WELDING");
    await flows.click(page, "Save changes");
    t.match(await page.textContent("#tpl-same-name"), /2 other templates are also named “WELDING”/, "on edit too");

    await page.goto(`${laurel.origin}/console/${org}/issue`);
    const options = await page.$$eval("#issue-template option", (os) =>
      os.map((o) => `${o.textContent}${(o as HTMLOptionElement).disabled ? " [disabled]" : ""}`),
    );
    t.same(
      [options[0], ...options.slice(1).sort()],
      ["Welding", "WELDING (draft: publish it first) [disabled]", "welding (draft: publish it first) [disabled]"],
      "the drafts are in the list, marked and not choosable",
    );
    t.match(await page.textContent("#issue-drafts"), /WELDING \(draft: publish it first, on its page, State: Active\)/);
    await look(t, page, "issue-drafts");
    await page.context().close();
  },
);

t.test("on a phone the console's sections are one menu, opened without a script", async (t) => {
  const { organization } = await laurel.createOrganization("Pocket Co");
  const org = organization.id;
  const page = await signedIn(org, "pocket-owner@example.org", "owner");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${laurel.origin}/console/${org}/templates`);
  const menu = page.locator("details.console-menu");
  t.ok(await menu.isVisible(), "one menu");
  t.equal(await menu.locator("summary").textContent(), "Menu: Templates", "naming the section shown");
  t.notOk(await page.locator(".console-nav-full").isVisible(), "the long list is not shown");
  t.notOk(await menu.locator("a:has-text('Members')").isVisible(), "closed at first");
  const top = await page.locator("h1").boundingBox();
  t.ok(top && top.y < 400, `the page's heading is near the top (${top?.y})`);
  await look(t, page, "phone-menu-closed");
  await menu.locator("summary").click();
  t.ok(await menu.locator("a:has-text('Members')").isVisible(), "opened, every section");
  t.equal(await menu.locator("a[aria-current=page]").textContent(), "Templates");
  await page.screenshot({ path: "artifacts/web/console-phone-menu-open.png", fullPage: false });
  t.same(await seriousViolations(page), [], "open menu: no serious axe violation");
  await menu.locator("a:has-text('Members')").click();
  await page.waitForURL(`**/console/${org}/members`);
  t.equal(await page.locator("details.console-menu summary").textContent(), "Menu: Members");

  await page.setViewportSize({ width: 1280, height: 900 });
  t.notOk(await page.locator("details.console-menu").isVisible(), "no menu on a wide screen");
  t.ok(await page.locator(".console-nav-full a:has-text('Templates')").isVisible(), "the list beside the content");
  await page.context().close();
});
