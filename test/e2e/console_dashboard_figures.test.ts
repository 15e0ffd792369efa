import t from "tap";
import { isoWeekOf } from "../../core/issuing/mod.ts";
import { apiClient, createTemplate, eventRows, eventually, issueBody, organization, trpc } from "../support/badges.ts";
import { look, startBrowserLaurel } from "../support/console.ts";

/**
 * The dashboard's figures and the badge table, in Chromium. Badges issued over REST and accepted
 * (tRPC) and revoked (REST) give the figures page its numbers: acceptance rate, median time to
 * accept (against the badges' own rows), per template, per ISO week, and the same in the CSV
 * download (a template named as a formula stays text). The badge list is a table sorted by its
 * column headings and shown 50 or 100 a page (anything else: a 400 page); bulk revoke on a
 * selection and on a filter, and bulk resend, each ask first and then go through the one-badge use
 * cases (their events and audit rows) plus one audit row for the bulk action. A viewer sees no bulk
 * control. Screenshots and axe on each page.
 */

const { laurel, smtp, memberPage } = await startBrowserLaurel(t);
const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.some((r) => r.includes(address)));
const api = apiClient(laurel);
const HOUR = 3_600_000;

const issue = async (org: { badges: string; auth: string }, fields: Record<string, unknown>) => {
  const res = await api("POST", org.badges, org.auth, fields);
  if (res.status !== 201) throw new Error(`issue failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string };
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

t.test("figures: acceptance, time to accept, per template and week, and their CSV", async (t) => {
  const org = await organization(laurel, "Figures Co");
  const welding = await createTemplate(laurel, org, { name: "Welding" });
  const formula = await createTemplate(laurel, org, { name: '=HYPERLINK("https://evil.example","x")' });
  const now = Date.now();
  const at = (ms: number) => new Date(now - ms).toISOString();
  const w1 = await issue(org, issueBody(welding.id, { recipient_email: "w1@example.org", issued_at: at(3 * HOUR) }));
  const w2 = await issue(org, issueBody(welding.id, { recipient_email: "w2@example.org", issued_at: at(5 * HOUR) }));
  const w3 = await issue(org, issueBody(welding.id, { recipient_email: "w3@example.org", issued_at: at(1 * HOUR) }));
  const w4 = await issue(
    org,
    issueBody(welding.id, { recipient_email: "w4@example.org", issued_at: at(10 * 24 * HOUR) }),
  );
  const f1 = await issue(org, issueBody(formula.id, { recipient_email: "f1@example.org", issued_at: at(2 * HOUR) }));
  await issue(org, issueBody(formula.id, { recipient_email: "f2@example.org", issued_at: at(30 * 24 * HOUR) }));
  for (const b of [w1, w2, w3, f1]) await trpc(laurel, "badges.accept", { badge_id: b.id });
  const revoked = await api("PUT", `${org.badges}/${w4.id}/revoke`, org.auth, { reason: "Issued by mistake" });
  t.equal(revoked.status, 200);

  // The expected figures, from the badges' own rows.
  const rows = await laurel.db.all<{ id: string; template: string; state: string; issued_at: Date; changed: Date }>(
    `select id, badge_template_id as template, state, issued_at, state_updated_at as changed
     from badges where organization_id = ?`,
    [org.id],
  );
  const spans = (template?: string) =>
    rows
      .filter((b) => b.state === "accepted" && (!template || b.template === template))
      .map((b) => Math.max(0, (new Date(b.changed).getTime() - new Date(b.issued_at).getTime()) / 1000));
  const hours = (template?: string) => (median(spans(template)) / 3600).toFixed(2);

  const page = await memberPage(org.id, "figures-owner@example.org", "owner");
  await page.goto(`${laurel.origin}/console/${org.id}`);
  t.equal(
    (await page.textContent("[data-count=rate] .count-n"))?.trim(),
    "66.7%",
    "the dashboard's acceptance rate, from its counters",
  );
  await look(t, page, "dashboard-figures-link");
  await page.click("a:has-text('Figures: acceptance rate')");
  await page.waitForSelector("h1:has-text('Figures')");
  const figure = async (key: string) => (await page.textContent(`[data-figure=${key}] .count-n`))?.trim();
  t.equal(await figure("rate"), "66.7%", "4 accepted of 6 issued");
  t.equal(await figure("issued"), "6");
  t.equal(await figure("accepted"), "4");
  t.equal(await figure("pending"), "1");
  t.equal(await figure("revoked"), "1");
  const medianHours = Number(hours());
  t.ok(medianHours > 2.4 && medianHours < 2.7, `the median is between 2 h and 3 h (${medianHours})`);
  t.match(await figure("median"), /^2\u00a0h (2\d|3\d)\u00a0min$/, "the median in words");

  const cells = async (selector: string) =>
    page.$$eval(`${selector} td`, (tds) => tds.map((td) => (td.textContent ?? "").trim()));
  t.same((await cells(`tr[data-template="${welding.id}"]`)).slice(0, 5), ["4", "3", "0", "1", "75.0%"], "Welding");
  t.same((await cells(`tr[data-template="${formula.id}"]`)).slice(0, 5), ["2", "1", "1", "0", "50.0%"], "the other");
  t.match(
    await page.textContent(`tr[data-template="${formula.id}"] th`),
    '=HYPERLINK("https://evil.example","x")',
    "the name is shown as typed",
  );

  // Per ISO week of issue: each week's row counts the badges issued in it.
  const weeks = new Map<string, { issued: number; accepted: number; pending: number; revoked: number }>();
  for (const b of rows) {
    const week = isoWeekOf(new Date(b.issued_at));
    const w = weeks.get(week) ?? { issued: 0, accepted: 0, pending: 0, revoked: 0 };
    w.issued++;
    if (b.state === "accepted" || b.state === "pending" || b.state === "revoked") w[b.state]++;
    weeks.set(week, w);
  }
  t.equal(await page.locator("tr[data-week]").count(), 12, "twelve weeks");
  t.equal(
    await page.getAttribute("tr[data-week]:last-child", "data-week"),
    isoWeekOf(new Date()),
    "the current week last",
  );
  for (const [week, w] of weeks) {
    t.same(
      (await cells(`tr[data-week="${week}"]`)).slice(0, 4),
      [w.issued, w.accepted, w.pending, w.revoked].map(String),
      `week ${week}`,
    );
  }
  await look(t, page, "figures");

  // The CSV: a download with a filename, the same figures, formula cells neutralized.
  const download = await page.evaluate(async (url) => {
    const res = await fetch(url);
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      disposition: res.headers.get("content-disposition"),
      text: await res.text(),
    };
  }, `${laurel.origin}/console/${org.id}/figures.csv`);
  t.equal(download.status, 200);
  t.equal(download.type, "text/csv; charset=utf-8");
  t.match(
    download.disposition,
    /^attachment; filename="laurel-figures-figures-co-\d{4}-\d{2}-\d{2}-\d{4}-W\d{2}\.csv"$/,
  );
  const lines = download.text.split("\r\n");
  t.equal(
    lines[0],
    "period,template_id,template,issued,accepted,pending,revoked,rejected,replaced,acceptance_rate,median_hours_to_accept",
  );
  t.equal(lines[1], `all,,all templates,6,4,1,1,0,0,66.7%,${hours()}`, "all time, all templates");
  t.ok(lines.includes(`all,${welding.id},Welding,4,3,0,1,0,0,75.0%,${hours(welding.id)}`), "all time, Welding");
  t.ok(
    lines.includes(
      `all,${formula.id},"'=HYPERLINK(""https://evil.example"",""x"")",2,1,1,0,0,0,50.0%,${hours(formula.id)}`,
    ),
    "the formula's name is text to a spreadsheet",
  );
  t.notOk(
    lines.some((l) => /(^|,)"?[=+@]/.test(l)),
    "no cell starts with = + or @",
  );
  const current = isoWeekOf(new Date());
  const w = weeks.get(current);
  if (w) {
    t.ok(
      lines.some((l) => l.startsWith(`${current},,all templates,${w.issued},${w.accepted},${w.pending},${w.revoked},`)),
      "the current week's total",
    );
  }
  t.equal(lines.filter((l) => /^\d{4}-W\d{2},,all templates,/.test(l)).length, 12, "a total for each of 12 weeks");

  // A phone's width.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  t.ok(
    await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
    "the figures page does not widen a phone's screen",
  );
  await page.context().close();
});

t.test("the badge table: sorting, 50 or 100 a page, bulk revoke and resend", async (t) => {
  const org = await organization(laurel, "Bulk Co");
  const main = await createTemplate(laurel, org, { name: "Forklift" });
  const other = await createTemplate(laurel, org, { name: "Crane" });
  const names = Array.from({ length: 60 }, (_, i) => `Worker${String(i).padStart(2, "0")}`);
  const batch = await api("POST", `${org.badges}/batch`, org.auth, {
    badges: names.map((last, i) =>
      issueBody(main.id, {
        issued_to_last_name: last,
        recipient_email: `${last.toLowerCase()}@example.org`,
        issued_at: new Date(Date.UTC(2026, 0, 1) + i * HOUR).toISOString(),
        suppress_badge_notification_email: true,
      }),
    ),
  });
  t.equal(batch.status, 201);
  t.equal(batch.body.metadata.issued_count, 60);
  const crane = [];
  for (const i of [1, 2, 3]) {
    crane.push(
      await issue(
        org,
        issueBody(other.id, {
          issued_to_last_name: `Crane${i}`,
          recipient_email: `crane${i}@example.org`,
          suppress_badge_notification_email: true,
        }),
      ),
    );
  }

  const page = await memberPage(org.id, "bulk-owner@example.org", "owner");
  const base = `${laurel.origin}/console/${org.id}/badges`;
  await page.goto(base);
  t.equal(await page.locator(".badge-table tbody tr").count(), 50, "50 a page by default");
  t.match(await page.textContent("[role=status]"), /63 badges, page 1 of 2/);
  await look(t, page, "badge-table");
  await page.selectOption("#f-per", "100");
  await page.click("button:has-text('Show badges')");
  await page.waitForURL(/per=100/);
  t.equal(await page.locator(".badge-table tbody tr").count(), 63, "100 a page when asked");

  // Sorting by a column heading: last name A to Z, then Z to A.
  await page.click(".badge-table th a:has-text('Recipient')");
  await page.waitForURL(/sort=issued_to_last_name/);
  t.equal(await page.getAttribute(".badge-table th[aria-sort]", "aria-sort"), "ascending");
  t.match(page.url(), /per=100/, "the page size is kept");
  const lastNames = async () =>
    page.$$eval(".badge-table tbody tr td:nth-child(2) a", (as) =>
      as.map((a) => (a.textContent ?? "").trim().split(" ").at(-1)),
    );
  const ascending = await lastNames();
  t.same(ascending.slice(0, 4), ["Crane1", "Crane2", "Crane3", "Worker00"], "A to Z");
  await page.click(".badge-table th a:has-text('Recipient')");
  await page.waitForURL(/sort=-issued_to_last_name/);
  t.equal(await page.getAttribute(".badge-table th[aria-sort]", "aria-sort"), "descending");
  t.same((await lastNames()).slice(0, 2), ["Worker59", "Worker58"], "Z to A");
  await page.click(".badge-table th a:has-text('Issued')");
  await page.waitForURL((u) => !u.search.includes("sort="));
  t.equal(await page.getAttribute(".badge-table th[aria-sort]", "aria-sort"), "descending", "newest issued first");

  // Bad values: a 400 page saying why, never a 500.
  for (const query of ["per=25", "per=abc", "sort=-recipient_email", "sort=%3Cb%3E"]) {
    const answer = await page.goto(`${base}?${query}`);
    t.equal(answer?.status(), 400, `${query}: 400`);
    t.ok(await page.isVisible(".status.bad"), `${query}: the reason is shown`);
  }
  await page.goto(`${base}?per=25`);
  t.match(await page.textContent(".status.bad"), /page size/i);
  await look(t, page, "badge-table-refused");

  // Bulk revoke on a selection: asked first, then each badge revoked, one bulk row in the audit.
  await page.goto(`${base}?sort=issued_to_last_name`);
  const picked = (await page.$$eval(".badge-table tbody tr", (trs) => trs.map((tr) => tr.getAttribute("data-badge"))))
    .slice(3, 5)
    .filter((id): id is string => id !== null);
  for (const id of picked) await page.check(`tr[data-badge="${id}"] input[name=id]`);
  await page.click("button:has-text('Revoke…')");
  t.match(await page.textContent("h1"), /Nothing was changed/, "no reason: nothing is done");
  t.match(await page.textContent(".status.bad"), /reason/);
  await page.goBack();
  for (const id of picked) await page.check(`tr[data-badge="${id}"] input[name=id]`);
  await page.fill("#bulk-reason", "Course withdrawn");
  await page.click("button:has-text('Revoke…')");
  t.match(await page.textContent("h1"), /Revoke 2 badges\?/, "asked first");
  t.match(await page.textContent("main"), /the badges you selected/);
  await look(t, page, "bulk-revoke-confirm");
  await page.click("button:has-text('Revoke 2 badges')");
  await page.waitForURL(/bulk=revoke/);
  t.match(page.url(), /sort=issued_to_last_name/, "back to the table's order");
  t.match(await page.textContent(".notice"), /Revoked 2 badges\./, "the result, after a redirect");
  await look(t, page, "bulk-revoke-done");
  const states = await laurel.db.all<{ id: string; state: string; revocation_reason: string }>(
    "select id, state, revocation_reason from badges where id in (?, ?)",
    picked,
  );
  t.same(
    states.map((s) => [s.state, s.revocation_reason]),
    [
      ["revoked", "Course withdrawn"],
      ["revoked", "Course withdrawn"],
    ],
  );
  const revokedEvents = (await eventRows(laurel, org.id, "badge.state.changed")).filter(
    (e) => e.detail.badge.state === "revoked",
  );
  t.same(
    revokedEvents.map((e) => e.detail.badge.id).sort(),
    [...picked].sort(),
    "a badge.state.changed event for each badge",
  );
  const audit = async (action: string) =>
    (
      await laurel.db.all<{ target: string | null; details: unknown; actor_kind: string }>(
        "select target, details, actor_kind from audit_log where organization_id = ? and action = ? order by occurred_at, id",
        [org.id, action],
      )
    ).map((r) => ({ ...r, details: typeof r.details === "string" ? JSON.parse(r.details) : r.details }));
  t.equal((await audit("badge.revoked")).length, 2, "an audit row for each badge");
  const bulkRows = await audit("badges.bulk_revoked");
  t.equal(bulkRows.length, 1, "and one for the bulk action");
  t.match(bulkRows[0], {
    target: null,
    actor_kind: "member",
    details: { selection: 2, asked: 2, done: 2, skipped: 0, reason: "Course withdrawn" },
  });

  // Bulk revoke on a filter: every Crane badge; the confirmation says how many and the limit.
  await page.goto(`${base}?badge_template_id=${other.id}`);
  t.equal(await page.locator(".badge-table tbody tr").count(), 3);
  await page.check("input[name=scope][value=filter]");
  await page.fill("#bulk-reason", "Crane course retired");
  await page.click("button:has-text('Revoke…')");
  t.match(await page.textContent("h1"), /Revoke 3 badges\?/);
  t.match(await page.textContent("main"), /the badges matching template “Crane”: 3 badges, counted now/);
  t.match(await page.textContent("main"), /at most 10,000 badges; these are all of them/, "the bound, said");
  await look(t, page, "bulk-revoke-filter-confirm");
  await page.click("button:has-text('Revoke 3 badges')");
  await page.waitForURL(/bulk=revoke/);
  t.match(await page.textContent(".notice"), /Revoked 3 badges\./);
  t.match(page.url(), new RegExp(`badge_template_id=${other.id}`), "back to the filtered list");
  const craneStates = await laurel.db.all<{ state: string }>("select state from badges where badge_template_id = ?", [
    other.id,
  ]);
  t.same(
    craneStates.map((s) => s.state),
    ["revoked", "revoked", "revoked"],
  );
  const filterRow = (await audit("badges.bulk_revoked"))[1];
  t.match(filterRow, { details: { filter: { badge_template_id: other.id }, asked: 3, done: 3, skipped: 0 } });

  // The same filter again: the revoked badges are passed over, and the page says so.
  await page.goto(`${base}?badge_template_id=${other.id}`);
  await page.check("input[name=scope][value=filter]");
  await page.fill("#bulk-reason", "Again");
  await page.click("button:has-text('Revoke…')");
  await page.click("button:has-text('Revoke 3 badges')");
  await page.waitForURL(/bulk=revoke/);
  t.match(await page.textContent(".notice"), /Revoked 0 badges\. 3 badges were passed over/);

  // Bulk resend on a selection of pending badges (and one revoked, passed over).
  await page.goto(`${base}?sort=issued_to_last_name`);
  const resend = (await page.$$eval(".badge-table tbody tr", (trs) => trs.map((tr) => tr.getAttribute("data-badge"))))
    .slice(3, 8)
    .filter((id): id is string => id !== null);
  for (const id of resend) await page.check(`tr[data-badge="${id}"] input[name=id]`);
  await page.click("button:has-text('Resend notifications…')");
  t.match(await page.textContent("h1"), /Resend the notification of 5 badges\?/);
  await look(t, page, "bulk-resend-confirm");
  await page.click("button:has-text('Resend 5 badges')");
  await page.waitForURL(/bulk=resend/);
  t.match(
    await page.textContent(".notice"),
    /Notifications queued for 3 badges\. 2 badges were passed over: only pending badges are notified\./,
  );
  t.equal((await audit("badge.notification_resent")).length, 3, "an audit row for each badge notified");
  t.match((await audit("badges.bulk_notifications_resent"))[0], {
    details: { selection: 5, asked: 5, done: 3, skipped: 2, not_sent_budget_spent: 0 },
  });
  // Issued without a mail, notified now: one mail to each pending recipient, none to the revoked.
  for (const who of ["worker02", "worker03", "worker04"]) {
    await eventually(async () => (mailsTo(`${who}@example.org`).length === 1 ? true : undefined), 10_000);
  }
  t.equal(
    mailsTo("worker00@example.org").length + mailsTo("worker01@example.org").length,
    0,
    "none to a revoked badge",
  );

  // Nothing selected: nothing done.
  await page.goto(base);
  await page.click("button:has-text('Resend notifications…')");
  t.match(await page.textContent(".status.bad"), /Select at least one badge/);

  // A phone's width.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}?sort=issued_to_last_name`);
  await look(t, page, "badge-table-phone");
  await page.context().close();

  // A viewer sees the table and no bulk control.
  const viewer = await memberPage(org.id, "bulk-viewer@example.org", "viewer");
  await viewer.goto(base);
  t.equal(await viewer.locator(".badge-table tbody tr").count(), 50);
  t.equal(await viewer.locator("input[name=id]").count(), 0, "no checkbox");
  t.equal(await viewer.locator("button:has-text('Revoke…')").count(), 0, "no revoke");
  t.equal(await viewer.locator("button:has-text('Resend notifications…')").count(), 0, "no resend");
  await look(t, viewer, "badge-table-viewer");
  await viewer.context().close();
});
