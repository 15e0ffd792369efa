import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { look, startBrowserLaurel } from "../support/console.ts";

/**
 * Pathways in the console, in a real browser: an admin creates one (a refusal keeps what was typed
 * and says core's reason for the milestone it names), publishes it (an earner who holds a
 * milestone already shows on the earners' page), sees an acceptance complete it, changes its name
 * in place and its milestones as its next version, and archives it after a confirmation; a draft is
 * deleted after one. A viewer reads and changes nothing. A hostile name shows as text.
 */
const HOSTILE = '"><img src=x onerror=alert(1)>';

const { laurel, flows, memberPage: signedIn } = await startBrowserLaurel(t);

t.test("create, refuse, publish, progress, new version, archive, delete", async (t) => {
  const org = await organization(laurel, "Joinery Guild");
  const api = apiClient(laurel);
  const saw = await createTemplate(laurel, org, { name: "Saw" });
  const lathe = await createTemplate(laurel, org, { name: "Lathe" });
  const varnish = await createTemplate(laurel, org, { name: "Varnish" });
  const master = await createTemplate(laurel, org, { name: "Master joiner" });
  await createTemplate(laurel, org, { name: "Unfinished", state: "draft" });
  const award = async (template: { id: string }, email: string) => {
    const b = await api(
      "POST",
      `/organizations/${org.id}/badges`,
      org.auth,
      issueBody(template.id, { recipient_email: email }),
    );
    await trpc(laurel, "badges.accept", { badge_id: b.body.data.id });
  };
  // Ada holds the saw's badge before the pathway exists.
  await award(saw, "ada@example.org");

  const dialogs: string[] = [];
  const admin = await signedIn(org.id, "admin@joinery.example", "admin");
  admin.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await admin.goto(`${laurel.origin}/console/${org.id}`);
  await flows.click(admin, "", "a.console-link:has-text('Pathways')");
  await admin.waitForSelector("h1:has-text('Pathways')");
  t.match(await admin.textContent("main"), "No pathways yet.");
  await look(t, admin, "pathways-empty");

  await flows.click(admin, "", "a:has-text('New pathway')");
  t.equal(
    await admin.locator("#pathway-completion option").count(),
    5,
    "the completion offers the active templates (a draft is not offered)",
  );
  await admin.fill("#pathway-name", `Cabinet maker ${HOSTILE}`);
  await admin.fill("#pathway-description", "From the first cut to the finish");
  await admin.selectOption("#pathway-completion", master.id);
  await admin.fill("#m0-name", "Cutting");
  await admin.check(`input[name=m0_templates][value="${saw.id}"]`);
  await admin.check(`input[name=m0_templates][value="${lathe.id}"]`);
  await admin.fill("#m0-required", "3");
  await admin.fill("#m1-name", "Finishing");
  await admin.check(`input[name=m1_templates][value="${varnish.id}"]`);
  await admin.check("input[name=recommend_next]");
  await look(t, admin, "pathway-new");
  await flows.click(admin, "Create pathway");
  t.match(
    await admin.textContent("[role=alert]"),
    /the required of milestone 1 must be between 1 and the milestone's 2 templates/,
    "core's refusal, naming the milestone in words",
  );
  t.equal(await admin.inputValue("#pathway-name"), `Cabinet maker ${HOSTILE}`, "the name is kept");
  t.equal(await admin.inputValue("#m0-required"), "3", "the count is kept");
  t.ok(await admin.isChecked(`input[name=m0_templates][value="${lathe.id}"]`), "the ticks are kept");
  t.equal(await admin.inputValue("#pathway-completion"), master.id, "the completion is kept");
  await look(t, admin, "pathway-refused");

  await admin.fill("#m0-required", "1");
  await flows.click(admin, "Create pathway");
  t.match(await admin.textContent("[role=status]"), /created as a draft/);
  t.equal(await admin.textContent("h1"), `Cabinet maker ${HOSTILE}`, "the hostile name is text");
  const id = /\/pathways\/([0-9a-f-]{36})/.exec(admin.url())?.[1] ?? "";
  const got = await api("GET", `/organizations/${org.id}/pathways/${id}`, org.auth);
  const sorted = (ids: string[]) => [...ids].sort();
  t.same(
    got.body.data.milestones.map((m: { name: string; badge_template_ids: string[]; required: number }) => ({
      ...m,
      badge_template_ids: sorted(m.badge_template_ids),
    })),
    [
      { name: "Cutting", badge_template_ids: sorted([saw.id, lathe.id]), required: 1 },
      { name: "Finishing", badge_template_ids: [varnish.id], required: 1 },
    ],
    "as the API reads it (the empty rows ignored, an empty count is all)",
  );
  t.equal(got.body.data.state, "draft");
  t.equal(got.body.data.recommend_next, true, "the setting, as the API reads it");

  await flows.click(admin, "", "button:has-text('Publish')");
  t.match(await admin.textContent("[role=status]"), /published/);
  await look(t, admin, "pathway-published");

  await admin.goto(`${laurel.origin}/console/${org.id}/pathways`);
  const row = admin.locator("table tbody tr").first();
  t.same(
    (await row.locator("td").allTextContents()).map((s) => s.trim()),
    [`Cabinet maker ${HOSTILE}`, "Published", "1", "1", "0"],
    "name, state, version, earners, completed",
  );
  await look(t, admin, "pathways-list");

  await flows.click(admin, "", "a[aria-label^='1 earners']");
  t.match(await admin.textContent("main"), "ada@example.org");
  t.match(await admin.textContent("main"), "1 of 2");
  t.match(await admin.textContent("main"), "In progress");
  await look(t, admin, "pathway-earners");

  // Bo's lathe badge accepted makes Finishing his next milestone: its varnish is recommended to him, once, unmailed.
  const recommended = () =>
    laurel.db.all<{ badge_template_id: string; recipient_email_key: string; notified_at: Date | null }>(
      "select badge_template_id, recipient_email_key, notified_at from recommendations where organization_id = ?::uuid order by created_at",
      [org.id],
    );
  await award(lathe, "Bo@Example.org");
  await award(saw, "bo@example.org");
  t.same(
    await recommended(),
    [{ badge_template_id: varnish.id, recipient_email_key: "bo@example.org", notified_at: null }],
    "the next milestone's template, once, to the normalized address, without mail",
  );

  // Her varnish badge accepted completes the pathway: its completion badge is issued.
  await award(varnish, "ada@example.org");
  await admin.reload();
  t.match(await admin.textContent("main"), /Completed/);
  const completions = await laurel.db.all<{ n: number }>(
    "select count(*)::int as n from badges where badge_template_id = ?::uuid",
    [master.id],
  );
  t.equal(completions[0]?.n, 1, "one completion badge");
  t.equal((await recommended()).length, 1, "a completion recommends nothing");

  // The name changes in place; a third milestone makes version 2.
  await admin.goto(`${laurel.origin}/console/${org.id}/pathways/${id}`);
  t.equal(await admin.inputValue("#m0-required"), "1");
  await admin.fill("#pathway-name", "Cabinet maker");
  await flows.click(admin, "Save pathway");
  t.match(await admin.textContent("[role=status]"), /saved/);
  t.match(await admin.textContent("main"), "Version 1");
  await admin.fill("#m2-name", "Turning");
  await admin.check(`input[name=m2_templates][value="${lathe.id}"]`);
  await flows.click(admin, "Save pathway");
  t.match(await admin.textContent("main"), "Version 2");
  t.equal(await admin.inputValue("#m2-name"), "Turning");

  // A viewer reads, and has no form nor buttons.
  const viewer = await signedIn(org.id, "viewer@joinery.example", "viewer");
  await viewer.goto(`${laurel.origin}/console/${org.id}/pathways`);
  t.equal(await viewer.locator("a:has-text('New pathway')").count(), 0, "a viewer cannot create");
  await viewer.goto(`${laurel.origin}/console/${org.id}/pathways/${id}`);
  t.equal(await viewer.locator("#pathway-name").count(), 0, "nor edit");
  t.equal(await viewer.locator("button:has-text('Archive')").count(), 0, "nor archive");
  t.match(await viewer.textContent("main"), "Turning: 1 of Lathe");
  t.match(await viewer.textContent("main"), "Completion badge: Master joiner");
  await look(t, viewer, "pathway-viewer");
  const refused = await viewer.goto(`${laurel.origin}/console/${org.id}/pathways/new`);
  t.equal(refused?.status(), 403);

  // Archiving is asked first.
  await admin.goto(`${laurel.origin}/console/${org.id}/pathways/${id}`);
  await flows.click(admin, "", "button:has-text('Archive')");
  await admin.waitForSelector("h1:has-text('Archive the pathway “Cabinet maker”?')");
  await look(t, admin, "pathway-archive-confirm");
  await flows.click(admin, "Archive pathway");
  t.match(await admin.textContent("[role=status]"), /archived/);
  t.equal(await admin.locator("#pathway-name").count(), 0, "an archived pathway is read only");

  // A draft is deleted after a confirmation.
  await admin.goto(`${laurel.origin}/console/${org.id}/pathways/new`);
  await admin.fill("#pathway-name", "Scratch");
  await admin.selectOption("#pathway-completion", master.id);
  await admin.fill("#m0-name", "One");
  await admin.check(`input[name=m0_templates][value="${saw.id}"]`);
  await flows.click(admin, "Create pathway");
  await flows.click(admin, "", "button:has-text('Delete')");
  await admin.waitForSelector("h1:has-text('Delete the pathway “Scratch”?')");
  await flows.click(admin, "Delete pathway");
  t.match(await admin.textContent("[role=status]"), /deleted/);
  t.equal(await admin.locator("table tbody tr").count(), 1, "the archived one is left");
  t.same(dialogs, [], "no script ran from the name");

  const log = await laurel.db.all<{ action: string }>(
    "select action from audit_log where organization_id = ?::uuid and action like 'pathway.%' order by occurred_at, action",
    [org.id],
  );
  t.same(
    log.map((r) => r.action),
    [
      "pathway.created",
      "pathway.published",
      "pathway.updated",
      "pathway.updated",
      "pathway.archived",
      "pathway.created",
      "pathway.deleted",
    ],
    "audited as the API's changes are",
  );
});

t.test("a grantor's templates are offered as milestones to the organization that issues them", async (t) => {
  const api = apiClient(laurel);
  const grantor = await organization(laurel, "Timber Board");
  const school = await organization(laurel, "Carpentry School");
  const board = await createTemplate(laurel, grantor, { name: "Board certified" });
  const hidden = await createTemplate(laurel, grantor, { name: "Board only" });
  const own = await createTemplate(laurel, school, { name: "School bench" });
  const done = await createTemplate(laurel, school, { name: "School master" });
  const granted = await api("POST", `/organizations/${grantor.id}/issuers`, grantor.auth, {
    issuer_organization_id: school.id,
    badge_template_ids: [board.id],
  });
  await api("PUT", `/organizations/${school.id}/grantors/${granted.body.data.id}/accept`, school.auth);

  const admin = await signedIn(school.id, "admin@carpentry.example", "admin");
  await admin.goto(`${laurel.origin}/console/${school.id}/pathways/new`);
  const offered = `input[name=m0_templates][value="${board.id}"]`;
  t.equal(await admin.locator(offered).count(), 1, "the granted template is offered");
  t.match(await admin.locator(`label:has(${offered})`).textContent(), "Board certified (for Timber Board)");
  t.equal(await admin.locator(`input[value="${hidden.id}"]`).count(), 0, "a template not granted is not");
  t.equal(
    await admin.locator(`#pathway-completion option[value="${board.id}"]`).count(),
    0,
    "nor is it a completion badge",
  );
  await admin.fill("#pathway-name", "Board route");
  await admin.selectOption("#pathway-completion", done.id);
  await admin.fill("#m0-name", "Certified");
  await admin.check(offered);
  await admin.fill("#m1-name", "Bench");
  await admin.check(`input[name=m1_templates][value="${own.id}"]`);
  await flows.click(admin, "Create pathway");
  t.match(await admin.textContent("[role=status]"), /created/);
  await look(t, admin, "pathway-grantor-template");
  const listed = await api("GET", `/organizations/${school.id}/pathways`, school.auth);
  t.same(
    listed.body.data[0].milestones.map((m: { badge_template_ids: string[] }) => m.badge_template_ids),
    [[board.id], [own.id]],
    "saved with the grantor's template",
  );
});
