import { createHash } from "node:crypto";
import t from "tap";
import { renderMail } from "../../adapters/mail/mod.ts";
import { previewBadgeContent } from "../../core/issuing/mod.ts";
import { createTemplate, organization } from "../support/badges.ts";
import { ARTIFACTS } from "../support/browser.ts";
import { look, startBrowserLaurel } from "../support/console.ts";
import { png } from "../support/images.ts";

/**
 * A template's badge mail, previewed in the console in a real browser: the page frames exactly
 * the HTML part `renderMail` makes for the template (its message, the organization's logo, the
 * badge image, a sample recipient) from an address of its own with a sandboxing policy, and shows
 * the text part beside it. An issuer's hostile message and name are shown as text: no script
 * runs, no element of theirs is made.
 */
const HOSTILE_MESSAGE = `Well done!</blockquote><script>alert("message")</script><img src=x onerror=alert("img")>\nSecond line`;
const HOSTILE_NAME = `Welding "><img src=x onerror=alert("name")>`;

const { laurel, memberPage } = await startBrowserLaurel(t);

/** Stores a PNG as Laurel stores uploads; its name under `/images/`. */
const storedPng = async (rgb: [number, number, number]): Promise<string> => {
  const bytes = png(64, 64, rgb);
  const sha = createHash("sha256").update(bytes).digest("hex");
  await laurel.db.run(
    "insert into images (sha256, content_type, bytes, created_at) values (?, ?, ?, ?) on conflict do nothing",
    [sha, "image/png", bytes, new Date()],
  );
  return `${sha}.png`;
};

t.test("a template's mail preview: exactly the sent HTML, framed and sandboxed, with the text part", async (t) => {
  const org = await organization(laurel, "Preview Co");
  const logo = await storedPng([200, 60, 40]);
  await laurel.db.run("update organizations set image_url = ? where id = ?", [
    `${laurel.origin}/images/${logo}`,
    org.id,
  ]);
  const template = await createTemplate(laurel, org, {
    name: HOSTILE_NAME,
    description: "Joins steel safely",
    notification_message: HOSTILE_MESSAGE,
  });
  await laurel.db.run("update badge_templates set image = ? where id = ?", [
    await storedPng([30, 90, 160]),
    template.id,
  ]);

  const dialogs: string[] = [];
  const page = await memberPage(org.id, "owner@example.org", "owner");
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  // The issue form points at the previews.
  await page.goto(`${laurel.origin}/console/${org.id}/issue`);
  t.match(
    await page.textContent("form.issue-form"),
    /The mail the recipient gets: each template's page under Templates previews it/,
  );
  await page.goto(`${laurel.origin}/console/${org.id}/templates/${template.id}`);
  await Promise.all([page.waitForNavigation(), page.click("a:has-text('Preview the mail')")]);
  await page.waitForSelector("h1:has-text('The badge mail')");
  const frame = page.frameLocator("iframe.mail-preview");
  await frame.locator("blockquote").waitFor();
  await frame
    .locator("img")
    .last()
    .evaluate((img) => (img as HTMLImageElement).decode().catch(() => undefined));
  await look(t, page, "template-mail-preview");
  // The framed mail at phone width, once its frame has been laid out again after the resize.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(500);
  await page
    .locator("iframe.mail-preview")
    .screenshot({ path: `${ARTIFACTS}/console-template-mail-preview-frame-phone.png` });
  await page.setViewportSize({ width: 1280, height: 900 });

  // What the mail sender renders for this template, as the console should show it.
  const stored = await laurel.db.one<{
    name: string;
    description: string;
    image: string;
    image_url: null;
    notification_message: string;
  }>("select name, description, image, image_url, notification_message from badge_templates where id = ?", [
    template.id,
  ]);
  const issuer = { name: "Preview Co", image_url: `${laurel.origin}/images/${logo}` };
  const expected = renderMail(previewBadgeContent(stored as never, issuer, { publicBase: laurel.origin }));

  const served = await page.request.get(`${laurel.origin}/console/${org.id}/templates/${template.id}/mail.html`);
  t.equal(served.status(), 200);
  const body = await served.text();
  t.ok(body.includes(expected.html), "the framed document holds renderMail's HTML part unchanged");
  const csp = served.headers()["content-security-policy"] ?? "";
  t.match(csp, /(^|; )sandbox(;|$)/, "served sandboxed");
  t.match(csp, /default-src 'none'/, "nothing loads but what is named");
  t.notMatch(csp, /script-src/, "and no script may run");
  t.match(csp, /frame-ancestors 'self'/, "framed by the console only");
  t.equal(await page.getAttribute("iframe.mail-preview", "sandbox"), "", "the frame is sandboxed too");

  t.equal(await page.textContent("#mail-subject"), expected.subject, "the subject");
  t.match(expected.subject, /Preview Co sent you a badge: Welding/);
  t.equal(await page.textContent("#mail-text"), expected.text, "the text part as sent");
  t.match(await page.textContent("main"), /Sam Example <sam@example\.org>/, "to a sample recipient");

  // The issuer's words are text in the mail: their markup made no element and ran nothing.
  t.equal(
    (await frame.locator("blockquote").textContent())?.trim(),
    HOSTILE_MESSAGE,
    "the message is shown as written",
  );
  t.equal(await frame.locator("script").count(), 0, "no script element in the mail");
  t.equal(await frame.locator("img[src=x]").count(), 0, "no element from the message or the name");
  t.match(
    (await frame.locator("p").filter({ hasText: "Welding" }).first().textContent()) ?? "",
    /onerror/,
    "the name is text",
  );
  t.match(await frame.locator("a").first().textContent(), /Accept your badge/, "the button");
  const images = await frame
    .locator("img")
    .evaluateAll((imgs) =>
      imgs.map((i) => ({ src: (i as HTMLImageElement).src, width: (i as HTMLImageElement).naturalWidth })),
    );
  t.same(
    images.map((i) => i.src),
    [`${laurel.origin}/images/${logo}`, `${laurel.origin}/images/${stored?.image}`],
    "the organization's logo, then the badge's image",
  );
  t.ok(
    images.every((i) => i.width === 64),
    "both load inside the frame",
  );
  t.same(dialogs, [], "no script ran");
});

t.test("a viewer sees the preview; someone signed out is sent to sign in", async (t) => {
  const org = await organization(laurel, "Viewer Co");
  const template = await createTemplate(laurel, org, { name: "Reading" });
  const page = await memberPage(org.id, "viewer@example.org", "viewer");
  const res = await page.goto(`${laurel.origin}/console/${org.id}/templates/${template.id}/mail`);
  t.equal(res?.status(), 200);
  t.match(await page.textContent("#mail-subject"), /Viewer Co sent you a badge: Reading/);
  const anonymous = await fetch(`${laurel.origin}/console/${org.id}/templates/${template.id}/mail.html`, {
    redirect: "manual",
  });
  t.equal(anonymous.status, 303, "signed out: a redirect to sign in");
  const other = await organization(laurel, "Other Co");
  const foreign = await page.goto(`${laurel.origin}/console/${other.id}/templates/${template.id}/mail.html`);
  t.equal(foreign?.status(), 403, "another organization's address is refused");
});
