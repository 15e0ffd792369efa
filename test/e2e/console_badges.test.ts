import t from "tap";
import { migratePostgres } from "../../adapters/db/migrate.ts";
import { apiClient, createTemplate, eventually, organization, trpc } from "../support/badges.ts";
import { look, signedInMember, startBrowserLaurel } from "../support/console.ts";

/**
 * Issuing and badges in the console, in Chromium: an issuer issues one badge with the form (a
 * refused form keeps what was typed and says why beside the field), the earner's mail arrives,
 * the badge is found in the list with a filter, its page resends the notification (a second mail)
 * and revokes it with a reason (the API shows it revoked); the audit log names the member. A
 * viewer sees no control that changes a badge. The dashboard's counts and weeks equal what the API
 * lists and a COUNT(*) of the badges; employees are listed and shown. Screenshots and axe on each page.
 */

const { laurel, smtp, flows, memberPage } = await startBrowserLaurel(t);
const api = () => apiClient(laurel);

const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.some((r) => r.includes(address)));

t.test("an issuer issues one badge, finds it, resends its notification and revokes it", async (t) => {
  const org = await organization(laurel, "Issuing Co");
  const template = await createTemplate(laurel, org, { name: "Safe Rust" });
  await createTemplate(laurel, org, { name: "Draft only", state: "draft" });
  const page = await memberPage(org.id, "issuer@example.org", "issuer");
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));

  await page.goto(`${laurel.origin}/console/${org.id}`);
  const nav = await page.textContent("nav.console-nav");
  t.match(nav, /Issue/, "the issuer's navigation has Issue");
  t.match(nav, /Badges/);
  t.match(nav, /Employees/);
  await page.goto(`${laurel.origin}/console/${org.id}/issue`);
  t.same(
    await page.$$eval("#issue-template option:not([disabled])", (os) => os.map((o) => o.textContent)),
    ["Safe Rust"],
    "only the active templates are offered",
  );
  t.match(
    await page.textContent("#issue-drafts"),
    /Draft only \(draft: publish it first/,
    "the draft is shown, to publish first",
  );
  await look(t, page, "issue");

  // Refused as the API refuses it: the error beside the field, what was typed kept.
  await page.fill("#issue-first", "Grace");
  await page.fill("#issue-last", "Hopper");
  await page.fill("#issue-email", "not an address");
  await page.fill("#issue-evidence", "Thesis | https://example.org/thesis");
  await flows.click(page, "Issue badge");
  t.equal(
    await page.textContent("#issue-email-error"),
    "The recipient email must be an email address, such as name@example.org.",
    "the e-mail's error beside it, in words",
  );
  t.equal(await page.getAttribute("#issue-email", "aria-invalid"), "true");
  t.equal(await page.locator(".field-error").count(), 1, "only the e-mail is refused");
  t.equal(await page.inputValue("#issue-first"), "Grace", "the form keeps what was typed");
  t.equal(await page.inputValue("#issue-evidence"), "Thesis | https://example.org/thesis");
  await look(t, page, "issue-refused");

  const before = smtp.mails.length;
  await page.fill("#issue-email", "grace@example.org");
  // A date as people type it: midnight UTC.
  await page.fill("#issue-expires-at", "2030-12-01");
  await flows.click(page, "Issue badge");
  const detail = new URL(page.url());
  const id = /\/badges\/([0-9a-f-]{36})$/.exec(detail.pathname)?.[1] ?? "";
  t.match(detail.pathname, new RegExp(`^/console/${org.id}/badges/[0-9a-f-]{36}$`), "on to the badge's page");
  t.match(await page.textContent(".notice"), /Badge issued/);
  const issued = await api()("GET", `${org.badges}/${id}`, org.auth);
  t.equal(issued.status, 200, "the API has the badge");
  t.equal(issued.body.data.recipient_email, "grace@example.org");
  t.equal(issued.body.data.badge_template.id, template.id);
  t.equal(issued.body.data.evidence[0].value, "https://example.org/thesis");
  t.match(issued.body.data.expires_at, /^2030-12-01T00:00:00(\.000)?Z$/, "a date alone expires at its midnight UTC");
  const created = await laurel.db.all<{ n: unknown }>(
    "select count(*) as n from events where organization_id = ? and event_type = 'badge.created' and detail->'badge'->>'id' = ?",
    [org.id, id],
  );
  t.equal(Number(created[0]?.n), 1, "one badge.created event, as over the API");
  const acceptLink = await flows.mailedLink(
    "grace@example.org",
    /https?:\/\/\S+\/badges\/[0-9a-f-]{36}\/accept\?token=[A-Za-z0-9_%-]+/,
    before,
  );
  t.match(acceptLink, id, "the earner's notification arrives, with the badge's accept link");
  const publicPage = await fetch(acceptLink);
  t.equal(publicPage.status, 200, "the badge's page for its recipient exists");
  const acceptPage = await publicPage.text();
  t.match(acceptPage, "Safe Rust");
  t.match(acceptPage, "grace@example.org", "the link's holder sees the recipient's address");

  // The list, filtered by recipient and state.
  await page.goto(`${laurel.origin}/console/${org.id}/badges`);
  await page.fill("#f-query", "grace");
  await page.selectOption("#f-state", "pending");
  await flows.click(page, "Show badges");
  t.match(page.url(), /query=grace/);
  t.equal(await page.locator(".badge-table tbody tr").count(), 1, "the filter finds it");
  await look(t, page, "badges");
  await page.selectOption("#f-state", "revoked");
  await flows.click(page, "Show badges");
  t.equal(await page.locator(".badge-table tbody tr").count(), 0, "not among the revoked");
  await page.selectOption("#f-state", "pending");
  await flows.click(page, "Show badges");
  await flows.click(page, "", ".badge-table tbody a");
  t.equal(new URL(page.url()).pathname, `/console/${org.id}/badges/${id}`);
  await eventually(async () => {
    await page.reload();
    return /Sent/.test((await page.textContent("#delivery-h + p")) ?? "") ? true : undefined;
  }, 10_000);
  t.match(await page.textContent("main"), /A badge mail was sent/, "its events show the notification");
  await look(t, page, "badge");

  // Resend: a second mail.
  const sent = mailsTo("grace@example.org").length;
  const sentAt = smtp.mails.length;
  await flows.click(page, "Resend the notification");
  t.match(await page.textContent(".notice"), /Notification queued/);
  await eventually(async () => (mailsTo("grace@example.org").length > sent ? true : undefined), 10_000);
  t.pass("a second mail arrives");
  const earlier = await (await fetch(acceptLink)).text();
  t.notMatch(earlier, "grace@example.org", "the earlier link no longer shows the recipient");
  t.notMatch(earlier, "Safe Rust", "nor the badge");
  const resent = await flows.mailedLink("grace@example.org", /https?:\/\/\S+\/accept\?token=[A-Za-z0-9_%-]+/, sentAt);
  t.match(await (await fetch(resent)).text(), "grace@example.org", "the new link does");

  // Revoke: a reason is required (blank is refused by the server as by the API).
  await page.fill("#revoke-reason", "   ");
  await flows.click(page, "Revoke badge");
  t.match(await page.textContent("[role=alert]"), /reason/i, "no reason: refused, saying why");
  await page.fill("#revoke-reason", "Issued by mistake");
  await flows.click(page, "Revoke badge");
  t.match(await page.textContent("h1"), /Revoke the badge of grace@example.org\?/, "revoking asks first");
  t.match(await page.textContent("main"), /Issued by mistake/, "with the reason given");
  await flows.click(page, "Revoke badge");
  t.match(await page.textContent(".notice"), /Badge revoked/);
  const revoked = await api()("GET", `${org.badges}/${id}`, org.auth);
  t.equal(revoked.body.data.state, "revoked", "the API shows it revoked");
  t.equal(revoked.body.data.revocation_reason, "Issued by mistake");

  const audit = await laurel.db.all<{ action: string; actor_kind: string; target: string }>(
    "select action, actor_kind, target from audit_log where organization_id = ? order by occurred_at, action",
    [org.id],
  );
  t.same(
    audit.filter((a) => a.target === `badge:${id}`).map((a) => [a.action, a.actor_kind]),
    [
      ["badge.issued", "member"],
      ["badge.notification_resent", "member"],
      ["badge.revoked", "member"],
    ],
    "the audit log has the issue, the resend and the revocation, by the member",
  );
  t.same(errors, [], "no script error");
});

t.test("a viewer sees no control that changes a badge, and the routes refuse them", async (t) => {
  const org = await organization(laurel, "Viewing Co");
  const template = await createTemplate(laurel, org);
  const made = await api()("POST", org.badges, org.auth, {
    badge_template_id: template.id,
    issued_at: "2026-01-05T10:00:00Z",
    issued_to_first_name: "Ada",
    issued_to_last_name: "Lovelace",
    recipient_email: "ada@example.org",
  });
  const id = made.body.data.id as string;
  const viewer = await signedInMember(laurel, smtp, org.id, "viewer@example.org", "viewer");
  const home = await viewer.get(`/console/${org.id}`);
  t.equal(home.status, 200);
  t.notMatch(home.text, new RegExp(`href="/console/${org.id}/issue"`), "no Issue in the viewer's navigation");
  const badge = await viewer.get(`/console/${org.id}/badges/${id}`);
  t.equal(badge.status, 200, "the viewer reads the badge");
  for (const control of ["Revoke badge", "Replace badge", "Delete badge", "Resend the notification"]) {
    t.notMatch(badge.text, control, `no "${control}"`);
  }
  t.equal((await viewer.get(`/console/${org.id}/issue`)).status, 403);
  t.equal((await viewer.submit(`/console/${org.id}/badges/${id}/revoke`, { reason: "x" })).status, 403);
  t.equal((await viewer.submit(`/console/${org.id}/badges/${id}/resend`)).status, 403);
  const still = await api()("GET", `${org.badges}/${id}`, org.auth);
  t.equal(still.body.data.state, "pending", "nothing changed");

  // An issuer may not delete (owners and admins only).
  const issuer = await signedInMember(laurel, smtp, org.id, "issuer2@example.org", "issuer");
  const page = await issuer.get(`/console/${org.id}/badges/${id}`);
  t.notMatch(page.text, "Delete badge", "no delete for an issuer");
  t.equal((await issuer.submit(`/console/${org.id}/badges/${id}/delete`)).status, 403);
});

t.test("what a member sends is answered with a 4xx and stays text", async (t) => {
  const org = await organization(laurel, "Hostile Co");
  const other = await organization(laurel, "Other Co");
  const template = await createTemplate(laurel, org);
  const foreign = await createTemplate(laurel, other);
  const issuer = await signedInMember(laurel, smtp, org.id, "hostile-issuer@example.org", "issuer");
  const base = `/console/${org.id}`;
  for (const query of ["page=abc", "issued_at_min=yesterday", "state=%3Cscript%3E", "badge_template_id=x", "sort=id"]) {
    const answer = await issuer.get(`${base}/badges?${query}`);
    t.equal(answer.status, 400, `badges?${query}: 400`);
    t.notMatch(answer.text, "<script>", "the value stays text");
  }
  await issuer.get(`${base}/issue`);
  const fields = {
    issued_to_first_name: "<img src=x onerror=alert(1)>",
    issued_to_last_name: "Hopper",
    recipient_email: "hostile@example.org",
    issued_at: "2026-01-05T10:00",
  };
  for (const id of ["x", foreign.id, ""]) {
    const refused = await issuer.submit(`${base}/issue`, { ...fields, badge_template_id: id });
    t.equal(refused.status, 422, `template "${id}": refused as the API refuses it`);
    t.match(refused.text, 'id="issue-template-error"', "the error beside the template");
    t.notMatch(refused.text, "<img src=x", "what was typed stays text");
  }
  const future = await issuer.submit(`${base}/issue`, {
    ...fields,
    badge_template_id: template.id,
    issued_at: "2999-01-01T00:00",
  });
  t.equal(future.status, 422, "an issue date in the future: refused");
  const made = await issuer.submit(`${base}/issue`, { ...fields, badge_template_id: template.id });
  t.equal(made.status, 303);
  const page = await issuer.get(made.location ?? "");
  t.match(page.text, "&lt;img src=x onerror=alert(1)", "the name is escaped on the badge's page");
  t.notMatch(page.text, "<img src=x", "no element made of it");
  const id = /badges\/([0-9a-f-]{36})/.exec(made.location ?? "")?.[1] ?? "";
  t.equal(
    (await issuer.submit(`${base}/badges/${id}/replace`, { issued_at: "" })).status,
    422,
    "a replacement needs its date",
  );
  const refusedReplace = await issuer.submit(`${base}/badges/${id}/replace`, {
    issued_at: "2026-01-02T10:30",
    recipient_email: "not-an-address",
  });
  t.equal(refusedReplace.status, 422, "a replacement to no address is refused");
  t.match(refusedReplace.text, 'value="not-an-address"', "with the address kept");
  t.match(refusedReplace.text, 'value="2026-01-02T10:30"', "and the time");
  t.equal((await issuer.submit(`${base}/badges/${id}/revoke`, { reason: "Wrong", confirm: "yes" })).status, 303);
  t.equal(
    (await issuer.submit(`${base}/badges/${id}/revoke`, { reason: "Again", confirm: "yes" })).status,
    422,
    "revoked twice: refused",
  );
  t.equal((await issuer.submit(`${base}/badges/${id}/resend`)).status, 422, "no resend for a revoked badge");
  const notAuthorized = await issuer.get(`${base}/employees?employee_state=accepted`);
  t.equal(notAuthorized.status, 403, "connection states without workforce authorization: refused, as over the API");
});

t.test("the dashboard's counts and weeks are what the API lists and what COUNT(*) says", async (t) => {
  const org = await organization(laurel, "Counting Co");
  const template = await createTemplate(laurel, org);
  const now = new Date();
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000).toISOString();
  const ids: string[] = [];
  for (const [i, at] of [daysAgo(0), daysAgo(8), daysAgo(8), daysAgo(30), daysAgo(200)].entries()) {
    const res = await api()("POST", org.badges, org.auth, {
      badge_template_id: template.id,
      issued_at: at,
      issued_to_first_name: "Person",
      issued_to_last_name: String(i),
      recipient_email: `p${i}@example.org`,
      suppress_badge_notification_email: true,
    });
    t.equal(res.status, 201);
    ids.push(res.body.data.id);
  }
  // The earner accepts one; the organization revokes one, replaces one and deletes one.
  await trpc(laurel, "badges.accept", { badge_id: ids[1] });
  t.equal((await api()("PUT", `${org.badges}/${ids[2]}/revoke`, org.auth, { reason: "Wrong" })).status, 200);
  const replaced = await api()("POST", `${org.badges}/${ids[3]}/replace`, org.auth, { issued_at: daysAgo(1) });
  t.equal(replaced.status, 201);
  t.equal((await api()("DELETE", `${org.badges}/${ids[4]}`, org.auth)).status, 204);

  const page = await memberPage(org.id, "owner@example.org", "owner");
  await page.goto(`${laurel.origin}/console/${org.id}`);
  const shown = async (key: string) =>
    Number((await page.textContent(`[data-count=${key}] .count-n`))?.replace(/,/g, ""));
  const listed = async (query: string) =>
    (await api()("GET", `${org.badges}${query}`, org.auth)).body.metadata.total_count as number;
  t.equal(await shown("issued"), await listed(""), "issued: every badge the API lists");
  t.equal(await shown("issued"), 5);
  for (const state of ["pending", "accepted", "rejected", "revoked"]) {
    t.equal(await shown(state), await listed(`?state=${state}`), `${state}: as the API lists`);
  }
  t.equal(await shown("accepted"), 1);
  t.equal(await shown("revoked"), 1);

  // The counters equal a COUNT(*) of the badges, state by state and week by week.
  const counted = await laurel.db.all<{ state: string; n: unknown }>(
    "select state, count(*) as n from badges where organization_id = ? group by state",
    [org.id],
  );
  const kept = await laurel.db.all<{ state: string; n: unknown }>(
    "select state, n from badge_state_counts where organization_id = ? and n <> 0",
    [org.id],
  );
  const asMap = (rows: { state: string; n: unknown }[]) =>
    Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]).sort());
  t.same(asMap(kept), asMap(counted), "state counters = COUNT(*)");
  const weeks = await page.$$eval("table.weeks tbody tr", (rows) =>
    rows.map((r) => ({
      week: r.getAttribute("data-week") ?? "",
      issued: Number(r.querySelectorAll("td")[0]?.textContent),
      accepted: Number(r.querySelectorAll("td")[1]?.textContent),
    })),
  );
  t.equal(weeks.length, 12, "twelve weeks");
  const byWeek = await laurel.db.all<{ week: string; issued: unknown; accepted: unknown }>(
    `select to_char(w, 'YYYY-MM-DD') as week,
       (select count(*) from badges where organization_id = ? and date_trunc('week', issued_at at time zone 'UTC')::date = w) as issued,
       (select count(*) from badges where organization_id = ? and state = 'accepted'
          and date_trunc('week', state_updated_at at time zone 'UTC')::date = w) as accepted
     from unnest(?::date[]) as w`,
    [org.id, org.id, `{${weeks.map((w) => w.week).join(",")}}`],
  );
  t.same(
    weeks,
    byWeek.map((r) => ({ week: r.week, issued: Number(r.issued), accepted: Number(r.accepted) })),
    "each week's figures = COUNT(*)",
  );
  for (const w of weeks) {
    const end = new Date(new Date(`${w.week}T00:00:00Z`).getTime() + 7 * 86_400_000 - 1).toISOString();
    t.equal(
      w.issued,
      await listed(`?issued_at_min=${w.week}T00:00:00Z&issued_at_max=${encodeURIComponent(end)}`),
      `week of ${w.week}: issued as the API lists`,
    );
  }
  t.equal(
    weeks.reduce((s, w) => s + w.issued, 0),
    5,
    "five in the last twelve weeks: four issued and the replacement (the one 200 days ago was deleted)",
  );
  t.equal(
    weeks.reduce((s, w) => s + w.accepted, 0),
    1,
    "one accepted",
  );
  const svg = page.locator("svg.chart");
  t.equal(await svg.getAttribute("role"), "img");
  t.match(await page.textContent("svg.chart desc"), /5 issued and 1 accepted/, "the chart says the same");
  const latest = (await page.textContent("#latest-h + ol")) ?? "";
  t.match(latest, /A badge was deleted/, "the latest events in words, the deletion among them");
  t.notMatch(latest, /badge\.|pending_badge_notification|_/, "no event's code");
  const link = page.locator("#latest-h + ol a").first();
  t.equal(await link.textContent(), "See the badge", "an event links to its badge");
  t.match(await link.getAttribute("href"), new RegExp(`^/console/${org.id}/badges/[0-9a-f-]{36}$`));
  await look(t, page, "dashboard");
});

t.test("the counters equal COUNT(*) after concurrent issues, acceptances, revocations and replacements", async (t) => {
  const org = await organization(laurel, "Busy Co");
  const template = await createTemplate(laurel, org, { allow_duplicate_badges: true });
  const body = (i: number) => ({
    badge_template_id: template.id,
    issued_at: new Date(Date.now() - (i % 5) * 7 * 86_400_000).toISOString(),
    issued_to_first_name: "Busy",
    issued_to_last_name: String(i),
    recipient_email: `busy${i % 7}@example.org`,
    suppress_badge_notification_email: true,
  });
  const batch = await api()("POST", `${org.badges}/batch`, org.auth, {
    badges: Array.from({ length: 30 }, (_, i) => body(i)),
  });
  t.equal(batch.status, 201);
  const ids = (batch.body.data as Array<{ badge: { id: string } }>).map((d) => d.badge.id);
  const statuses = await Promise.all([
    ...ids.map(async (id, i) => {
      if (i % 3 === 0) return (await api()("POST", `${org.badges}/${id}/replace`, org.auth, body(i))).status;
      if (i % 3 === 1) return (await api()("PUT", `${org.badges}/${id}/revoke`, org.auth, { reason: "x" })).status;
      await trpc(laurel, "badges.accept", { badge_id: id });
      return 200;
    }),
    ...Array.from({ length: 10 }, async (_, i) => (await api()("POST", org.badges, org.auth, body(100 + i))).status),
  ]);
  t.ok(
    statuses.every((s) => s === 200 || s === 201),
    "every change succeeded (no deadlock over the counters)",
  );
  const counted = await laurel.db.all<{ state: string; n: unknown }>(
    "select state, count(*) as n from badges where organization_id = ? group by state order by state",
    [org.id],
  );
  const kept = await laurel.db.all<{ state: string; n: unknown }>(
    "select state, n from badge_state_counts where organization_id = ? and n <> 0 order by state",
    [org.id],
  );
  t.same(
    kept.map((r) => [r.state, Number(r.n)]),
    counted.map((r) => [r.state, Number(r.n)]),
    "state counters = COUNT(*)",
  );
  const weeks = (sql: string, params: unknown[]) =>
    laurel.db
      .all<{ week: string; issued: unknown; accepted: unknown }>(sql, params)
      .then((rows) => rows.map((r) => [r.week, Number(r.issued), Number(r.accepted)]));
  t.same(
    await weeks(
      `select to_char(week, 'YYYY-MM-DD') as week, issued, accepted from badge_week_counts
      where organization_id = ? and (issued <> 0 or accepted <> 0) order by week`,
      [org.id],
    ),
    await weeks(
      `select to_char(w, 'YYYY-MM-DD') as week, sum(i) as issued, sum(a) as accepted from (
        select date_trunc('week', issued_at at time zone 'UTC')::date as w, 1 as i, 0 as a from badges where organization_id = ?
        union all
        select date_trunc('week', state_updated_at at time zone 'UTC')::date, 0, 1 from badges
          where organization_id = ? and state = 'accepted') x group by w order by w`,
      [org.id, org.id],
    ),
    "week counters = COUNT(*)",
  );
});

t.test("employees: the list with its filters, one record", async (t) => {
  const org = await organization(laurel, "Workforce Co");
  await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
  for (const [i, name] of ["Alan Turing", "Joan Clarke"].entries()) {
    const [first, last] = name.split(" ");
    const res = await api()("POST", `/organizations/${org.id}/employees`, org.auth, {
      email: `${(first ?? "").toLowerCase()}@example.org`,
      first_name: first,
      last_name: last,
      external_id: `E-${i}`,
      department: i === 0 ? "Research" : "Cryptanalysis",
    });
    t.equal(res.status, 201);
  }
  const page = await memberPage(org.id, "viewer@example.org", "viewer");
  await page.goto(`${laurel.origin}/console/${org.id}/employees`);
  t.match(await page.textContent("main"), /2 records/);
  t.equal(await page.getAttribute("a:has-text('Import from CSV')", "href"), `/console/${org.id}/imports`);
  await page.fill("#e-department", "Research");
  await flows.click(page, "Show employees");
  t.match(await page.textContent("main"), /1 record\b/, "the department filter");
  t.match(await page.textContent("main"), /Alan Turing/);
  await look(t, page, "employees");
  await flows.click(page, "", "main ul a:has-text('Alan Turing')");
  t.match(await page.textContent("main"), /E-0/);
  t.match(await page.textContent("main"), /Research/);
  await look(t, page, "employee");
});

t.test("the migration fills the counters for the badges that exist before it", async (t) => {
  const stateCounts = () =>
    laurel.db.all<{ organization_id: string; state: string; n: unknown }>(
      `select organization_id, state, count(*) as n from badges group by organization_id, state
       order by organization_id, state`,
    );
  const weekCounts = () =>
    laurel.db.all<{ organization_id: string; week: string; issued: unknown; accepted: unknown }>(
      `select organization_id, to_char(w, 'YYYY-MM-DD') as week, sum(i) as issued, sum(a) as accepted from (
         select organization_id, date_trunc('week', issued_at at time zone 'UTC')::date as w, 1 as i, 0 as a from badges
         union all
         select organization_id, date_trunc('week', state_updated_at at time zone 'UTC')::date, 0, 1 from badges
           where state = 'accepted') x group by organization_id, w order by organization_id, w`,
    );
  const expected = {
    states: (await stateCounts()).map((r) => [r.organization_id, r.state, Number(r.n)]),
    weeks: (await weekCounts()).map((r) => [r.organization_id, r.week, Number(r.issued), Number(r.accepted)]),
  };
  t.ok(expected.states.length > 5, "badges of several organizations exist");
  // The database as it was before the counters: the migration is then run on these badges.
  for (const sql of [
    "drop trigger badge_counts_statement_insert on badges",
    "drop trigger badge_counts_statement_update on badges",
    "drop trigger badge_counts_statement_delete on badges",
    "drop function badge_counts_inserted()",
    "drop function badge_counts_updated()",
    "drop function badge_counts_deleted()",
    "drop function badge_week(timestamptz)",
    "drop table badge_state_counts",
    "drop table badge_week_counts",
    "drop index events_badge_idx",
    "delete from mikro_orm_migrations where name in ('m20261127_025_badge_counters', 'm20261128_031_set_based_badge_triggers')",
  ])
    await laurel.db.run(sql);
  await migratePostgres(laurel.database?.url ?? "");
  const states = await laurel.db.all<{ organization_id: string; state: string; n: unknown }>(
    "select organization_id, state, n from badge_state_counts order by organization_id, state",
  );
  const weeks = await laurel.db.all<{ organization_id: string; week: string; issued: unknown; accepted: unknown }>(
    `select organization_id, to_char(week, 'YYYY-MM-DD') as week, issued, accepted from badge_week_counts
     order by organization_id, week`,
  );
  t.same(
    states.map((r) => [r.organization_id, r.state, Number(r.n)]),
    expected.states,
    "state counters = COUNT(*)",
  );
  t.same(
    weeks.map((r) => [r.organization_id, r.week, Number(r.issued), Number(r.accepted)]),
    expected.weeks,
    "week counters = COUNT(*)",
  );
});
