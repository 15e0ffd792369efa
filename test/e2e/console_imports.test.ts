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

// A notification budget the 200-row cohort exceeds, so its check says so.
const { laurel, smtp, browser, flows, memberPage } = await startBrowserLaurel(t, {
  env: { MAIL_PER_ORGANIZATION_PER_HOUR: "150" },
});

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
  t.equal(await page.locator("#employee-file").count(), 0, "an issuer imports badges only");
  const example = await fetch(`${laurel.origin}${await page.getAttribute("a[download][href$='badges.csv']", "href")}`, {
    headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
  });
  t.equal(example.status, 200);
  t.match(await example.text(), /^recipient_email,/, "an example file of recipients to download");
  await look(t, page, "upload");

  await page.selectOption("#import-template", "per-row");
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
  // The same file again: said so on the check, and every row issued is found held, before anything is issued.
  await again.selectOption("#import-template", "per-row");
  await again.setInputFiles("#import-file", { name: "again.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await flows.click(again, "Check the file");
  t.match(await again.textContent("[role=alert]"), /same file as an import uploaded/, "a repeated file is named");
  t.match(await again.textContent(".facts"), /500 rows: 0 valid, 500 with problems/, "the check tells the truth");
  t.match(await again.textContent("main"), /No row can be issued/);
  t.equal(await again.locator("button:has-text('Issue the')").count(), 0, "nothing to issue");
  t.equal(
    await again.locator("tbody tr td:has-text('User already has this badge')").count(),
    497,
    "each row issued before is named",
  );
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
    await owner.setInputFiles("#employee-file", {
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
    await flows.click(owner, "Check the employee file");
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

/** A cookie header carrying the page's session, for a fetch beside the browser. */
const cookieOf = async (page: Page): Promise<string> =>
  (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");

t.test("the template page shows its id to copy and leads to a CSV import of its badge", async (t) => {
  const org = await organization(laurel, "Picker Org");
  const template = await createTemplate(laurel, org, { name: "Data Analysis" });
  await createTemplate(laurel, org, { name: "Rust" });
  await createTemplate(laurel, org, { name: "Unpublished", state: "draft" });
  const owner = await memberPage(org.id, "picker-owner@example.org", "owner");
  await owner.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: laurel.origin });
  await owner.goto(`${laurel.origin}/console/${org.id}/templates/${template.id}`);
  t.equal((await owner.textContent("#tpl-id"))?.trim(), template.id, "the id is on the page as text");
  await owner.click("button[data-copy='tpl-id']");
  await owner.waitForSelector("button[data-copy='tpl-id']:has-text('Copied')");
  t.equal(await owner.evaluate(() => navigator.clipboard.readText()), template.id, "the button copies it");
  await look(t, owner, "template-id");

  const noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  await noScript.addCookies(await owner.context().cookies());
  const plain = await noScript.newPage();
  await plain.goto(owner.url());
  t.equal((await plain.textContent("#tpl-id"))?.trim(), template.id, "without scripts the id is still there");
  t.notOk(await plain.isVisible("button[data-copy='tpl-id']"), "and no button that would do nothing");
  await noScript.close();

  await flows.click(owner, "", "a:has-text('Issue from a CSV file')");
  t.equal(new URL(owner.url()).pathname, `/console/${org.id}/imports`);
  t.equal(await owner.inputValue("#import-template"), template.id, "the picker has the template chosen");
  t.same(
    await owner.$$eval("#import-template option", (os) => os.map((o) => o.textContent?.trim())),
    ["Choose a badge template", "Data Analysis", "Rust", "None: each row names its own in a badge_template_id column"],
    "the organization's active templates, by name",
  );
  await look(t, owner, "picker");
  await owner.context().close();
});

t.test("the example file: checked without a template, then with one; the import matches the check", async (t) => {
  const org = await organization(laurel, "Example Org");
  const template = await createTemplate(laurel, org, { name: "First Aid" });
  const issuer = await memberPage(org.id, "example-issuer@example.org", "issuer");
  await issuer.goto(`${laurel.origin}/console/${org.id}/imports`);
  const [download] = await Promise.all([
    issuer.waitForEvent("download"),
    issuer.click("a:has-text('Download an example file')"),
  ]);
  const exampleFile = {
    name: download.suggestedFilename(),
    mimeType: "text/csv",
    buffer: readFileSync((await download.path()) as string),
  };
  t.equal(exampleFile.name, "laurel-badges-example.csv");
  t.match(exampleFile.buffer.toString("utf8"), /^recipient_email,issued_to_first_name,/, "recipients only");

  // A template must be chosen: the form says so before anything is sent.
  await issuer.setInputFiles("#import-file", exampleFile);
  await issuer.click("button:has-text('Check the file')");
  t.equal(
    await issuer.$eval("#import-template", (s) => (s as HTMLSelectElement).validity.valueMissing),
    true,
    "the picker asks for a template",
  );
  t.equal(new URL(issuer.url()).pathname, `/console/${org.id}/imports`, "and the form is not sent");
  // Told that each row names its own, the check says every row lacks one rather than "valid".
  await issuer.selectOption("#import-template", "per-row");
  await flows.click(issuer, "Check the file");
  t.match(await issuer.textContent(".facts"), /2 rows: 0 valid, 2 with problems/);
  t.same(await issuer.$$eval("tbody tr", (trs) => trs.map((tr) => tr.querySelector("td:nth-child(2)")?.textContent)), [
    "badge_template_id",
    "badge_template_id",
  ]);
  t.match(await issuer.textContent("tbody"), /choose a template for the file/);
  await look(t, issuer, "example-no-template");

  await issuer.goto(`${laurel.origin}/console/${org.id}/imports`);
  await issuer.selectOption("#import-template", { label: "First Aid" });
  await issuer.setInputFiles("#import-file", exampleFile);
  await flows.click(issuer, "Check the file");
  t.match(await issuer.textContent(".facts"), /2 rows: 2 valid, 0 with problems/, "the check: 2 valid");
  t.notMatch(await issuer.textContent("main"), /notify their recipients/, "within the mail budget, nothing to say");
  t.match(await issuer.textContent(".facts"), /Badge\s*First Aid/, "of the template chosen");
  await look(t, issuer, "example-checked");
  await flows.click(issuer, "Issue the 2 valid badges");
  const worker = await startWorkerBeside(laurel, { SMTP_URL: smtp.url });
  t.teardown(() => worker.stop());
  await issuer.waitForSelector(".facts dd:has-text('Finished')", { timeout: 60_000 });
  t.match(await issuer.textContent("#import-progress-text"), /2 issued, 0 failed, 0 invalid, of 2 rows/, "as checked");
  const issued = await laurel.db.all<{ recipient_email: string }>(
    "select recipient_email from badges where badge_template_id = ? order by recipient_email",
    [template.id],
  );
  t.same(
    issued.map((b) => b.recipient_email),
    ["ada@example.org", "grace@example.org"],
  );
  await look(t, issuer, "example-finished");

  // The same file again: the check finds both already hold the badge.
  await issuer.goto(`${laurel.origin}/console/${org.id}/imports`);
  await issuer.selectOption("#import-template", { label: "First Aid" });
  await issuer.setInputFiles("#import-file", exampleFile);
  await flows.click(issuer, "Check the file");
  t.match(await issuer.textContent(".facts"), /2 rows: 0 valid, 2 with problems/, "the re-upload is not called valid");
  t.same(await issuer.$$eval("tbody tr td:nth-child(3)", (tds) => tds.map((td) => td.textContent?.trim())), [
    "User already has this badge",
    "User already has this badge",
  ]);
  t.same(
    await issuer.$$eval("tbody tr td:nth-child(4)", (tds) => tds.map((td) => td.textContent?.trim())),
    ["ada@example.org", "grace@example.org"],
    "each problem names its recipient",
  );
  t.equal(await issuer.locator("button:has-text('Issue the')").count(), 0);
  await look(t, issuer, "example-again");
  await issuer.context().close();
});

t.test("200 recipients for a chosen template; the same file again checks as 200 already held", async (t) => {
  const org = await organization(laurel, "Cohort Org");
  await createTemplate(laurel, org, { name: "Cohort 2026" });
  const issuer = await memberPage(org.id, "cohort-issuer@example.org", "issuer");
  const csv = [
    "recipient_email,issued_to_first_name,issued_to_last_name,issued_at",
    ...Array.from({ length: 200 }, (_, i) => `person${i}@example.org,Person,${i},2026-06-01T09:00:00Z`),
    "person7@example.org,Person,Again,2026-06-01T09:00:00Z",
  ].join("\n");
  const upload = async () => {
    await issuer.goto(`${laurel.origin}/console/${org.id}/imports`);
    await issuer.selectOption("#import-template", { label: "Cohort 2026" });
    await issuer.setInputFiles("#import-file", { name: "cohort.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await flows.click(issuer, "Check the file");
  };
  await upload();
  t.match(await issuer.textContent(".facts"), /201 rows: 200 valid, 1 with problems/);
  t.match(await issuer.textContent("tbody"), /is also on row 8 for this template/, "a person twice in the file");
  t.match(
    await issuer.textContent("main"),
    /200 of these badges notify their recipients by mail, and this organization sends at most 150 notifications an hour: at least 50 would be issued without their mail/,
    "the organization's mail budget is said before anything is issued",
  );
  await look(t, issuer, "cohort-checked");
  await flows.click(issuer, "Issue the 200 valid badges");
  const worker = await startWorkerBeside(laurel, { SMTP_URL: smtp.url });
  t.teardown(() => worker.stop());
  await issuer.waitForSelector(".facts dd:has-text('Finished')", { timeout: 60_000 });
  t.match(await issuer.textContent("#import-progress-text"), /200 issued, 0 failed, 1 invalid/);

  await upload();
  t.match(await issuer.textContent(".facts"), /201 rows: 0 valid, 201 with problems/, "nothing is called valid");
  t.match(await issuer.textContent("[role=alert]"), /same file as an import uploaded/);
  t.equal(await issuer.locator("tbody td:has-text('User already has this badge')").count(), 201);
  const [status] = await Promise.all([
    fetch(`${issuer.url().split("?")[0]}/status`, { headers: { cookie: await cookieOf(issuer) } }).then((r) =>
      r.json(),
    ),
  ]);
  t.match(status, { state: "ready", invalid: 201 });
  await look(t, issuer, "cohort-again");
  await issuer.context().close();
});

t.test("a spreadsheet's file: semicolons and Windows-1252, read and said so", async (t) => {
  const org = await organization(laurel, "Tabellen GmbH");
  await createTemplate(laurel, org, { name: "Schweißen" });
  const issuer = await memberPage(org.id, "tabellen-issuer@example.org", "issuer");
  // What Excel on a German Windows saves as "CSV": semicolons, Windows-1252, CRLF.
  const text = [
    "recipient_email;issued_to_first_name;issued_to_last_name;issued_at;suppress_badge_notification_email",
    "jurgen@example.org;Jürgen;Größe;2026-06-01T09:00:00Z;true",
    'zoe@example.org;"Zoë; die Zweite";Müller;2026-06-01T09:00:00Z;true',
  ].join("\r\n");
  await issuer.goto(`${laurel.origin}/console/${org.id}/imports`);
  t.match(await issuer.textContent("main"), /UTF-8 or Windows-1252 text, separated by commas, semicolons or tabs/);
  // A tab-separated file with a column this import has not: refused, the column named in words.
  await issuer.selectOption("#import-template", { label: "Schweißen" });
  await issuer.setInputFiles("#import-file", {
    name: "tabs.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(
      "recipient_email\tissued_to_first_name\tissued_to_last_name\tissued_at\tshoe_size\na@example.org\tA\tB\t2026-06-01T09:00:00Z\t44\n",
    ),
  });
  await flows.click(issuer, "Check the file");
  t.match(await issuer.textContent("[role=alert]"), /header row does not name this import's columns/);
  t.equal(
    await issuer.textContent("main ul.small li"),
    "shoe_size is not a column of this import.",
    "the column by its name",
  );
  await look(t, issuer, "refused-column");
  await issuer.selectOption("#import-template", { label: "Schweißen" });
  await issuer.setInputFiles("#import-file", {
    name: "kohorte.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(text, "latin1"),
  });
  await flows.click(issuer, "Check the file");
  t.match(
    await issuer.textContent("#import-reading"),
    /read as Windows-1252 text \(as Excel saves it on Windows\), turned into UTF-8, with semicolons between the columns/,
    "the page says how the file was read",
  );
  t.match(await issuer.textContent(".facts"), /2 rows: 2 valid, 0 with problems/);
  await look(t, issuer, "windows-1252");
  await flows.click(issuer, "Issue the 2 valid badges");
  const worker = await startWorkerBeside(laurel);
  t.teardown(() => worker.stop());
  await issuer.waitForSelector(".facts dd:has-text('Finished')", { timeout: 60_000 });
  const names = await laurel.db.all<{ issued_to_first_name: string; issued_to_last_name: string }>(
    "select issued_to_first_name, issued_to_last_name from badges where organization_id = ? order by recipient_email",
    [org.id],
  );
  t.same(
    names.map((n) => `${n.issued_to_first_name} ${n.issued_to_last_name}`),
    ["Jürgen Größe", "Zoë; die Zweite Müller"],
    "the names as typed in the spreadsheet",
  );
  await issuer.context().close();
});
