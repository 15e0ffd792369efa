import PostalMime from "postal-mime";
import t from "tap";
import {
  apiClient,
  createTemplate,
  eventually,
  issueBody,
  organization,
  trpc,
  trpcFailure,
} from "../support/badges.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";
import { trpcQuery } from "../support/webhooks.ts";

/**
 * Recommendations over REST and on the wallet: one or a batch (all or none), for an address or an
 * employee record; fulfilled by itself when a badge of the template is issued to the address (and
 * open again once that badge is revoked); shown on the wallet of the account that confirmed the
 * address, with the organization's words escaped, and dismissed there; mailed once each.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));
const HOSTILE = '<img src=x onerror="alert(1)">';

// biome-ignore lint/suspicious/noExplicitAny: REST bodies
type Json = any;

t.test("recommend, fulfil by issuing, dismiss on the wallet, delete; each mailed once", async (t) => {
  const { laurel, smtp } = mailed;
  const api = apiClient(laurel);
  const org = await organization(laurel, "Forge Academy");
  const other = await organization(laurel, "Elsewhere");
  const tpl = await createTemplate(laurel, org, { name: "Welding II", criteria_url: "https://forge.example/w2" });
  const next = await createTemplate(laurel, org, { name: "Welding III" });
  const draft = await createTemplate(laurel, org, { name: "Draft", state: "draft" });
  const foreign = await createTemplate(laurel, other, { name: "Theirs" });
  const employee = await api("POST", `/organizations/${org.id}/employees`, org.auth, {
    email: "Emp@Forge.example",
    first_name: "Emma",
    last_name: "Ployee",
    external_id: "E-7",
  });
  t.equal(employee.status, 201, JSON.stringify(employee.body));
  const recs = `/organizations/${org.id}/recommendations`;
  const before = smtp.mails.length;

  const one = await api("POST", recs, org.auth, {
    badge_template_id: tpl.id,
    recipient_email: "ada@example.org",
    message: `Ready for it ${HOSTILE}`,
  });
  t.equal(one.status, 201, JSON.stringify(one.body));
  const rec: Json = one.body.data;
  t.match(rec, {
    state: "open",
    recipient_email: "ada@example.org",
    badge_template: { id: tpl.id, name: "Welding II", criteria_url: "https://forge.example/w2" },
    fulfilled_at: null,
    dismissed_at: null,
  });
  t.ok(rec.notified_at, "mailed");

  // A batch is written whole or not at all.
  const countOf = async (q = "") => (await api("GET", `${recs}?per=100${q}`, org.auth)).body.metadata.total_count;
  const refused = await api("POST", recs, org.auth, {
    recommendations: [
      { badge_template_id: next.id, recipient_email: "bob@example.org" },
      { badge_template_id: tpl.id, recipient_email: "ADA@example.org" },
      { badge_template_id: draft.id, recipient_email: "cy@example.org" },
      { badge_template_id: foreign.id, recipient_email: "cy@example.org" },
      { badge_template_id: next.id, recipient_email: "dee@example.org", employee_id: employee.body.data.id },
      { badge_template_id: next.id },
    ],
  });
  t.equal(refused.status, 422);
  t.same(
    refused.body.data.errors.map((e: { field: string }) => e.field),
    [
      "recommendations[2].badge_template_id",
      "recommendations[3].badge_template_id",
      "recommendations[4].recipient_email",
      "recommendations[5].recipient_email",
    ],
    "each problem named by its item, before anything is written",
  );
  t.equal(await countOf(), 1, "nothing of the refused batch was written");
  const again = await api("POST", recs, org.auth, {
    recommendations: [
      { badge_template_id: next.id, recipient_email: "bob@example.org" },
      { badge_template_id: tpl.id, recipient_email: "ADA@example.org" },
    ],
  });
  t.equal(again.status, 422, "one already recommended refuses the batch");
  t.equal(again.body.data.errors[0]?.field, "recommendations[1].recipient_email");
  t.equal(await countOf(), 1);
  const batch = await api("POST", recs, org.auth, {
    recommendations: [
      { badge_template_id: next.id, recipient_email: "bob@example.org" },
      { badge_template_id: next.id, employee_id: employee.body.data.id },
      { badge_template_id: next.id, recipient_email: "ada@example.org" },
    ],
  });
  t.equal(batch.status, 201, JSON.stringify(batch.body));
  t.same(
    batch.body.data.map((r: Json) => r.recipient_email),
    ["bob@example.org", "Emp@Forge.example", "ada@example.org"],
    "the employee record's address",
  );
  t.equal(batch.body.data[1].employee_id, employee.body.data.id);

  // Filters.
  t.equal(await countOf(`&filter=badge_template_id::${next.id}`), 3);
  t.equal(await countOf("&filter=recipient_email::ada@example.org"), 2);
  t.equal(await countOf("&filter=state::open"), 4);

  // Earning the template fulfils it; a revoked badge opens it again.
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(tpl.id, { recipient_email: "Ada@Example.org", suppress_badge_notification_email: true }),
  );
  t.equal(issued.status, 201);
  const fulfilled = (await api("GET", `${recs}/${rec.id}`, org.auth)).body.data;
  t.equal(fulfilled.state, "fulfilled", "fulfilled by the badge, to the same address in another case");
  t.equal(fulfilled.fulfilled_at, issued.body.data.issued_at);
  t.equal(await countOf("&filter=state::fulfilled"), 1);
  t.equal(await countOf("&filter=state::open"), 3);
  const revoked = await api("PUT", `${org.badges}/${issued.body.data.id}/revoke`, org.auth, {
    reason: "Issued in error",
  });
  t.equal(revoked.status, 200, JSON.stringify(revoked.body));
  t.equal((await api("GET", `${recs}/${rec.id}`, org.auth)).body.data.state, "open", "open again once revoked");

  // The wallet of the account that confirmed the address: shown, escaped, dismissed.
  const ada = httpEarner(laurel.origin, smtp);
  await ada.signIn("ada@example.org");
  const wallet = await ada.get("/wallet");
  t.match(wallet.text, "Recommended for you");
  t.match(wallet.text, `data-recommendation="${rec.id}"`);
  t.match(wallet.text, "Welding III");
  t.match(wallet.text, "Recommended by <a");
  t.match(wallet.text, "Ready for it &lt;img src=x onerror=&quot;alert(1)&quot;>", "the words escaped");
  t.notMatch(wallet.text, HOSTILE);
  t.match(wallet.text, 'href="https://forge.example/w2"', "what it asks for");
  const stranger = httpEarner(laurel.origin, smtp);
  await stranger.signIn("bob@example.org");
  await stranger.get("/wallet");
  const notTheirs = await stranger.submit(`/wallet/recommendations/${rec.id}/dismiss`);
  t.equal(notTheirs.status, 404, "another person's recommendation cannot be dismissed");
  const dismissed = await ada.post(`/wallet/recommendations/${rec.id}/dismiss`);
  t.equal(dismissed.location, "/wallet?done=recommendation_dismissed#recommendations");
  const after = await ada.get(dismissed.location ?? "");
  t.match(after.text, "Recommendation dismissed");
  t.notMatch(after.text, `data-recommendation="${rec.id}"`, "gone from the wallet");
  t.match(after.text, "Welding III", "the other one stays");
  t.equal((await api("GET", `${recs}/${rec.id}`, org.auth)).body.data.state, "dismissed");
  t.equal(await countOf("&filter=state::dismissed"), 1);

  // Tenant isolation; deletion.
  t.equal((await api("GET", `${recs}/${rec.id}`, other.auth)).status, 403, "another organization's credential");
  t.equal((await api("GET", `/organizations/${other.id}/recommendations/${rec.id}`, other.auth)).status, 404);
  t.equal((await api("DELETE", `${recs}/${rec.id}`, org.auth)).status, 204);
  t.equal((await api("GET", `${recs}/${rec.id}`, org.auth)).status, 404);
  const audit = await laurel.db.all<{ action: string }>(
    "select action from audit_log where organization_id = ? and action like 'recommendation.%' order by occurred_at, id",
    [org.id],
  );
  t.same(
    audit.map((a) => a.action),
    [...Array(4).fill("recommendation.created"), "recommendation.deleted"],
  );

  // Each recommendation mailed once: Ada twice (two templates), Bob and the employee once.
  const mail = await eventually(async () => {
    const to = smtp.mails.slice(before).filter((m) => m.to.some((r) => r.includes("ada@example.org")));
    return to.length >= 2 ? to : null;
  });
  const parsed = await PostalMime.parse(mail?.[0]?.data ?? "");
  t.equal(parsed.subject, "Forge Academy recommends a badge for you: Welding II");
  t.match(parsed.html ?? "", "Ready for it &lt;img", "the message escaped in the mail");
  t.match(parsed.html ?? "", `href="${laurel.origin}/wallet#recommendations"`);
  await new Promise((r) => setTimeout(r, 1000));
  const recommendationMails = smtp.mails.slice(before).filter((m) => m.data.includes("recommends a badge for you"));
  t.equal(recommendationMails.length, 4, "four recommendations, four mails; none for the refused batches");
});

t.test("operators list and delete an organization's recommendations over tRPC", async (t) => {
  const { laurel } = mailed;
  const api = apiClient(laurel);
  const org = await organization(laurel, "Operated Academy");
  const tpl = await createTemplate(laurel, org, { name: "Soldering" });
  const made = await api("POST", `/organizations/${org.id}/recommendations`, org.auth, {
    recommendations: [
      { badge_template_id: tpl.id, recipient_email: "one@example.org" },
      { badge_template_id: tpl.id, recipient_email: "two@example.org" },
    ],
  });
  t.equal(made.status, 201);
  const list = (input: unknown) =>
    trpcQuery(laurel.adminOrigin, laurel.server.adminToken, "recommendations.list", input) as Promise<Json>;
  const all = await list({ organization_id: org.id });
  t.same(all.data.map((r: Json) => r.recipient_email).sort(), ["one@example.org", "two@example.org"]);
  t.equal(all.metadata.total_count, 2);
  const one = await list({ organization_id: org.id, recipient_email: "ONE@example.org", state: "open" });
  t.same(
    one.data.map((r: Json) => r.recipient_email),
    ["one@example.org"],
  );
  await trpc(laurel, "recommendations.delete", { organization_id: org.id, recommendation_id: one.data[0].id });
  t.equal((await list({ organization_id: org.id })).metadata.total_count, 1, "deleted");
  const again = await trpcFailure(laurel, "recommendations.delete", {
    organization_id: org.id,
    recommendation_id: one.data[0].id,
  });
  t.equal(again.code, "NOT_FOUND");
  const bad = await trpcFailure(laurel, "recommendations.delete", { organization_id: org.id });
  t.equal(bad.code, "BAD_REQUEST", "a missing field is the caller's error");
  const audit = await laurel.db.all<{ actor_kind: string }>(
    "select actor_kind from audit_log where organization_id = ? and action = 'recommendation.deleted'",
    [org.id],
  );
  t.same(audit, [{ actor_kind: "operator" }], "audited as the operator");
});
