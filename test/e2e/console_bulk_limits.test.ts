import t from "tap";
import { apiClient, createTemplate, eventually, issueBody, organization } from "../support/badges.ts";
import { signedInMember } from "../support/console.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/**
 * Bulk actions at their bounds, over HTTP (the browser test walks the pages): a resend stops when
 * the organization's mail budget is spent and says how many were not sent; another organization's
 * badge in a selection is passed over, never touched; a filter the list refuses is a 400 page and
 * ids that are no ids a 422, nothing changed; a script posting `confirm=yes` acts at once.
 */

const BUDGET = 3;
let laurel: TestLaurel;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
t.before(async () => {
  smtp = await startSmtpSink();
  laurel = await startLaurel({ env: { SMTP_URL: smtp.url, MAIL_PER_ORGANIZATION_PER_HOUR: String(BUDGET) } });
});
t.teardown(async () => {
  await laurel?.close();
  await smtp?.close();
});

const audit = async (organizationId: string, action: string) =>
  (
    await laurel.db.all<{ details: unknown }>(
      "select details from audit_log where organization_id = ? and action = ? order by occurred_at, id",
      [organizationId, action],
    )
  ).map((r) => (typeof r.details === "string" ? JSON.parse(r.details) : r.details));

t.test("a bulk resend stops when the mail budget is spent, and says so", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, "Budget Co");
  const other = await organization(laurel, "Elsewhere Co");
  const template = await createTemplate(laurel, org);
  const foreignTemplate = await createTemplate(laurel, other);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await api(
      "POST",
      org.badges,
      org.auth,
      issueBody(template.id, { recipient_email: `budget${i}@example.org`, suppress_badge_notification_email: true }),
    );
    t.equal(res.status, 201);
    ids.push(res.body.data.id);
  }
  const foreign = await api("POST", other.badges, other.auth, issueBody(foreignTemplate.id));
  const issuer = await signedInMember(laurel, smtp, org.id, "budget-issuer@example.org", "issuer");
  const base = `/console/${org.id}/badges`;
  await issuer.get(base);

  // Without confirm=yes: the question, nothing sent.
  const asked = await issuer.submit(`${base}/bulk/resend`, { scope: "selection", ids: ids.join(",") });
  t.equal(asked.status, 200);
  t.match(asked.text, "Resend the notification of 5 badges?");
  t.same(await audit(org.id, "badges.bulk_notifications_resent"), [], "nothing done before the confirmation");

  const done = await issuer.submit(`${base}/bulk/resend`, {
    scope: "selection",
    ids: [foreign.body.data.id, ...ids].join(","),
    confirm: "yes",
  });
  t.equal(done.status, 303);
  const back = new URL(done.location ?? "", laurel.origin);
  t.same(Object.fromEntries(back.searchParams), { bulk: "resend", changed: "3", skipped: "1", unsent: "2" });
  const list = await issuer.get(`${back.pathname}${back.search}`);
  t.match(
    list.text,
    "Notifications queued for 3 badges. 1 badge was passed over: only pending badges are notified. 2 notifications were not sent: the organization's mail budget is spent for now; try again later.",
  );
  t.equal((await audit(org.id, "badge.notification_resent")).length, BUDGET, "one row per mail sent");
  t.match(await audit(org.id, "badges.bulk_notifications_resent"), [
    { selection: 6, asked: 6, done: 3, skipped: 1, not_sent_budget_spent: 2 },
  ]);
  const foreignState = await api("GET", `${other.badges}/${foreign.body.data.id}`, other.auth);
  t.equal(foreignState.body.data.state, "pending", "another organization's badge is not touched");
  await eventually(async () => {
    const sent = smtp.mails.filter((m) => m.to.some((r) => /budget\d@example\.org/.test(r)));
    return sent.length === BUDGET ? true : undefined;
  }, 10_000);

  // What the form can carry that the list refuses: nothing changes.
  const badFilter = await issuer.submit(`${base}/bulk/revoke`, {
    scope: "filter",
    filter_issued_at_min: "yesterday",
    reason: "Test",
  });
  t.equal(badFilter.status, 400, "a filter the list refuses: 400");
  t.match(badFilter.text, "Nothing was changed");
  const noIds = await issuer.submit(`${base}/bulk/revoke`, { ids: "x,<script>,1", reason: "Test", confirm: "yes" });
  t.equal(noIds.status, 422, "no id among the ids: 422");
  t.notMatch(noIds.text, "<script>");
  const noReason = await issuer.submit(`${base}/bulk/revoke`, { ids: ids.join(","), reason: " ", confirm: "yes" });
  t.equal(noReason.status, 422, "no reason: 422");
  const states = await laurel.db.all<{ state: string }>("select distinct state from badges where organization_id = ?", [
    org.id,
  ]);
  t.same(
    states.map((s) => s.state),
    ["pending"],
    "no badge was revoked",
  );

  // A viewer may not.
  const viewer = await signedInMember(laurel, smtp, org.id, "budget-viewer@example.org", "viewer");
  await viewer.get(base);
  t.equal((await viewer.submit(`${base}/bulk/resend`, { ids: ids.join(","), confirm: "yes" })).status, 403);
});
