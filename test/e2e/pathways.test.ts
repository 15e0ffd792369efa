import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * Pathways over REST: created as drafts (each problem named by its field), changed in place while
 * a draft, published (the earners' progress starts from the badges they accepted), changed only by
 * a new version once published (the earners keep what they held), archived; only a draft deleted;
 * the earners' progress read page by page and for one recipient; another organization's is 404.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

// biome-ignore lint/suspicious/noExplicitAny: REST bodies
type Json = any;

t.test("create, validate, publish, version, read the earners, archive, delete", async (t) => {
  const org = await organization(laurel, "Forge Academy");
  const other = await organization(laurel, "Elsewhere");
  const [a, b, c, d, done] = await Promise.all(
    ["Safety", "Welding I", "Welding II", "Welding III", "Master welder"].map((name) =>
      createTemplate(laurel, org, { name }),
    ),
  );
  const draft = await createTemplate(laurel, org, { name: "Draft", state: "draft" });
  const foreign = await createTemplate(laurel, other, { name: "Theirs" });
  const base = `/organizations/${org.id}/pathways`;

  const refused = await api("POST", base, org.auth, {
    name: "Welder",
    completion_badge_template_id: draft.id,
    milestones: [
      { name: "Basics", badge_template_ids: [a.id, foreign.id] },
      { name: "Practice", badge_template_ids: [b.id, c.id], required: 3 },
    ],
  });
  t.equal(refused.status, 422, JSON.stringify(refused.body));
  t.same(
    refused.body.data.errors.map((e: { field: string }) => e.field),
    ["milestones[0].badge_template_ids[1]", "milestones[1].required", "completion_badge_template_id"],
    "each problem named by its field",
  );
  const tooMany = await api("POST", base, org.auth, {
    name: "Welder",
    completion_badge_template_id: done.id,
    milestones: Array.from({ length: 21 }, (_, i) => ({ name: `M${i}`, badge_template_ids: [a.id] })),
  });
  t.equal(tooMany.status, 422, "at most 20 milestones");

  // Someone holds a milestone badge before the pathway exists: an accepted one counts, a pending one not.
  const early = await api("POST", `/organizations/${org.id}/badges`, org.auth, issueBody(a.id));
  t.equal(early.status, 201);
  await trpc(laurel, "badges.accept", { badge_id: early.body.data.id });
  const pending = await api(
    "POST",
    `/organizations/${org.id}/badges`,
    org.auth,
    issueBody(a.id, { recipient_email: "pending@example.org" }),
  );
  t.equal(pending.status, 201);

  const made = await api("POST", base, org.auth, {
    name: "Welder",
    description: "From safety to mastery",
    completion_badge_template_id: done.id,
    milestones: [
      { name: "Basics", badge_template_ids: [a.id] },
      { name: "Practice", badge_template_ids: [b.id, c.id, d.id], required: 2 },
    ],
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const p: Json = made.body.data;
  t.match(p, {
    state: "draft",
    version: 1,
    completion_badge_template_id: done.id,
    milestones: [
      { name: "Basics", badge_template_ids: [a.id], required: 1 },
      { name: "Practice", required: 2 },
    ],
    published_at: null,
  });
  t.equal(made.headers.get("location"), `${laurel.baseUrl}${base}/${p.id}`);
  const item = `${base}/${p.id}`;

  const edited = await api("PUT", item, org.auth, { name: "Welder path" });
  t.match(edited.body.data, { name: "Welder path", version: 1, state: "draft" }, "a draft changes in place");
  t.same((await api("GET", item, org.auth)).body.data, edited.body.data, "read back as changed");
  t.equal((await api("GET", `/organizations/${other.id}/pathways/${p.id}`, other.auth)).status, 404);
  t.equal((await api("GET", item, other.auth)).status, 403, "another organization's credential");

  t.same((await api("GET", `${item}/earners`, org.auth)).body.data, [], "a draft has no earners yet");
  const published = await api("PUT", `${item}/publish`, org.auth);
  t.equal(published.status, 200, JSON.stringify(published.body));
  t.match(published.body.data, { state: "published", version: 1 });
  t.ok(published.body.data.published_at);
  t.equal((await api("PUT", `${item}/publish`, org.auth)).status, 422, "published once");
  t.equal((await api("DELETE", item, org.auth)).status, 422, "a published pathway is archived, not deleted");

  const earners = await api("GET", `${item}/earners`, org.auth);
  t.equal(earners.status, 200, JSON.stringify(earners.body));
  t.same(earners.body.metadata.total_count, 1, "the accepted badge counts; the pending one does not");
  t.match(earners.body.data[0], {
    recipient_email: "ada@example.org",
    state: "in_progress",
    pathway_version: 1,
    milestones: [
      { name: "Basics", held: 1, required: 1, done: true },
      { name: "Practice", held: 0, required: 2, done: false },
    ],
    milestones_done: 1,
    held_badge_template_ids: [a.id],
    completed_at: null,
    completion_badge_id: null,
  });
  const one = await api("GET", `${item}/earners?recipient_email=ADA@example.org`, org.auth);
  t.equal(one.body.data.length, 1, "one recipient's progress by address, any case");
  t.same((await api("GET", `${item}/earners?recipient_email=nobody@example.org`, org.auth)).body.data, []);
  t.equal((await api("GET", `${item}/earners?state=completed`, org.auth)).body.data.length, 0);
  t.equal((await api("GET", `${item}/earners?filter[colour]=red`, org.auth)).status, 400, "an unknown filter key");

  // A published pathway's milestones change only by its next version; the earner keeps what they held.
  const renamed = await api("PUT", item, org.auth, { description: "Now with a capstone" });
  t.match(renamed.body.data, { version: 1, description: "Now with a capstone" }, "words change in place");
  const next = await api("PUT", item, org.auth, {
    milestones: [
      { name: "Basics", badge_template_ids: [a.id] },
      { name: "Capstone", badge_template_ids: [d.id] },
    ],
  });
  t.equal(next.status, 200, JSON.stringify(next.body));
  t.match(next.body.data, { version: 2, state: "published" }, "the next version");
  const kept = await api("GET", `${item}/earners`, org.auth);
  t.match(kept.body.data[0], { pathway_version: 2, milestones_done: 1, held_badge_template_ids: [a.id] });

  const archived = await api("PUT", `${item}/archive`, org.auth);
  t.match(archived.body.data, { state: "archived", version: 2 });
  t.equal((await api("PUT", item, org.auth, { name: "x" })).status, 422, "an archived pathway does not change");
  t.equal((await api("PUT", `${item}/archive`, org.auth)).status, 422);
  t.equal((await api("GET", `${base}?state=archived`, org.auth)).body.metadata.total_count, 1);

  const scrap = await api("POST", base, org.auth, {
    name: "Scrap",
    completion_badge_template_id: done.id,
    milestones: [{ name: "Only", badge_template_ids: [b.id] }],
  });
  t.equal((await api("DELETE", `${base}/${scrap.body.data.id}`, org.auth)).status, 204, "a draft is deleted");
  t.equal((await api("GET", `${base}/${scrap.body.data.id}`, org.auth)).status, 404);
  t.equal((await api("GET", base, org.auth)).body.metadata.total_count, 1);
});

t.test(
  "progress kept as badges are accepted and revoked; the completion badge issued once, also when the last two acceptances race",
  async (t) => {
    const org = await organization(laurel, "Guild of Makers");
    const [a, b, c, d, e, done] = await Promise.all(
      ["Safety", "Saw", "Lathe", "Mill", "Capstone", "Master maker"].map((name) =>
        createTemplate(laurel, org, { name }),
      ),
    );
    const base = `/organizations/${org.id}/pathways`;
    const made = await api("POST", base, org.auth, {
      name: "Maker",
      completion_badge_template_id: done.id,
      milestones: [
        { name: "Basics", badge_template_ids: [a.id] },
        { name: "Machines", badge_template_ids: [b.id, c.id, d.id], required: 2 },
        { name: "Capstone", badge_template_ids: [e.id] },
      ],
    });
    t.equal(made.status, 201, JSON.stringify(made.body));
    const item = `${base}/${made.body.data.id}`;
    t.equal((await api("PUT", `${item}/publish`, org.auth)).status, 200);
    const issue = async (template: { id: string }, email: string) => {
      const res = await api(
        "POST",
        `/organizations/${org.id}/badges`,
        org.auth,
        issueBody(template.id, { recipient_email: email }),
      );
      t.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    };
    const accept = (badgeId: string) => trpc(laurel, "badges.accept", { badge_id: badgeId });
    const progress = async (email: string): Promise<Json> =>
      (await api("GET", `${item}/earners?recipient_email=${encodeURIComponent(email)}`, org.auth)).body.data[0];
    const completionBadges = async (email: string): Promise<Json[]> =>
      (
        await api(
          "GET",
          `/organizations/${org.id}/badges?badge_template_id=${done.id}&recipient_email=${encodeURIComponent(email)}&per=100`,
          org.auth,
        )
      ).body.data;

    // In any order: the capstone first, then a machine; a pending badge counts for nothing yet.
    const ada = "ada@example.org";
    const capstone = await issue(e, ada);
    t.equal(await progress(ada), undefined, "a pending badge is no progress");
    await accept(capstone);
    t.match(await progress(ada), { milestones_done: 1, state: "in_progress" });
    const saw = await issue(b, ada);
    await accept(saw);
    t.match(await progress(ada), {
      milestones: [{ held: 0 }, { held: 1, done: false }, { held: 1, done: true }],
      milestones_done: 1,
    });
    const lathe = await issue(c, ada);
    await accept(lathe);
    t.match(await progress(ada), { milestones_done: 2, milestones: [{ done: false }, { held: 2, done: true }, {}] });

    // Revoking a milestone badge before completion moves the progress back.
    const revoked = await api("PUT", `/organizations/${org.id}/badges/${lathe}/revoke`, org.auth, {
      reason: "Mistake",
    });
    t.equal(revoked.status, 200, JSON.stringify(revoked.body));
    t.match(await progress(ada), { milestones_done: 1, milestones: [{}, { held: 1, done: false }, {}] }, "moved back");
    t.same(await completionBadges(ada), []);

    const mill = await issue(d, ada);
    const safety = await issue(a, ada);
    await accept(mill);
    t.same(await completionBadges(ada), [], "not complete before the last milestone");
    await accept(safety);
    const after = await progress(ada);
    t.match(after, { state: "completed", milestones_done: 3 });
    t.ok(after.completed_at);
    const [completion, ...more] = await completionBadges(ada);
    t.same(more, [], "one completion badge");
    t.equal(after.completion_badge_id, completion.id, "the progress names it");
    t.match(completion, { state: "pending", recipient_email: ada, badge_template: { id: done.id } });
    const events = await api("GET", `/organizations/${org.id}/events?per=100`, org.auth);
    const created = events.body.data.filter(
      (ev: Json) => ev.event_type === "badge.created" && ev.badge?.id === completion.id,
    );
    t.equal(created.length, 1, "its badge.created event");
    // The event's standard shape has no field for it: the badge's evidence says where it came from.
    t.match(
      completion.evidence,
      [{ name: "Pathway completed: Maker", description: new RegExp(made.body.data.id) }],
      "the badge says it came from the pathway (its evidence)",
    );

    // The last two acceptances at the same moment: one completion badge.
    for (const [i, email] of ["race1@example.org", "race2@example.org", "race3@example.org"].entries()) {
      const first = await issue(a, email);
      await accept(first);
      const x = await issue(b, email);
      const y = await issue(i === 2 ? c : d, email);
      const z = await issue(e, email);
      await accept(x);
      const [one, two] = await Promise.all([accept(y), accept(z)]);
      t.ok(one && two, "both accepted");
      const got = await completionBadges(email);
      t.equal(got.length, 1, `${email}: exactly one completion badge`);
      t.match(await progress(email), { state: "completed", completion_badge_id: got[0]?.id });
    }
    const completed = await api("GET", `${item}/earners?state=completed`, org.auth);
    t.equal(completed.body.metadata.total_count, 4);

    // After completion, a revoked milestone badge moves the progress back; the completion stays.
    t.equal(
      (await api("PUT", `/organizations/${org.id}/badges/${saw}/revoke`, org.auth, { reason: "Redo" })).status,
      200,
    );
    t.match(await progress(ada), { state: "completed", milestones_done: 2 });
    t.equal((await completionBadges(ada)).length, 1, "never issued twice");
  },
);

t.test("earners complete at publication, or at a new version, get their completion badge then, once", async (t) => {
  const org = await organization(laurel, "Early Birds");
  const [x, y, done] = await Promise.all(
    ["First", "Second", "Both"].map((name) => createTemplate(laurel, org, { name })),
  );
  const accepted = async (template: { id: string }, email: string) => {
    const res = await api(
      "POST",
      `/organizations/${org.id}/badges`,
      org.auth,
      issueBody(template.id, { recipient_email: email }),
    );
    t.equal(res.status, 201, JSON.stringify(res.body));
    await trpc(laurel, "badges.accept", { badge_id: res.body.data.id });
  };
  await accepted(x, "both@example.org");
  await accepted(y, "both@example.org");
  await accepted(x, "half@example.org");
  const base = `/organizations/${org.id}/pathways`;
  const made = await api("POST", base, org.auth, {
    name: "Early",
    completion_badge_template_id: done.id,
    milestones: [
      { name: "One", badge_template_ids: [x.id] },
      { name: "Two", badge_template_ids: [y.id] },
    ],
  });
  const item = `${base}/${made.body.data.id}`;
  const completions = async () =>
    (await api("GET", `/organizations/${org.id}/badges?badge_template_id=${done.id}&per=100`, org.auth)).body.data.map(
      (b: Json) => b.recipient_email,
    );
  t.equal((await api("PUT", `${item}/publish`, org.auth)).status, 200);
  t.same(await completions(), ["both@example.org"], "complete at publication: its badge issued");
  const earners = (await api("GET", `${item}/earners?state=completed`, org.auth)).body.data;
  t.match(earners, [{ recipient_email: "both@example.org", completion_badge_id: /./ }]);

  const next = await api("PUT", item, org.auth, { milestones: [{ name: "One", badge_template_ids: [x.id] }] });
  t.match(next.body.data, { version: 2 });
  t.same((await completions()).sort(), ["both@example.org", "half@example.org"], "complete at the new version");
  t.equal((await api("GET", `${item}/earners?state=completed`, org.auth)).body.metadata.total_count, 2);
});

t.test(
  "milestones may name a grantor's templates: its badges count where the pathway's organization issued them",
  async (t) => {
    const grantor = await organization(laurel, "Grantor Guild");
    const issuer = await organization(laurel, "Partner School");
    const theirs = await createTemplate(laurel, grantor, { name: "Guild safety" });
    const notGranted = await createTemplate(laurel, grantor, { name: "Guild secret" });
    const own = await createTemplate(laurel, issuer, { name: "School practice" });
    const done = await createTemplate(laurel, issuer, { name: "School graduate" });
    const base = `/organizations/${issuer.id}/pathways`;
    const body = (ids: string[], completion = done.id) => ({
      name: "Guild path",
      completion_badge_template_id: completion,
      milestones: [
        { name: "Safety", badge_template_ids: ids },
        { name: "Practice", badge_template_ids: [own.id] },
      ],
    });
    const fields = (res: { body: Json }) => res.body.data.errors.map((e: { field: string }) => e.field);

    const before = await api("POST", base, issuer.auth, body([theirs.id]));
    t.equal(before.status, 422, "no authorization: the grantor's template is not the issuer's to name");
    t.same(fields(before), ["milestones[0].badge_template_ids[0]"]);
    const granted = await api("POST", `/organizations/${grantor.id}/issuers`, grantor.auth, {
      issuer_organization_id: issuer.id,
      badge_template_ids: [theirs.id],
    });
    t.equal(granted.status, 201);
    t.equal((await api("POST", base, issuer.auth, body([theirs.id]))).status, 422, "not while pending");
    const accepted = await api(
      "PUT",
      `/organizations/${issuer.id}/grantors/${granted.body.data.id}/accept`,
      issuer.auth,
    );
    t.equal(accepted.status, 200);
    t.same(fields(await api("POST", base, issuer.auth, body([notGranted.id]))), [
      "milestones[0].badge_template_ids[0]",
    ]);
    t.same(
      fields(await api("POST", base, issuer.auth, body([own.id], theirs.id))),
      ["completion_badge_template_id"],
      "the completion badge is the organization's own",
    );
    const refusedForGrantor = await api("POST", `/organizations/${grantor.id}/pathways`, grantor.auth, {
      ...body([theirs.id]),
      completion_badge_template_id: theirs.id,
    });
    t.equal(refusedForGrantor.status, 422, "the grantor may not name the issuer's templates");

    // Before publication: one badge of the grantor's template issued by the partner, one by the grantor itself.
    const issue = async (org: typeof issuer, templateId: string, email: string) => {
      const res = await api(
        "POST",
        `/organizations/${org.id}/badges`,
        org.auth,
        issueBody(templateId, { recipient_email: email }),
      );
      t.equal(res.status, 201, JSON.stringify(res.body));
      await trpc(laurel, "badges.accept", { badge_id: res.body.data.id });
      return res.body.data.id as string;
    };
    await issue(issuer, theirs.id, "early@example.org");
    await issue(grantor, theirs.id, "guild-only@example.org");
    const made = await api("POST", base, issuer.auth, body([theirs.id]));
    t.equal(made.status, 201, JSON.stringify(made.body));
    const item = `${base}/${made.body.data.id}`;
    t.equal((await api("PUT", `${item}/publish`, issuer.auth)).status, 200);
    const earners = async () =>
      Object.fromEntries(
        (await api("GET", `${item}/earners?per=100`, issuer.auth)).body.data.map((e: Json) => [
          e.recipient_email,
          e.milestones.map((m: Json) => m.done),
        ]),
      );
    t.same(await earners(), { "early@example.org": [true, false] }, "seeded from the partner's own issues only");

    // After publication: accepted badges of each issuer.
    await issue(issuer, theirs.id, "ada@example.org");
    await issue(grantor, theirs.id, "grace@example.org");
    t.same(
      await earners(),
      { "early@example.org": [true, false], "ada@example.org": [true, false] },
      "the grantor's own badge to grace is not in the partner's records, so not in its pathway",
    );
    // Grace also earns the partner's template: her progress starts there, without the grantor's badge.
    await issue(issuer, own.id, "grace@example.org");
    t.same((await earners())["grace@example.org"], [false, true]);
    // Ada completes: the completion badge is the partner's.
    await issue(issuer, own.id, "ada@example.org");
    const completed = await api("GET", `${item}/earners?state=completed`, issuer.auth);
    t.match(completed.body.data, [{ recipient_email: "ada@example.org", completion_badge_id: /./ }]);
    const completion = await api(
      "GET",
      `/organizations/${issuer.id}/badges/${completed.body.data[0].completion_badge_id}`,
      issuer.auth,
    );
    t.equal(completion.status, 200, "the completion badge is in the partner's own records");
    t.equal(completion.body.data.badge_template.id, done.id);

    // Revoked by the grantor (whose badge it is): the partner's pathway lets the milestone go for early.
    const early = (
      await api("GET", `/organizations/${grantor.id}/badges?filter=recipient_email::early@example.org`, grantor.auth)
    ).body.data[0].id;
    const revoked = await api("PUT", `/organizations/${grantor.id}/badges/${early}/revoke`, grantor.auth, {
      reason: "Withdrawn",
    });
    t.equal(revoked.status, 200, JSON.stringify(revoked.body));
    t.same((await earners())["early@example.org"], [false, false], "progress moved back");
  },
);
