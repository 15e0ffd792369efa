import t from "tap";
import { apiClient, createTemplate, organization } from "../support/badges.ts";
import { look, startBrowserLaurel } from "../support/console.ts";

/**
 * Endorsements in the console, in a real browser: an owner of one organization endorses another's
 * template by id with a comment; an admin of that organization accepts it (it is then published
 * on the template's credentials), and the endorser withdraws it after a confirmation. A viewer sees
 * both lists and no form; what they say is shown as written, escaped.
 */
const HOSTILE = '"><img src=x onerror=alert(1)>';

const { laurel, flows, memberPage: signedIn } = await startBrowserLaurel(t);

t.test("endorse a template, accept it on the other side, withdraw it", async (t) => {
  const a = await organization(laurel, "Guild of Welders");
  const b = await organization(laurel, "Weld School");
  const tpl = await createTemplate(laurel, b, { name: "Welding" });
  const dialogs: string[] = [];

  const endorser = await signedIn(a.id, "owner@guild.example", "owner");
  endorser.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await endorser.goto(`${laurel.origin}/console/${a.id}`);
  await flows.click(endorser, "", "a.console-link:has-text('Endorsements')");
  await endorser.waitForSelector("h1:has-text('Endorsements')");
  await look(t, endorser, "endorsements-empty");

  // A bad id is refused with the form kept.
  await endorser.fill("#endorse-id", "not-an-id");
  await endorser.fill("#endorse-comment", `Thorough ${HOSTILE}`);
  await flows.click(endorser, "Send endorsement");
  t.match(await endorser.textContent("[role=alert]"), /id/);
  t.equal(await endorser.inputValue("#endorse-comment"), `Thorough ${HOSTILE}`, "the comment is kept");
  await look(t, endorser, "endorsement-refused");

  // The template's Open Badges address, pasted whole: its id is read from it.
  await endorser.fill("#endorse-id", `${laurel.baseUrl}/obi/v2/badge_classes/${tpl.id}`);
  await flows.click(endorser, "Send endorsement");
  t.match(await endorser.textContent("[role=status]"), /Endorsement sent/);
  t.match(await endorser.textContent("main"), `To Weld School`);
  t.match(await endorser.textContent("main"), "Waiting for acceptance");
  t.match(await endorser.textContent("main"), "Endorses the badge template “Welding”");
  await look(t, endorser, "endorsements-given");

  const admin = await signedIn(b.id, "admin@weld.example", "admin");
  await admin.goto(`${laurel.origin}/console/${b.id}/endorsements`);
  t.match(await admin.textContent("main"), "From Guild of Welders");
  t.match(await admin.textContent("blockquote"), `Thorough ${HOSTILE}`, "the comment as written, not as markup");
  await look(t, admin, "endorsements-received");
  await flows.click(admin, "", "button:has-text('Accept')");
  t.match(await admin.textContent("[role=status]"), /accepted/);
  t.match(await admin.textContent("main"), "Published");
  await look(t, admin, "endorsements-accepted");

  const api = apiClient(laurel);
  const listed = await api("GET", `/organizations/${b.id}/endorsements/received`, b.auth);
  t.equal(listed.body.data[0].state, "accepted");
  t.ok(listed.body.data[0].credential_url, "published as a credential");

  const viewer = await signedIn(b.id, "viewer@weld.example", "viewer");
  await viewer.goto(`${laurel.origin}/console/${b.id}/endorsements`);
  t.match(await viewer.textContent("main"), "From Guild of Welders");
  t.equal(await viewer.locator("#endorse-id").count(), 0, "a viewer has no form");
  t.equal(await viewer.locator("button:has-text('Reject')").count(), 0, "nor buttons");
  await look(t, viewer, "endorsements-viewer");

  await endorser.goto(`${laurel.origin}/console/${a.id}/endorsements`);
  await flows.click(endorser, "", "button:has-text('Withdraw')");
  await endorser.waitForSelector("h1:has-text('Withdraw your endorsement of Weld School?')");
  await look(t, endorser, "endorsement-withdraw-confirm");
  await flows.click(endorser, "", "button:has-text('Withdraw endorsement')");
  t.match(await endorser.textContent("[role=status]"), /withdrawn/);
  t.match(await endorser.textContent("main"), "Withdrawn");
  await look(t, endorser, "endorsements-withdrawn");
  t.same(dialogs, [], "no script ran from the comment");

  const log = await laurel.db.all<{ organization_id: string; action: string }>(
    "select organization_id, action from audit_log where action like 'endorsement.%' order by occurred_at, action",
  );
  t.same(
    log.map((r) => [r.organization_id === a.id ? "A" : "B", r.action]),
    [
      ["A", "endorsement.created"],
      ["B", "endorsement.accepted"],
      ["A", "endorsement.withdrawn"],
    ],
  );
});
