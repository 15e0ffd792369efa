import t from "tap";
import { apiClient, createTemplate, organization } from "../support/badges.ts";
import { look, startBrowserLaurel } from "../support/console.ts";

/**
 * Authorized issuers in the console, in a real browser: a grantor's owner authorizes another
 * organization for one template; the issuer's admin accepts; the issuer's issue form and imports
 * offer that template after its own, and issuing it gives the grantor's badge, whose page says who
 * issued it on whose behalf; the grantor ends it after a confirmation and the template leaves the
 * form. A viewer sees both lists and no form; names are shown escaped.
 */
const { laurel, flows, memberPage: signedIn } = await startBrowserLaurel(t);

t.test("authorize, accept, issue on behalf, end", async (t) => {
  const grantor = await organization(laurel, 'Grantor "><b>U</b>');
  const issuer = await organization(laurel, "Training Partner");
  const rust = await createTemplate(laurel, grantor, { name: "Rust" });
  await createTemplate(laurel, grantor, { name: "Go" });
  await createTemplate(laurel, issuer, { name: "Partner's own" });
  const dialogs: string[] = [];

  const owner = await signedIn(grantor.id, "owner@grantor.example", "owner");
  owner.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await owner.goto(`${laurel.origin}/console/${grantor.id}`);
  await flows.click(owner, "", "a.console-link:has-text('Authorized issuers')");
  await owner.waitForSelector("h1:has-text('Authorized issuers')");
  await look(t, owner, "issuers-empty");

  // No template chosen and not every one: refused with the organization kept.
  await owner.fill("#grant-issuer", `${laurel.origin}/organizations/${issuer.id}`);
  await owner.uncheck("input[name=all_templates]");
  await flows.click(owner, "Authorize");
  t.match(await owner.textContent("[role=alert]"), /Choose the templates/);
  t.equal(await owner.inputValue("#grant-issuer"), `${laurel.origin}/organizations/${issuer.id}`, "kept");
  await owner.uncheck("input[name=all_templates]");
  await owner.check(`input[name=badge_template_ids][value="${rust.id}"]`);
  await flows.click(owner, "Authorize");
  t.match(await owner.textContent("[role=status]"), /Authorization sent/);
  t.match(await owner.textContent("main"), "Training Partner");
  t.match(await owner.textContent("main"), "Waiting for acceptance");
  await look(t, owner, "issuers-granted");

  const admin = await signedIn(issuer.id, "admin@partner.example", "admin");
  await admin.goto(`${laurel.origin}/console/${issuer.id}/issuers`);
  t.match(await admin.textContent("main"), "Organizations you issue for");
  t.match(await admin.textContent("main"), 'Grantor "><b>U</b>', "the name as written, not as markup");
  await flows.click(admin, "", "button:has-text('Accept')");
  t.match(await admin.textContent("[role=status]"), /Accepted/);
  t.match(await admin.textContent("main"), "Issuing");
  await look(t, admin, "issuers-accepted");

  // The issue form offers the grantor's template after the organization's own.
  await admin.goto(`${laurel.origin}/console/${issuer.id}/issue`);
  const options = await admin.locator("#issue-template option").allTextContents();
  t.same(options, ["Partner's own", 'Rust (for Grantor "><b>U</b>)'], "its own, then the grantor's covered one");
  t.equal(await admin.locator("#issue-template optgroup").getAttribute("label"), 'On behalf of Grantor "><b>U</b>');
  await admin.selectOption("#issue-template", rust.id);
  await admin.fill("#issue-first", "Ada");
  await admin.fill("#issue-last", "Lovelace");
  await admin.fill("#issue-email", "ada@example.org");
  await flows.click(admin, "Issue badge");
  t.match(await admin.textContent("[role=status]"), /Badge issued/);
  t.match(await admin.textContent("main"), 'Training Partner, on behalf of Grantor "><b>U</b>');
  t.equal(await admin.locator("#revoke-reason").count(), 0, "the grantor's to revoke, not the issuer's");
  t.equal(await admin.locator("button:has-text('Delete badge')").count(), 0, "nor to delete");
  await look(t, admin, "issued-on-behalf");

  const api = apiClient(laurel);
  const [badge] = (await api("GET", `${grantor.badges}?filter=on_behalf::true`, grantor.auth)).body.data;
  t.match(badge, { recipient_email: "ada@example.org", issuer: { authorized_issuer: { id: issuer.id } } });

  await admin.goto(`${laurel.origin}/console/${issuer.id}/imports`);
  t.ok(
    (await admin.locator("#import-template option").allTextContents()).includes('Rust (for Grantor "><b>U</b>)'),
    "the imports offer it too",
  );

  const viewer = await signedIn(grantor.id, "viewer@grantor.example", "viewer");
  await viewer.goto(`${laurel.origin}/console/${grantor.id}/issuers`);
  t.match(await viewer.textContent("main"), "Training Partner");
  t.equal(await viewer.locator("#grant-issuer").count(), 0, "a viewer has no form");
  t.equal(await viewer.locator("button:has-text('End')").count(), 0, "nor buttons");
  await look(t, viewer, "issuers-viewer");

  await owner.goto(`${laurel.origin}/console/${grantor.id}/issuers`);
  await flows.click(owner, "", "button:has-text('End')");
  await owner.waitForSelector("h1:has-text('End Training Partner')");
  await look(t, owner, "issuers-end-confirm");
  await flows.click(owner, "", "button:has-text('End authorization')");
  t.match(await owner.textContent("[role=status]"), /Ended/);
  t.notMatch(await owner.textContent("main"), "Training Partner", "it leaves the list");

  await admin.goto(`${laurel.origin}/console/${issuer.id}/issue`);
  t.same(await admin.locator("#issue-template option").allTextContents(), ["Partner's own"], "and the form");
  t.same(dialogs, [], "no script ran from a name");

  const log = await laurel.db.all<{ organization_id: string; action: string; actor_kind: string }>(
    "select organization_id, action, actor_kind from audit_log where action like 'issuer_authorization.%' order by occurred_at, action",
  );
  t.same(
    log.map((r) => [r.organization_id === grantor.id ? "grantor" : "issuer", r.action, r.actor_kind]),
    [
      ["grantor", "issuer_authorization.granted", "member"],
      ["issuer", "issuer_authorization.accepted", "member"],
      ["grantor", "issuer_authorization.ended", "member"],
    ],
  );
});
