import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import t from "tap";
import { organization } from "../support/badges.ts";
import { makeMember, startBrowserLaurel } from "../support/console.ts";
import { png } from "../support/images.ts";

/**
 * One member's whole issuing job in the browser, end to end: a template with an uploaded PNG, one
 * badge issued with the form (the earner's mail arrives and the badge's page shows the uploaded
 * image), then a CSV of 500 rows with 3 bad ones, previewed, issued in the background to 497 and
 * its result file downloaded; the API's events list then holds 498 `badge.created`. The member is
 * an admin: in the role table an issuer issues but does not edit templates.
 */

const { laurel, smtp, browser, flows } = await startBrowserLaurel(t, { importWorker: true });

const BAD = new Map<number, string>([
  [3, "recipient_email"],
  [250, "issued_to_last_name"],
  [498, "issued_at"],
]);

t.test("template with an image, one badge by the form, 497 from a CSV", async (t) => {
  const org = await organization(laurel, "Journey Academy");
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await flows.signIn(context, "ada@example.org");
  await makeMember(laurel, org.id, "ada@example.org", "admin");

  // The template, with its image uploaded.
  await page.goto(`${laurel.origin}/console/${org.id}/templates`);
  await flows.click(page, "", "a.button:has-text('New template')");
  const bytes = png(120, 120, [200, 120, 30]);
  await page.fill("#tpl-name", "Bridge Building");
  await page.fill("#tpl-description", "Designs and load-tests a truss bridge");
  await page.selectOption("#tpl-state", "active");
  await page.setInputFiles("#tpl-image", { name: "bridge.png", mimeType: "image/png", buffer: bytes });
  await flows.click(page, "Create template");
  t.match(await page.textContent("main"), /Template created/);
  const image = (await page.getAttribute(".template-current img", "src")) ?? "";
  const sha = createHash("sha256").update(bytes).digest("hex");
  t.match(image, new RegExp(`/images/${sha}\\.png$`), "the template shows the stored image");
  const templateId = new URL(page.url()).pathname.split("/").at(-1) ?? "";

  // One badge with the form: the earner's mail arrives, and the badge's page shows the image.
  const before = smtp.mails.length;
  await page.goto(`${laurel.origin}/console/${org.id}/issue`);
  await page.selectOption("#issue-template", templateId);
  await page.fill("#issue-first", "Grace");
  await page.fill("#issue-last", "Hopper");
  await page.fill("#issue-email", "grace@example.org");
  await flows.click(page, "Issue badge");
  t.match(new URL(page.url()).pathname, new RegExp(`^/console/${org.id}/badges/[0-9a-f-]{36}$`));
  const acceptLink = await flows.mailedLink(
    "grace@example.org",
    /https?:\/\/\S+\/badges\/[0-9a-f-]{36}\/accept\?token=[A-Za-z0-9_%-]+/,
    before,
  );
  // The earner signs in and opens the mailed link: the badge's page, with the uploaded image.
  const earnerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const earner = await flows.signIn(earnerContext, "grace@example.org");
  await earner.goto(acceptLink);
  t.match(await earner.textContent("main"), "Bridge Building", "the mailed link opens the badge's page");
  const shown = await earner.$$eval("main img", (imgs) => imgs.map((i) => (i as HTMLImageElement).src));
  t.ok(
    shown.some((src) => src.endsWith(`/images/${sha}.png`)),
    `the badge's page shows the uploaded image (${shown.join(", ")})`,
  );
  await earnerContext.close();

  // 500 rows, 3 of them bad: previewed by row and column, the rest issued in the background.
  const rows = Array.from({ length: 500 }, (_, i) => {
    const row = i + 1;
    const email = BAD.get(row) === "recipient_email" ? "not-an-address" : `learner${row}@example.org`;
    const last = BAD.get(row) === "issued_to_last_name" ? "" : "Learner";
    const issuedAt = BAD.get(row) === "issued_at" ? "yesterday" : "2026-09-01T09:00:00Z";
    return `${templateId},${email},Pupil${row},${last},${issuedAt},true`;
  });
  const csv = [
    "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at,suppress_badge_notification_email",
    ...rows,
  ].join("\n");
  await page.goto(`${laurel.origin}/console/${org.id}/imports`);
  await page.selectOption("#import-template", templateId);
  await page.setInputFiles("#import-file", { name: "class.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await flows.click(page, "Check the file");
  const problems = await page.$$eval("tbody tr", (trs) =>
    trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
  );
  t.same(
    problems.map(([row, column]) => [Number(row), column]),
    [...BAD.entries()],
    "the preview names the three bad rows by row and column",
  );
  await flows.click(page, "Issue the 497 valid badges");
  await page.waitForSelector("#import-progress-text:has-text('497 issued')", { timeout: 60_000 });
  t.match(await page.textContent("#import-progress-text"), /497 issued, 0 failed, 3 invalid, of 500 rows/);

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.click("a:has-text('Download the result file')"),
  ]);
  const lines = readFileSync((await download.path()) as string, "utf8")
    .trimEnd()
    .split("\r\n");
  t.equal(lines.length, 501, "a header and a line per row");
  t.equal(lines.filter((l) => /^\d+,issued,[0-9a-f-]{36},/.test(l)).length, 497, "497 rows issued");
  t.equal(lines.filter((l) => /^\d+,invalid,/.test(l)).length, 3, "3 rows invalid");

  const events = await fetch(`${laurel.baseUrl}/organizations/${org.id}/events?filter=event_type::badge.created`, {
    headers: { authorization: org.auth },
  });
  const listed = (await events.json()) as { metadata: { total_count: number } };
  t.equal(listed.metadata.total_count, 498, "the API's events list holds 498 badge.created");
  await context.close();
});
