import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { look, startBrowserLaurel } from "../support/console.ts";

/**
 * Pathways on the pages, in Chromium: the public page of a published pathway (its organization,
 * its milestones in order with "N of M required" and their templates' pictures, the completion
 * badge; nobody's progress), a draft's or an unknown id's the 404 page, the organization's page
 * linking its published ones; the wallet's "Your pathways" (each pathway the earner started,
 * milestones done or not, what is next, a completed one marked, one they hold nothing of absent);
 * hostile names shown as text; axe and screenshots at phone and desktop width.
 */
const HOSTILE = '"><img src=x onerror=alert(1)>';
const { laurel, browser, flows } = await startBrowserLaurel(t);

t.test("a pathway's public page and the earner's progress on the wallet", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, "Forge Academy");
  const [safety, w1, w2, w3, master, extra] = await Promise.all(
    ["Workshop safety", "Welding I", `Welding II ${HOSTILE}`, "Welding III", "Master welder", "Safety champion"].map(
      (name) => createTemplate(laurel, org, { name, description: `${name}, assessed in the workshop` }),
    ),
  );
  const base = `/organizations/${org.id}/pathways`;
  const create = async (body: Record<string, unknown>, publish = true): Promise<string> => {
    const made = await api("POST", base, org.auth, body);
    t.equal(made.status, 201, JSON.stringify(made.body));
    const id: string = made.body.data.id;
    if (publish) t.equal((await api("PUT", `${base}/${id}/publish`, org.auth)).status, 200);
    return id;
  };
  const welder = await create({
    name: `Certified welder ${HOSTILE}`,
    description: "From the first day in the workshop to a master's joints.",
    completion_badge_template_id: master.id,
    milestones: [
      { name: "Basics", badge_template_ids: [safety.id] },
      { name: `Practice ${HOSTILE}`, badge_template_ids: [w1.id, w2.id, w3.id], required: 2 },
      { name: "Mastery", badge_template_ids: [w3.id] },
    ],
  });
  const short = await create({
    name: "Safety first",
    completion_badge_template_id: extra.id,
    milestones: [{ name: "Safety", badge_template_ids: [safety.id] }],
  });
  const untouched = await create({
    name: "Advanced joints",
    completion_badge_template_id: master.id,
    milestones: [{ name: "Joints", badge_template_ids: [w3.id] }],
  });
  const draft = await create(
    {
      name: "Not yet",
      completion_badge_template_id: master.id,
      milestones: [{ name: "Joints", badge_template_ids: [w1.id] }],
    },
    false,
  );

  // Grace holds Safety (done: Basics; and all of "Safety first") and Welding I (1 of 2 of Practice).
  for (const tpl of [safety, w1]) {
    const issued = await api("POST", `/organizations/${org.id}/badges`, org.auth, {
      ...issueBody(tpl.id, { recipient_email: "grace@example.org" }),
      issued_to_first_name: "Grace",
      issued_to_last_name: "Hopper",
    });
    t.equal(issued.status, 201);
    await trpc(laurel, "badges.accept", { badge_id: issued.body.data.id });
  }

  const dialogs: string[] = [];
  const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const anon = await visitor.newPage();
  anon.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });

  // The public anon, signed out.
  const res = await anon.goto(`${laurel.origin}/pathways/${welder}`);
  t.equal(res?.status(), 200);
  t.equal(await anon.locator("h1").textContent(), `Certified welder ${HOSTILE}`, "the name as written");
  const orgLink = anon.locator(`a[href="/organizations/${org.id}"]`);
  t.equal(await orgLink.textContent(), "Forge Academy", "the organization, linked");
  const cards = anon.locator(".pw-milestone");
  t.equal(await cards.count(), 3, "each milestone");
  t.same(await cards.locator("h2").allTextContents(), ["Basics", `Practice ${HOSTILE}`, "Mastery"], "in order");
  t.match(await cards.nth(1).textContent(), "2 of 3 required");
  t.same(
    await cards.nth(1).locator(".pw-template span").allTextContents(),
    ["Welding I", `Welding II ${HOSTILE}`, "Welding III"],
    "its templates by name",
  );
  t.equal(await cards.nth(1).locator(".pw-template img").count(), 3, "with their pictures");
  t.ok(await cards.nth(1).locator(".pw-template img").first().getAttribute("src"));
  t.match(await anon.locator(".pw-completion").textContent(), "Master welder", "the completion badge");
  const text = (await anon.textContent("main")) ?? "";
  t.notMatch(text, /grace|Hopper/i, "nobody's progress or name");
  t.equal(await anon.locator("img[src=x]").count(), 0, "no markup of theirs");
  await look(t, anon, "pathway", "public");

  // The organization's page lists its published pathways, each linked; not the draft.
  await anon.goto(`${laurel.origin}/organizations/${org.id}`);
  const listed = anon.locator("section:has(#pathways-h) h3 a");
  t.same(
    (await listed.evaluateAll((as) => as.map((a) => a.getAttribute("href")))).sort(),
    [welder, short, untouched].map((id) => `/pathways/${id}`).sort(),
    "the published pathways, linked; not the draft",
  );
  t.equal(await anon.locator("img[src=x]").count(), 0, "no markup of theirs");
  await look(t, anon, "organization-pathways", "public");

  for (const id of [draft, "00000000-0000-4000-8000-000000000000"]) {
    const missing = await anon.goto(`${laurel.origin}/pathways/${id}`);
    t.equal(missing?.status(), 404, "a draft or an unknown pathway is not found");
  }
  t.equal((await anon.goto(`${laurel.origin}/pathways/not-an-id`))?.status(), 404);
  await visitor.close();

  // The wallet.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await flows.signIn(context, "grace@example.org");
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${laurel.origin}/wallet`);
  const section = page.locator("#pathways");
  t.equal(await section.locator("h2").textContent(), "Your pathways");
  t.equal(await section.locator(`[data-pathway="${untouched}"]`).count(), 0, "one she holds nothing of: absent");
  const mine = section.locator(`[data-pathway="${welder}"]`);
  t.equal(await mine.locator("h3").textContent(), `Certified welder ${HOSTILE}`);
  t.equal(await mine.locator("h3 a").getAttribute("href"), `/pathways/${welder}`, "linked to its page");
  t.match(await mine.locator(".tag").textContent(), "1 of 3 done");
  t.same(
    (await mine.locator(".pw-steps li").allTextContents()).map((s) => s.replace(/\s+/g, " ").trim()),
    ["✓Basics done", `○Practice ${HOSTILE} 1 of 2 held`, "○Mastery 0 of 1 held"],
    "each milestone done or not",
  );
  t.same(
    await mine.locator(".pw-templates .pw-template span").allTextContents(),
    [`Welding II ${HOSTILE}`, "Welding III"],
    "what is next: the templates not held of the milestones not done",
  );
  const done = section.locator(`[data-pathway="${short}"]`);
  t.equal(await done.locator(".tag").textContent(), "Completed", "a completed pathway marked");
  t.equal(await done.locator(".pw-templates").count(), 0, "nothing next");
  t.same(
    await section.locator("[data-pathway]").evaluateAll((els) => els.map((e) => e.getAttribute("data-pathway"))),
    [welder, short],
    "unfinished first",
  );
  t.equal(await page.locator("img[src=x]").count(), 0, "no markup of theirs");
  await page.locator("#pathways").scrollIntoViewIfNeeded();
  await look(t, page, "pathways", "wallet");
  t.same(dialogs, [], "nothing ran");
  await context.close();
});
