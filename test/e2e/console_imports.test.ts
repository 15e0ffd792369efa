import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import t, { type Test } from "tap";
import { createTemplate, organization } from "../support/badges.ts";
import { look as lookAs, makeMember, startBrowserLaurel } from "../support/console.ts";
import { startWorkerBeside } from "../support/processes.ts";

/**
 * CSV imports in the console, in Chromium: an issuer uploads 500 rows with 3 bad ones, sees the
 * three by row and column before anything is issued, issues the rest and closes the page; a new
 * page's progress bar follows live to 497 while a worker process started then issues them; the result file downloads, and the API's events list holds 497 `badge.created`. An owner
 * imports employee records the same way. HTML in names stays text; axe and screenshots on each page.
 */

const HOSTILE = '<img src=x onerror="alert(1)">';

const { laurel, smtp, browser, flows, memberPage } = await startBrowserLaurel(t);

const look = (t: Test, page: Page, name: string) => lookAs(t, page, name, "console-imports");

const BAD = new Map<number, string>([
  [7, "recipient_email"],
  [250, "issued_to_last_name"],
  [499, "badge_template_id"],
]);

t.test("an issuer imports 500 rows with 3 bad ones; the rest are issued in the background", async (t) => {
  const org = await organization(laurel, "Imports Org");
  const template = (await createTemplate(laurel, org)).id;
  const rows = Array.from({ length: 500 }, (_, i) => {
    const row = i + 1;
    const email = BAD.get(row) === "recipient_email" ? "not-an-address" : `learner${row}@example.org`;
    const last = BAD.get(row) === "issued_to_last_name" ? "" : "Learner";
    const id = BAD.get(row) === "badge_template_id" ? "not-a-template" : template;
    const first = row === 1 ? `"${HOSTILE.replaceAll('"', '""')}"` : `Pupil${row}`;
    return `${id},${email},${first},${last},2024-09-01T09:00:00Z,true`;
  });
  const csv = [
    "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at,suppress_badge_notification_email",
    ...rows,
  ].join("\n");

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const dialogs: string[] = [];
  const page = await flows.signIn(context, "issuer@example.org");
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await makeMember(laurel, org.id, "issuer@example.org", "issuer");
  await page.goto(`${laurel.origin}/console/${org.id}`);
  await flows.click(page, "", "a.console-link:has-text('Imports')");
  t.equal(new URL(page.url()).pathname, `/console/${org.id}/imports`);
  t.match(await page.textContent("main"), /badge_template_id/, "the page names the columns");
  t.equal(await page.locator("select#import-kind").count(), 0, "an issuer imports badges only");
  const example = await fetch(`${laurel.origin}${await page.getAttribute("a[download][href$='badges.csv']", "href")}`, {
    headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
  });
  t.equal(example.status, 200);
  t.match(await example.text(), /^badge_template_id,recipient_email,/, "an example file to download");
  await look(t, page, "upload");

  await page.setInputFiles("#import-file", {
    name: `${HOSTILE}.csv`,
    mimeType: "text/csv",
    buffer: Buffer.from(csv),
  });
  await flows.click(page, "Check the file");
  const importUrl = page.url();
  t.match(new URL(importUrl).pathname, new RegExp(`^/console/${org.id}/imports/[0-9a-f-]{36}$`));
  const problems = await page.$$eval("tbody tr", (trs) =>
    trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
  );
  t.same(
    problems.map(([row, column]) => [Number(row), column]),
    [...BAD.entries()],
    "the preview names the three bad rows by row and column",
  );
  t.match(await page.textContent("h1"), HOSTILE, "the file's name is shown as text");
  t.equal(await page.locator("main img").count(), 0, "and makes no element");
  const [before] = await laurel.db.all<{ n: number }>(
    "select count(*)::int as n from badges where organization_id = ?",
    [org.id],
  );
  t.equal(before?.n, 0, "nothing issued before the button");
  await look(t, page, "preview");

  await flows.click(page, "Issue the 497 valid badges");
  t.match(await page.textContent("main"), /Started/);
  t.equal(await page.getAttribute("progress", "max"), "500");
  const html = await (
    await fetch(importUrl, {
      headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
    })
  ).text();
  t.match(
    html,
    /<noscript><meta http-equiv="refresh" content="3"\/?><\/noscript>/,
    "without scripts, it reloads itself",
  );
  await look(t, page, "running");
  // The page may close: the import does not depend on it.
  await page.close();

  const again = await context.newPage();
  again.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const polls: string[] = [];
  again.on("request", (r) => {
    if (r.url().endsWith("/status")) polls.push(r.url());
  });
  await again.goto(importUrl);
  // The bar follows the status while the worker starts and issues.
  const worker = await startWorkerBeside(laurel, { SMTP_URL: smtp.url });
  t.teardown(() => worker.stop());

  await again.waitForSelector("#import-progress-text:has-text('497 issued')", { timeout: 60_000 });
  await again.waitForSelector(".facts dd:has-text('Finished')", { timeout: 10_000 });
  t.match(await again.textContent("#import-progress-text"), /497 issued, 0 failed, 3 invalid, of 500 rows/);
  t.equal(await again.getAttribute("progress", "value"), "500", "the bar is full");
  await look(t, again, "finished");

  const [download] = await Promise.all([
    again.waitForEvent("download"),
    again.click("a:has-text('Download the result file')"),
  ]);
  const lines = readFileSync((await download.path()) as string, "utf8")
    .trimEnd()
    .split("\r\n");
  t.equal(lines[0], "row,status,id,key,errors");
  t.equal(lines.length, 501);
  t.equal(lines.filter((l) => /^\d+,issued,[0-9a-f-]{36},/.test(l)).length, 497, "497 rows issued");
  t.match(lines[7], /^7,invalid,,not-an-address,/);

  const events = await fetch(`${laurel.baseUrl}/organizations/${org.id}/events?filter=event_type::badge.created`, {
    headers: { authorization: org.auth },
  });
  t.equal(((await events.json()) as { metadata: { total_count: number } }).metadata.total_count, 497);
  const [first] = await laurel.db.all<{ issued_to_first_name: string }>(
    "select issued_to_first_name from badges where recipient_email = 'learner1@example.org'",
  );
  t.equal(first?.issued_to_first_name, HOSTILE, "the hostile name is stored as text");
  await again.goto(`${laurel.origin}/console/${org.id}/imports`);
  t.match(await again.textContent("main"), HOSTILE, "the list shows the name as text");
  await look(t, again, "list");
  // The same file again: said so on the check, above the button, before anything is issued.
  await again.setInputFiles("#import-file", { name: "again.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await flows.click(again, "Check the file");
  t.match(await again.textContent("[role=alert]"), /same file as an import uploaded/, "a repeated file is named");
  t.match(await again.textContent("[role=alert]"), /same badges twice/);
  const [after] = await laurel.db.all<{ n: number }>(
    "select count(*)::int as n from badges where organization_id = ?",
    [org.id],
  );
  t.equal(after?.n, 497, "nothing more issued");
  await look(t, again, "repeated");
  t.same(dialogs, [], "no script ran from the file's content");
  t.ok(polls.length > 0, "the progress bar followed the status without reloading the page");
  await context.close();

  t.test("an owner imports employee records through the console", async (t) => {
    const owner = await memberPage(org.id, "owner@example.org", "owner");
    await owner.goto(`${laurel.origin}/console/${org.id}/imports`);
    await owner.selectOption("#import-kind", "employees");
    await owner.setInputFiles("#import-file", {
      name: "people.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(
        [
          "external_id,email,first_name,last_name,department",
          ...Array.from({ length: 20 }, (_, i) => `P${i},p${i}@example.org,Person,${i},Research`),
          "P99,broken,Bad,Row,",
        ].join("\n"),
      ),
    });
    await flows.click(owner, "Check the file");
    t.same(await owner.$$eval("tbody tr td:nth-child(-n+2)", (tds) => tds.map((td) => td.textContent?.trim())), [
      "21",
      "email",
    ]);
    await flows.click(owner, "Write the 20 valid records");
    await owner.waitForSelector(".facts dd:has-text('Finished')", { timeout: 60_000 });
    t.match(await owner.textContent("#import-progress-text"), /20 written, 0 failed, 1 invalid/);
    const [n] = await laurel.db.all<{ n: number }>(
      "select count(*)::int as n from events where organization_id = ? and event_type = 'employment.created'",
      [org.id],
    );
    t.equal(n?.n, 20);
    const [audit] = await laurel.db.all<{ n: number }>(
      "select count(*)::int as n from audit_log where organization_id = ? and action = 'import.started'",
      [org.id],
    );
    t.equal(audit?.n, 2, "both imports' starts are in the audit log");
    await owner.context().close();
  });
});
