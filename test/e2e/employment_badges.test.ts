import type { Page } from "playwright-core";
import t from "tap";
import { Value } from "typebox/value";
import { EmploymentEventDetailSchema, EmploymentSchema } from "../../core/events/mod.ts";
import { apiClient, createTemplate, issueBody, trpc } from "../support/badges.ts";
import { startEarnerWebhookStack } from "../support/earner_flows.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

/**
 * The badges an employer sees from real actions: the earner accepting a badge or switching its
 * privacy in Chromium, the issuer revoking, replacing or deleting over REST, an account merged in.
 * Every kind is delivered to the employer's webhook receiver with its documented detail, and the
 * REST reads of the employment carry the same `badges`.
 */
const stack = await startEarnerWebhookStack();
t.teardown(stack.close);
const { laurel, smtp, browser, receiver, click, linkMailedTo, signIn, useLink } = stack;

// biome-ignore lint/suspicious/noExplicitAny: event details of many shapes
type Detail = any;

t.test("employment.badges.* follow the connected employee's badges", async (t) => {
  const api = apiClient(laurel);
  const org = await webhookOrganization(laurel, { url: receiver.url, events: "all", name: "Acme" });
  await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
  const fixture = {
    id: org.id,
    auth: org.auth,
    templates: `/organizations/${org.id}/badge_templates`,
    badges: `/organizations/${org.id}/badges`,
  };
  const issue = async (name: string, email: string): Promise<string> => {
    const template = await createTemplate(laurel, fixture, { name });
    const res = await api("POST", fixture.badges, org.auth, issueBody(template.id, { recipient_email: email }));
    return res.body.data.id;
  };
  const [go, sql, ml] = [
    await issue("Go", "cat@example.org"),
    await issue("SQL", "cat@example.org"),
    await issue("ML", "cat@example.org"),
  ];
  const dans = await issue("Rust", "dan@example.org");
  const path = `/organizations/${org.id}/employees`;
  const cat = (
    await api("POST", path, org.auth, { email: "cat@example.org", first_name: "Cat", last_name: "C", external_id: "C" })
  ).body.data;

  /** Details of the events of `kind`, oldest first, checked against the schema. */
  const details = async (kind: string, n = 1): Promise<Detail[]> => {
    await waitFor(`${n} × ${kind}`, () => receiver.received.filter((r) => r.json.event_type === kind).length >= n);
    const out: Detail[] = [];
    for (const d of receiver.received.filter((r) => r.json.event_type === kind)) {
      const detail = (await api("GET", `/organizations/${org.id}/events/${d.json.id}`, org.auth)).body.data;
      t.ok(Value.Check(EmploymentEventDetailSchema, detail), `${kind}: the detail's schema`);
      t.ok(Value.Check(EmploymentSchema, detail.employment), `${kind}: the full employment`);
      out.push(detail);
    }
    return out;
  };
  const ids = (badges: Detail[]) => badges.map((b: Detail) => b.id).sort();
  const accept = (page: Page, id: string) => click(page, "", `form[action='/badges/${id}/accept'] button`);
  const privacy = (page: Page, id: string) => click(page, "", `form[action='/badges/${id}/privacy'] button`);

  const context = await browser.newContext();
  const page = await signIn(context, "cat@example.org");
  await accept(page, go);
  await click(page, "Connect to Acme");
  const [connected] = await details("employment.connection.accepted");
  t.same(ids(connected.employment.badges), [go], "the accepted connection reveals the accepted public badge");

  // Accepting another badge makes it viewable.
  await accept(page, sql);
  const [added] = await details("employment.badges.added");
  t.equal(added.badge.id, sql);
  t.same(ids(added.employment.badges), [go, sql].sort());

  // Private: the cause, then the removal; public again: added.
  await privacy(page, sql);
  const [privacyChanged] = await details("employment.badges.privacy_changed");
  t.same(ids(privacyChanged.employment.badges), [go]);
  const [removed] = await details("employment.badges.removed");
  t.equal(removed.badge.id, sql);
  t.equal(removed.badge.public, false);
  await privacy(page, sql);
  await details("employment.badges.added", 2);

  // A pending badge made private and public again concerns nobody: it is not viewable.
  await privacy(page, ml);
  await privacy(page, ml);

  // The issuer revokes Go: state_changed, then removed.
  t.equal((await api("PUT", `${fixture.badges}/${go}/revoke`, org.auth, { reason: "Mistake" })).status, 200);
  const [stateChanged] = await details("employment.badges.state_changed");
  t.same(ids(stateChanged.employment.badges), [sql]);
  const removedGo = (await details("employment.badges.removed", 2))[1];
  t.equal(removedGo.badge.id, go);
  t.equal(removedGo.badge.state, "revoked");

  // The issuer deletes SQL: removed, nothing viewable left.
  t.equal((await api("DELETE", `${fixture.badges}/${sql}`, org.auth)).status, 204);
  const removedSql = (await details("employment.badges.removed", 3))[2];
  t.equal(removedSql.badge.id, sql);
  t.same(removedSql.employment.badges, []);

  // Dan's accepted badge comes with his account merged into Cat's.
  const danContext = await browser.newContext();
  const danPage = await signIn(danContext, "dan@example.org");
  await accept(danPage, dans);
  await page.goto(`${laurel.origin}/account`);
  await page.fill("#merge-email", "dan@example.org");
  const before = smtp.mails.length;
  await click(page, "Send merge link");
  await useLink(page, await linkMailedTo("dan@example.org", before));
  const merged = (await details("employment.badges.added", 3))[2];
  t.equal(merged.badge.id, dans);
  t.same(ids(merged.employment.badges), [dans]);

  // Every read of the employment carries what the employer sees; the state change kinds are the only ones.
  const read = (await api("GET", `${path}/${cat.id}`, org.auth)).body.data;
  t.same(ids(read.badges), [dans]);
  const listed = (await api("GET", path, org.auth)).body.data;
  t.same(ids(listed[0].badges), [dans]);
  const updated = await api("PUT", `${path}/${cat.id}`, org.auth, { team: "Blue" });
  t.same(ids(updated.body.data.badges), [dans]);
  const [updatedEvent] = await details("employment.updated");
  t.same(ids(updatedEvent.employment.badges), [dans]);
  t.equal(receiver.received.filter((r) => r.json.event_type === "employment.badges.privacy_changed").length, 1);
  t.same(receiver.verify([org.secret]), [], "signed");
  await context.close();
  await danContext.close();
});
