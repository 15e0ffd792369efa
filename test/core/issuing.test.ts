import t from "tap";
import { renderMail } from "../../adapters/mail/mod.ts";
import type { AuditRecord } from "../../core/audit/mod.ts";
import {
  type BadgeRecord,
  type BadgeTemplateRecord,
  checkIssuedAtNotFuture,
  checkTemplateDeletable,
  ISSUED_AT_FUTURE_TOLERANCE_MS,
  newTemplateRecord,
  type OrganizationRef,
  templateChanged,
} from "../../core/badges/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import {
  type BadgeStore,
  type BadgeTx,
  deleteBadge,
  type Earner,
  earnerDecision,
  type IssueLookup,
  type IssuingContext,
  type IssuingDeps,
  issueBadge,
  newUserRecord,
  notificationKind,
  type PathwayStep,
  pendingBadgeContent,
  replaceBadge,
  revokeBadge,
  userJson,
} from "../../core/issuing/mod.ts";
import type { OutboxMail } from "../../core/mail/mod.ts";

/** The CoreError a check throws, or null when it passes. */
const refusal = (run: () => void): CoreError | null => {
  const result = resultOf(run);
  return result.ok ? null : result.error;
};

const NOW = new Date("2024-06-01T12:00:00.000Z");
const org: OrganizationRef = {
  id: "11111111-1111-4111-8111-111111111111",
  name: "Acme <Labs>",
  website_url: null,
  image_url: null,
  description: null,
  email: null,
};
const template: BadgeTemplateRecord = {
  ...newTemplateRecord(
    { name: "Rust & C", description: "Systems", state: "active" },
    { id: "22222222-2222-4222-8222-222222222222", organization_id: org.id, now: NOW },
  ),
};

let counter = 0;
const ctx = (): IssuingContext => ({
  now: NOW,
  newId: () => `00000000-0000-4000-8000-${String(++counter).padStart(12, "0")}`,
  newEventId: () => `00000000-0000-7000-8000-${String(++counter).padStart(12, "0")}`,
  newSalt: () => "salt",
});

/** An in-memory store whose insert can be told to answer as the database would under a race. */
/** Tokens counted up, digests marked, so a test can tell a token from its stored form. */
const fakeAcceptTokens = () => {
  let n = 0;
  return {
    newToken: () => `tok-${++n}`,
    digest: (token: string) => `digest(${token})`,
    equal: (a: string, b: string) => a === b,
  };
};

const fakeStore = (
  lookup: Partial<IssueLookup>,
  insertAnswer: "inserted" | "duplicate" | "template_gone" = "inserted",
) => {
  const badges = new Map<string, BadgeRecord>();
  const events: EventRecord[] = [];
  const outbox: OutboxMail[] = [];
  const audits: AuditRecord[] = [];
  const tx: BadgeTx = {
    issueLookup: async () => ({
      template,
      issuer: org,
      earner: null,
      hasLiveBadge: false,
      subjects: { account: null, address: null, fresh: "5f0c1c2e-7a41-4b8e-9d3a-2f6b8c9d0e1f" },
      ...lookup,
    }),
    insertBadge: async (b, _key, _exclusive, written, mails = []) => {
      if (insertAnswer !== "inserted") return insertAnswer;
      badges.set(b.id, b);
      events.push(...written);
      outbox.push(...mails);
      return insertAnswer;
    },
    grantsFor: async () => ({ grants: [], issuer: null }),
    holdTemplate: async () => [],
    releaseTemplate: async () => {},
    uncompletedProgress: async () => [],
    recommendTemplates: async () => {},
    recordCompletion: async () => false,
    inTransaction: (work) => work(tx),
    lockBadge: async (_org, id) => {
      const badge = badges.get(id);
      return badge ? { badge, template, issuer: org } : null;
    },
    updateBadge: async (b) => {
      badges.set(b.id, b);
    },
    deleteBadge: async (id) => {
      badges.delete(id);
    },
    setAcceptToken: async () => {},
    enqueueMails: async (mails) => {
      outbox.push(...mails);
    },
    insertTemplate: async () => "inserted",
    lockTemplate: async () => null,
    updateTemplate: async () => "updated",
    deleteTemplate: async () => {},
    insertUser: async () => "inserted",
    linkBadges: async () => 0,
    connectedOrganizations: async () => [],
    connectedHolders: async () => [],
    appendEvents: async (e) => {
      events.push(...e);
    },
    appendAudit: async (a) => {
      audits.push(...a);
    },
    // Nobody is an employee here: no employer follows these badges.
    employment: {
      confirmedOwners: async () => new Map(),
      confirmedKeys: async () => [],
      lockForAccount: async () => [],
      lockRecord: async () => null,
      employers: async () => [],
      heldBadges: async () => [],
      saveConnections: async () => {},
      appendEvents: async () => {},
    },
  };
  const store: BadgeStore = {
    // Rolls back what the unit of work wrote when it throws, like a database transaction.
    transaction: async (work) => {
      const saved = new Map(badges);
      const savedEvents = events.length;
      try {
        return await work(tx);
      } catch (err) {
        badges.clear();
        for (const [k, v] of saved) badges.set(k, v);
        events.length = savedEvents;
        throw err;
      }
    },
    issueLookup: tx.issueLookup,
    insertBadge: tx.insertBadge,
    grantsFor: tx.grantsFor,
    inTransaction: (work) => store.transaction(work),
    listTemplates: async () => ({ items: [], total: 0 }),
    getTemplate: async () => null,
    listBadges: async () => ({ items: [], total: 0 }),
    badgeFeed: async () => [],
    getBadge: async () => null,
    getUser: async () => null,
    appendEvents: async (e) => {
      events.push(...e);
    },
  };
  const deps: IssuingDeps = {
    store,
    urls: { publicBase: "https://laurel.example" },
    acceptTokens: fakeAcceptTokens(),
  };
  return { deps, badges, events, outbox, audits, tx };
};

const body = {
  badge_template_id: template.id,
  issued_at: "2024-05-01T10:00:00+02:00",
  issued_to_first_name: "Ada",
  issued_to_last_name: "Lovelace",
  recipient_email: "ada@example.org",
};

t.test("notification kind from the account owning the address", (t) => {
  const cases: [Earner | null, string][] = [
    [null, "pending_badge_notification.no_user.sent"],
    [{ user_id: "u", email_confirmed: true }, "pending_badge_notification.sent"],
    [{ user_id: "u", email_confirmed: false }, "pending_badge_notification.unconfirmed_email.sent"],
  ];
  for (const [earner, kind] of cases) t.equal(notificationKind(earner), kind, JSON.stringify(earner));
  t.end();
});

t.test("the pending-badge mail: accept link, issuer and template, HTML escaped", async (t) => {
  const { deps } = fakeStore({});
  const issued = await issueBadge(deps, ctx(), org.id, body);
  const m = renderMail(pendingBadgeContent(issued.view, "pending_badge_notification.no_user.sent", deps.urls, "tok-1"));
  const link = `https://laurel.example/badges/${issued.view.badge.id}/accept?token=tok-1`;
  t.equal(m.to, "ada@example.org");
  t.equal(m.subject, "Acme <Labs> sent you a badge: Rust & C");
  t.ok(m.text.includes(link));
  t.ok(m.html.includes(`href="${link}"`));
  t.ok(m.html.includes("Acme &lt;Labs>") && m.html.includes("Rust &amp; C"), "HTML escaped");
  t.notOk(m.html.includes("<Labs>"));
  t.end();
});

t.test("issue: the store's race answers become 422s and nothing is kept", async (t) => {
  for (const [answer, message] of [
    ["duplicate", "User already has this badge"],
    ["template_gone", "The badge template does not exist"],
  ] as const) {
    const { deps, badges, events } = fakeStore({}, answer);
    const err = await issueBadge(deps, ctx(), org.id, body).catch((e: unknown) => e);
    t.ok(isCoreError(err), answer);
    t.equal((err as Error).message, message);
    t.equal(badges.size + events.length, 0);
  }
  const { deps } = fakeStore({ template: null, issuer: null });
  const unknown = await issueBadge(deps, ctx(), org.id, body).catch((e: unknown) => e);
  t.match(unknown, { code: "validation_failed", errors: [{ field: "badge_template_id" }] });
});

t.test("issue, notify, accept: records and events", async (t) => {
  const earner = { user_id: "33333333-3333-4333-8333-333333333333", email_confirmed: false };
  const { deps, events, outbox } = fakeStore({ earner });
  const issued = await issueBadge(deps, ctx(), org.id, body);
  t.match(issued.view.badge, { state: "pending", user_id: earner.user_id, recipient_salt: "salt" });
  t.same(
    events.map((e) => e.event_type),
    ["badge.created"],
    "the notification's event waits for the mail server",
  );
  t.equal(outbox.length, 1, "the notification is written with the badge");
  t.match(outbox[0], {
    kind: "pending_badge_notification",
    organization_id: org.id,
    content: { template: "pending_badge", to: "ada@example.org", step: "confirm_address" },
    sent_event: { event_type: "pending_badge_notification.unconfirmed_email.sent" },
  });
  t.same(outbox[0]?.sent_event?.detail.recipient_email, "ada@example.org");
  const accept = outbox[0]?.content.template === "pending_badge" ? outbox[0].content.accept_url : "";
  const token = /\/accept\?token=([^\s"]+)/.exec(accept)?.[1] ?? "";
  t.not(token, "", "the mail's accept link carries a token");
  t.equal(issued.view.badge.accept_token_digest, `digest(${token})`, "only the token's keyed digest is stored");
  const silent = await issueBadge(deps, ctx(), org.id, {
    ...body,
    recipient_email: "quiet@example.org",
    suppress_badge_notification_email: true,
  });
  t.equal(outbox.length, 1, "suppressed: no mail");
  t.equal(silent.view.badge.accept_token_digest, null, "and no accept token");
  const accepted = await earnerDecision(deps, ctx(), issued.view.badge.id, "accept", earner.user_id);
  t.equal(accepted.badge.state, "accepted");
  const stranger = "55555555-5555-4555-8555-555555555555";
  const refused = await earnerDecision(deps, ctx(), silent.view.badge.id, "accept", stranger).catch((e) => e);
  t.match(refused, { code: "forbidden" }, "another earner's badge");
});

t.test("replace: the old badge is replaced before the new one is issued, all or nothing", async (t) => {
  const { deps, badges, events } = fakeStore({});
  const old = await issueBadge(deps, ctx(), org.id, body);
  const { replaced, issued } = await replaceBadge(deps, ctx(), org.id, old.view.badge.id, {
    issued_at: "2024-05-02T00:00:00Z",
  });
  t.match(replaced.badge, { state: "replaced", replacement_badge_id: issued.view.badge.id });
  t.match(issued.view.badge, { replaces_badge_id: old.view.badge.id, recipient_email: "ada@example.org" });
  t.same(
    events.map((e) => [e.event_type, (e.detail.badge as { state: string }).state]),
    [
      ["badge.created", "pending"],
      ["badge.state.changed", "replaced"],
      ["badge.created", "pending"],
    ],
  );

  const fail = fakeStore({ hasLiveBadge: true });
  const first = await issueBadge({ ...fail.deps }, ctx(), org.id, { ...body, recipient_email: "x@example.org" }).catch(
    (e) => e,
  );
  t.match(first, { message: "User already has this badge" });
  const racing = fakeStore({}, "inserted");
  const base = await issueBadge(racing.deps, ctx(), org.id, body);
  const before = racing.events.length;
  const future = await replaceBadge(racing.deps, ctx(), org.id, base.view.badge.id, {
    issued_at: "2099-01-01T00:00:00Z",
  }).catch((e) => e);
  t.match(future, {
    code: "validation_failed",
    errors: [{ field: "issued_at", message: "must not be in the future" }],
  });
  t.equal(racing.badges.get(base.view.badge.id)?.state, "pending", "rolled back: the old badge is untouched");
  t.equal(racing.events.length, before);
  t.equal(badges.size, 2);
});

t.test("rules: issued_at in the future, deletable templates, unchanged templates", (t) => {
  const at = (ms: number) => ({ issued_at: new Date(NOW.getTime() + ms) });
  t.equal(
    refusal(() => checkIssuedAtNotFuture(at(0), NOW)),
    null,
  );
  t.equal(
    refusal(() => checkIssuedAtNotFuture(at(ISSUED_AT_FUTURE_TOLERANCE_MS), NOW)),
    null,
    "clock skew tolerated",
  );
  t.match(
    refusal(() => checkIssuedAtNotFuture(at(ISSUED_AT_FUTURE_TOLERANCE_MS + 1), NOW, "badges.2")),
    {
      errors: [{ field: "badges.2.issued_at" }],
    },
  );
  t.equal(
    refusal(() => checkTemplateDeletable({ badges_count: 0 })),
    null,
  );
  t.match(
    refusal(() => checkTemplateDeletable({ badges_count: 2 })),
    { code: "validation_failed" },
  );
  t.notOk(templateChanged(template, { ...template, updated_at: new Date() }));
  t.ok(templateChanged(template, { ...template, skills: ["x"] }));
  t.end();
});

t.test("earner accounts: addresses de-duplicated, JSON shape", (t) => {
  const user = newUserRecord(
    {
      email: " Ada@Example.org ",
      additional_emails: ["ada@example.ORG", "ada@work.example"],
      first_name: " Ada ",
      last_name: "L",
    },
    { id: "44444444-4444-4444-8444-444444444444", now: NOW },
  );
  t.same(user.emails, [
    { email: "Ada@Example.org", confirmed: false },
    { email: "ada@work.example", confirmed: false },
  ]);
  t.same(userJson(user), {
    id: user.id,
    first_name: "Ada",
    last_name: "L",
    full_name: "Ada L",
    emails: [
      { email: "Ada@Example.org", confirmed: false, primary: true },
      { email: "ada@work.example", confirmed: false, primary: false },
    ],
    created_at: "2024-06-01T12:00:00.000Z",
    updated_at: "2024-06-01T12:00:00.000Z",
  });
  t.end();
});

t.test(
  "audit: revoke, replace and delete for the organization are recorded; issuing and earners' own actions are not",
  async (t) => {
    const { deps, audits } = fakeStore({});
    const by = { actor: { kind: "authorization_token", id: "tok-1" }, client_address: "192.0.2.3" } as const;
    const acting = (): IssuingContext => ({ ...ctx(), by });
    const a = await issueBadge(deps, acting(), org.id, body);
    const b = await issueBadge(deps, acting(), org.id, { ...body, recipient_email: "b@example.org" });
    const c = await issueBadge(deps, acting(), org.id, { ...body, recipient_email: "c@example.org" });
    t.equal(audits.length, 0, "issuing records events, not audit rows");
    await revokeBadge(deps, acting(), org.id, a.view.badge.id, { reason: "mistake" });
    await replaceBadge(deps, acting(), org.id, b.view.badge.id, { issued_at: "2024-05-02T00:00:00Z" });
    await deleteBadge(deps, acting(), org.id, c.view.badge.id);
    t.same(
      audits.map((x) => [x.action, x.target, x.actor.id, x.client_address]),
      [
        ["badge.revoked", `badge:${a.view.badge.id}`, "tok-1", "192.0.2.3"],
        ["badge.replaced", `badge:${b.view.badge.id}`, "tok-1", "192.0.2.3"],
        ["badge.deleted", `badge:${c.view.badge.id}`, "tok-1", "192.0.2.3"],
      ],
    );
    t.equal(audits[0]?.details.reason, "mistake");
    const quiet = fakeStore({});
    const d = await issueBadge(quiet.deps, ctx(), org.id, body);
    await revokeBadge(quiet.deps, ctx(), org.id, d.view.badge.id, { reason: "no actor" });
    t.equal(quiet.audits.length, 0, "without an actor (an earner's own action) nothing is recorded");
  },
);

t.test("pathways: an acceptance holds the template, a revocation releases it, a completion issues once", async (t) => {
  const { deps, badges, tx, events } = fakeStore({});
  const held: string[] = [];
  const released: string[] = [];
  const recorded: (string | null)[] = [];
  const step = (completed_at: Date | null, required: number): PathwayStep => ({
    pathway: {
      id: "99999999-9999-4999-8999-999999999999",
      organization_id: org.id,
      name: "Systems path",
      description: "",
      state: "published",
      version: 3,
      completion_badge_template_id: template.id,
      milestones: [{ name: "Rust", badge_template_ids: [template.id, "other"], required }],
      recommend_next: false,
      created_at: NOW,
      updated_at: NOW,
      published_at: NOW,
    },
    held_template_ids: [template.id],
    completed_at,
  });
  let steps: PathwayStep[] = [];
  tx.holdTemplate = async (templateId, key) => {
    held.push(`${templateId} ${key}`);
    return steps;
  };
  tx.releaseTemplate = async (templateId, key) => {
    released.push(`${templateId} ${key}`);
  };
  tx.recordCompletion = async (_pathway, _key, badgeId) => {
    recorded.push(badgeId);
    return true;
  };
  const issue = async () =>
    (await issueBadge(deps, ctx(), org.id, { ...body, recipient_email: "Ada@Example.org" })).view.badge.id;

  // A pathway not complete yet (2 of 2 needed, 1 held), and one completed already: nothing issued.
  steps = [step(null, 2), step(NOW, 1)];
  const first = await issue();
  t.same(held, [], "a pending badge holds nothing");
  await earnerDecision(deps, ctx(), first, "accept");
  t.same(held, [`${template.id} ada@example.org`], "accepted: held, by the normalized address");
  t.same(recorded, [], "no completion");
  await revokeBadge(deps, ctx(), org.id, first, { reason: "mistake" });
  t.same(released, [`${template.id} ada@example.org`], "revoked: released");

  // Complete now: the completion badge is issued through the same issue, with its event, and recorded.
  steps = [step(null, 1)];
  const count = badges.size;
  const second = await issue();
  const eventsBefore = events.length;
  await earnerDecision(deps, ctx(), second, "accept");
  t.equal(badges.size, count + 2, "the accepted badge and the completion badge");
  t.equal(recorded.length, 1);
  const completion = badges.get(recorded[0] as string);
  t.match(completion, {
    state: "pending",
    recipient_email: "Ada@Example.org",
    issued_to_first_name: "Ada",
    evidence: [
      { name: "Pathway completed: Systems path", description: /99999999-9999-4999-8999-999999999999 \(version 3\)/ },
    ],
  });
  t.ok(
    events.slice(eventsBefore).some((e) => e.event_type === "badge.created"),
    "its badge.created event, as any issue's",
  );

  // A reject of a pending badge changes nothing held; a rejected issue of the completion is recorded without a badge.
  const third = await issue();
  await earnerDecision(deps, ctx(), third, "reject");
  t.equal(held.length, 2, "a rejection holds nothing");
  const fourth = await issue();
  const lookup = tx.issueLookup;
  tx.issueLookup = async (...args) => ({ ...(await lookup(...args)), hasLiveBadge: true });
  const size = badges.size;
  await earnerDecision(deps, ctx(), fourth, "accept");
  t.equal(badges.size, size, "a live completion badge held already: no second one");
  t.same(recorded.slice(1), [null], "completed all the same, without a badge; the acceptance stands");
  t.equal(badges.get(fourth)?.state, "accepted");
});

t.test("pathways: recommend_next recommends the new next milestone's templates not held, without mail", async (t) => {
  const { deps, tx } = fakeStore({});
  const [X, Y] = ["aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"];
  const made: { template: string; to: string; notified: Date | null }[] = [];
  tx.recommendTemplates = async (records) => {
    for (const r of records)
      made.push({ template: r.badge_template_id, to: r.recipient_email_key, notified: r.notified_at });
  };
  const step = (recommend_next: boolean, held: string[]): PathwayStep => ({
    pathway: {
      id: "99999999-9999-4999-8999-999999999999",
      organization_id: org.id,
      name: "Systems path",
      description: "",
      state: "published",
      version: 1,
      completion_badge_template_id: "cccccccc-cccc-4ccc-8ccc-cccccccccccc",
      milestones: [
        { name: "Rust", badge_template_ids: [template.id], required: 1 },
        { name: "Next", badge_template_ids: [X, Y], required: 2 },
      ],
      recommend_next,
      created_at: NOW,
      updated_at: NOW,
      published_at: NOW,
    },
    held_template_ids: held,
    completed_at: null,
  });
  let steps: PathwayStep[] = [];
  tx.holdTemplate = async () => steps;
  const accept = async () => {
    const b = await issueBadge(deps, ctx(), org.id, { ...body, recipient_email: "Ada@Example.org" });
    await earnerDecision(deps, ctx(), b.view.badge.id, "accept");
  };

  steps = [step(false, [template.id])];
  await accept();
  t.same(made, [], "the setting off: nothing recommended");

  steps = [step(true, [template.id, Y])];
  await accept();
  t.same(
    made,
    [{ template: X, to: "ada@example.org", notified: null }],
    "the next milestone's template not held, to the normalized address, not mailed",
  );

  made.length = 0;
  steps = [step(true, [template.id, X, Y])];
  await accept();
  t.same(made, [], "every milestone done: no next one");
});
