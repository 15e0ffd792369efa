import t from "tap";
import {
  applyBadgeAction,
  applyTemplateAction,
  applyTemplateUpdate,
  BADGE_ACTIONS,
  BADGE_STATES,
  type BadgeAction,
  type BadgeActionName,
  type BadgeRecord,
  type BadgeState,
  type BadgeTemplateRecord,
  isLiveBadgeState,
  newTemplateRecord,
  reportingTags,
  setBadgePrivacy,
  TEMPLATE_ACTIONS,
  TEMPLATE_STATES,
  type TemplateAction,
  type TemplateState,
  templateStateFromUpdate,
  transitionBadge,
  transitionTemplate,
} from "../../core/badges/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";

/** What a rule returns, or the CoreError it throws: both are answers these tables check. */
const caught = <T>(run: () => T): T | CoreError => {
  const result = resultOf(run);
  return result.ok ? result.value : result.error;
};

const action = (name: BadgeActionName, reason = "Issued in error"): BadgeAction =>
  name === "revoke" ? { type: "revoke", reason } : { type: name };

// Expected next state for every (state, action); null = illegal (422).
const BADGE_TABLE: Record<BadgeState, Record<BadgeActionName, BadgeState | null>> = {
  pending: { accept: "accepted", reject: "rejected", revoke: "revoked", replace: "replaced" },
  accepted: { accept: null, reject: null, revoke: "revoked", replace: "replaced" },
  rejected: { accept: null, reject: null, revoke: null, replace: null },
  revoked: { accept: null, reject: null, revoke: null, replace: null },
  replaced: { accept: null, reject: null, revoke: null, replace: null },
};

t.test("badge: every state x every action", (t) => {
  for (const state of BADGE_STATES) {
    for (const name of BADGE_ACTIONS) {
      const expected = BADGE_TABLE[state][name];
      const got = caught(() => transitionBadge(state, action(name)));
      if (expected === null) {
        t.ok(isCoreError(got), `${state} + ${name} is refused`);
        if (isCoreError(got)) {
          t.equal(got.code, "validation_failed");
          t.equal(got.message, `Cannot ${name} a badge that is ${state}`);
        }
      } else {
        t.equal(got, expected, `${state} + ${name} -> ${expected}`);
      }
    }
  }
  t.end();
});

t.test("badge: revoke needs a non-blank, bounded reason", (t) => {
  for (const reason of ["", "   ", "\n\t"]) {
    const got = caught(() => transitionBadge("accepted", { type: "revoke", reason }));
    t.ok(isCoreError(got), JSON.stringify(reason));
    if (isCoreError(got)) t.same(got.errors, [{ field: "reason", message: "is required" }]);
  }
  t.ok(isCoreError(caught(() => transitionBadge("accepted", { type: "revoke", reason: "x".repeat(1001) }))));
  t.equal(
    caught(() => transitionBadge("accepted", { type: "revoke", reason: "x".repeat(1000) })),
    "revoked",
  );
  // An illegal state wins over a missing reason: the message names the real problem.
  const e = caught(() => transitionBadge("revoked", { type: "revoke", reason: "" }));
  t.ok(isCoreError(e) && e.message === "Cannot revoke a badge that is revoked");
  t.end();
});

t.test("badge: live states are exactly pending and accepted", (t) => {
  t.same(
    BADGE_STATES.filter((s) => isLiveBadgeState(s)),
    ["pending", "accepted"],
  );
  t.end();
});

const TEMPLATE_TABLE: Record<TemplateState, Record<TemplateAction, TemplateState | null>> = {
  draft: { activate: "active", deactivate: "draft", archive: "archived", unarchive: null },
  active: { activate: "active", deactivate: null, archive: "archived", unarchive: null },
  archived: { activate: null, deactivate: null, archive: null, unarchive: "active" },
};

t.test("template: every state x every action", (t) => {
  for (const state of TEMPLATE_STATES) {
    for (const a of TEMPLATE_ACTIONS) {
      const expected = TEMPLATE_TABLE[state][a];
      const got = caught(() => transitionTemplate(state, a));
      if (expected === null) {
        t.ok(isCoreError(got) && got.code === "validation_failed", `${state} + ${a} is refused`);
      } else {
        t.equal(got, expected, `${state} + ${a} -> ${expected}`);
      }
    }
  }
  t.end();
});

t.test("template: PUT state field", (t) => {
  const cases: [TemplateState, TemplateState | undefined, TemplateState | null][] = [
    ["draft", undefined, "draft"],
    ["draft", "draft", "draft"],
    ["draft", "active", "active"],
    ["draft", "archived", "archived"],
    ["active", "active", "active"],
    ["active", "draft", null],
    ["active", "archived", "archived"],
    ["archived", "archived", "archived"],
    ["archived", "active", "active"],
    ["archived", "draft", null],
  ];
  for (const [current, requested, expected] of cases) {
    const got = caught(() => templateStateFromUpdate(current, requested));
    if (expected === null) t.ok(isCoreError(got), `${current} -> ${requested} refused`);
    else t.equal(got, expected, `${current} -> ${requested}`);
  }
  t.end();
});

const T0 = new Date("2024-01-01T00:00:00.000Z");
const T1 = new Date("2024-02-01T00:00:00.000Z");

const template: BadgeTemplateRecord = {
  id: "7d3f2a52-8f0e-4a43-8d8e-3a0b6a3f1c11",
  organization_id: "11111111-1111-4111-8111-111111111111",
  name: "Rust",
  description: "Knows Rust",
  skills: ["rust"],
  reporting_tags: [],
  notification_message: null,
  image_url: null,
  image: null,
  url: null,
  vanity_slug: null,
  state: "draft",
  public: true,
  criteria_url: null,
  global_activity_url: null,
  alignments: [],
  allow_duplicate_badges: false,
  badges_count: 0,
  created_at: T0,
  updated_at: T0,
};

t.test("applyTemplateUpdate keeps absent keys, clears nulls, checks state", (t) => {
  const got = caught(() =>
    applyTemplateUpdate({ ...template, url: "https://a.example/x" }, { name: " Go ", url: null, state: "active" }, T1),
  );
  t.notOk(isCoreError(got));
  if (!isCoreError(got)) {
    t.equal(got.name, "Go");
    t.equal(got.url, null);
    t.equal(got.description, "Knows Rust");
    t.equal(got.state, "active");
    t.equal(got.updated_at, T1);
    t.equal(got.created_at, T0);
  }
  t.ok(isCoreError(caught(() => applyTemplateUpdate({ ...template, state: "active" }, { state: "draft" }, T1))));
  t.ok(isCoreError(caught(() => applyTemplateUpdate(template, { name: "   " }, T1))));
  const archived = caught(() => applyTemplateAction({ ...template, state: "active" }, "archive", T1));
  t.ok(!isCoreError(archived) && archived.state === "archived" && archived.updated_at === T1);
  t.end();
});

const badge: BadgeRecord = {
  id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
  organization_id: template.organization_id,
  badge_template_id: template.id,
  state: "accepted",
  public: true,
  issued_to_first_name: "Ada",
  issued_to_middle_name: null,
  issued_to_last_name: "Lovelace",
  recipient_email: "ada@example.org",
  issued_at: T0,
  expires_at: null,
  evidence: [],
  issuer_earner_id: null,
  locale: null,
  suppress_badge_notification_email: false,
  notification_message: null,
  revocation_reason: null,
  replaces_badge_id: null,
  replacement_badge_id: null,
  user_id: null,
  recipient_salt: "salt",
  issued_by_organization_id: null,
  subject_id: "0b7c3e52-1d9a-4f60-9b2e-6c1d2e3f4a5b",
  accept_token_digest: null,
  state_updated_at: T0,
  created_at: T0,
  updated_at: T0,
};

t.test("applyBadgeAction records reason, replacement and time", (t) => {
  const revoked = caught(() => applyBadgeAction(badge, { type: "revoke", reason: "  Fraud  " }, T1));
  t.ok(!isCoreError(revoked) && revoked.state === "revoked" && revoked.revocation_reason === "Fraud");
  t.ok(!isCoreError(revoked) && revoked.state_updated_at === T1 && revoked.updated_at === T1);
  const replaced = caught(() =>
    applyBadgeAction(badge, { type: "replace" }, T1, "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"),
  );
  t.ok(!isCoreError(replaced) && replaced.replacement_badge_id === "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb");
  t.ok(isCoreError(caught(() => applyBadgeAction({ ...badge, state: "revoked" }, { type: "accept" }, T1))));
  t.end();
});

t.test("newTemplateRecord applies defaults and dedupes skills", (t) => {
  const r = newTemplateRecord(
    { name: " Go ", description: "d", skills: ["go", " go", "cli"] },
    { id: "t1", organization_id: "o1", now: T0 },
  );
  t.match(r, {
    id: "t1",
    organization_id: "o1",
    name: "Go",
    skills: ["go", "cli"],
    state: "draft",
    public: true,
    allow_duplicate_badges: false,
    badges_count: 0,
    image_url: null,
    alignments: [],
  });
  t.equal(r.created_at, T0);
  const active = newTemplateRecord(
    { name: "Go", description: "d", state: "active", alignments: [{ name: "A", url: "https://a.example" }] },
    { id: "t2", organization_id: "o1", now: T0 },
  );
  t.equal(active.state, "active");
  t.same(active.alignments, [{ name: "A", url: "https://a.example", description: null }]);
  t.end();
});

t.test("setBadgePrivacy changes only privacy and updated_at", (t) => {
  const b = setBadgePrivacy(badge, false, T1);
  t.equal(b.public, false);
  t.equal(b.state, badge.state);
  t.equal(b.state_updated_at, T0);
  t.equal(b.updated_at, T1);
  t.end();
});

t.test("a template's image: a stored one or an outside address, never both", (t) => {
  const SHA = `${"a".repeat(64)}.png`;
  const outside = { ...template, image_url: "https://cdn.example/x.png" };
  const stored = { ...template, image: SHA };
  const cases: Array<
    [
      string,
      BadgeTemplateRecord,
      Parameters<typeof applyTemplateUpdate>[1],
      string | null | undefined,
      [string | null, string | null] | null,
    ]
  > = [
    ["a stored image replaces an outside address", outside, {}, SHA, [SHA, null]],
    [
      "an outside address replaces a stored image",
      stored,
      { image_url: "https://cdn.example/y.png" },
      undefined,
      [null, "https://cdn.example/y.png"],
    ],
    ["image: null drops the stored image", stored, {}, null, [null, null]],
    ["image_url: null clears either", stored, { image_url: null }, undefined, [null, null]],
    ["nothing said keeps the image", stored, { name: "Go" }, undefined, [SHA, null]],
    ["both at once is refused", outside, { image_url: "https://cdn.example/z.png" }, SHA, null],
  ];
  for (const [what, current, body, image, expected] of cases) {
    const got = caught(() => applyTemplateUpdate(current, body, T1, image));
    if (expected === null) {
      t.ok(isCoreError(got) && got.errors[0]?.field === "image", what);
    } else {
      t.same(isCoreError(got) ? got.message : [got.image, got.image_url], expected, what);
    }
  }
  t.end();
});

t.test("reporting tags: trimmed, each kept once whatever its case, in the order first given", (t) => {
  t.same(reportingTags([" Q3 ", "cloud", "q3", "CLOUD", "data"]), ["Q3", "cloud", "data"]);
  t.same(reportingTags([]), []);
  t.end();
});
