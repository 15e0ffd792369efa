import t from "tap";
import type { AuditRecord } from "../../core/audit/mod.ts";
import { isCoreError } from "../../core/errors/mod.ts";
import type { OutboxMail } from "../../core/mail/mod.ts";
import type { MemberActor } from "../../core/members/mod.ts";
import {
  createRecommendations,
  type RecommendationRecord,
  type RecommendationStore,
  type RecommendationView,
  recommendationJson,
  recommendationState,
} from "../../core/recommendations/mod.ts";

const ORG = "00000000-0000-4000-8000-00000000000a";
const ACTIVE = "00000000-0000-4000-8000-0000000000a1";
const DRAFT = "00000000-0000-4000-8000-0000000000a2";
const EMPLOYEE = "00000000-0000-4000-8000-0000000000e1";
const now = new Date("2026-12-07T10:00:00.000Z");

t.test("the state: earning wins over a dismissal, a dismissal over open", async (t) => {
  const cases: [Date | null, Date | null, string][] = [
    [null, null, "open"],
    [now, null, "fulfilled"],
    [null, now, "dismissed"],
    [now, now, "fulfilled"],
  ];
  for (const [fulfilled_at, dismissed_at, state] of cases)
    t.equal(recommendationState({ fulfilled_at, dismissed_at }), state, `${fulfilled_at}, ${dismissed_at}`);
});

/** An in-memory store: the one-per-template-and-address rule as the database's unique index keeps it. */
const memoryStore = () => {
  const rows = new Map<string, RecommendationRecord>();
  const mails: OutboxMail[] = [];
  const audit: AuditRecord[] = [];
  const view = (r: RecommendationRecord): RecommendationView => ({
    ...r,
    organization_name: "Forge",
    badge_template_name: "Welding",
    badge_template_description: "Joins steel",
    badge_template_image: null,
    badge_template_image_url: null,
    badge_template_criteria_url: null,
    fulfilled_at: null,
  });
  const store: RecommendationStore = {
    transaction: async (work) => {
      const staged = new Map(rows);
      const stagedMails: OutboxMail[] = [];
      const stagedAudit: AuditRecord[] = [];
      const result = await work({
        async insertNew(records) {
          const inserted = new Set<string>();
          for (const r of records) {
            const taken = [...staged.values()].some(
              (x) => x.badge_template_id === r.badge_template_id && x.recipient_email_key === r.recipient_email_key,
            );
            if (!taken) {
              staged.set(r.id, r);
              inserted.add(r.id);
            }
          }
          return inserted;
        },
        enqueueMails: async (m) => void stagedMails.push(...m),
        appendAudit: async (a) => void stagedAudit.push(...a),
      });
      for (const [k, v] of staged) rows.set(k, v);
      mails.push(...stagedMails);
      audit.push(...stagedAudit);
      return result;
    },
    targets: async () => ({
      templates: new Map([
        [ACTIVE, { state: "active", name: "Welding", description: "Joins steel", image: null, image_url: null }],
        [DRAFT, { state: "draft", name: "Draft", description: "Not yet", image: null, image_url: null }],
      ]),
      employees: new Map([[EMPLOYEE, { email: "emp@forge.example", first_name: "Emma" }]]),
      organization_name: "Forge",
    }),
    list: async () => ({ items: [...rows.values()].map(view), total: rows.size }),
    get: async (_org, id) => {
      const r = rows.get(id);
      return r ? view(r) : null;
    },
    delete: async () => false,
    forAccount: async () => [],
    dismiss: async () => false,
  };
  return { store, rows, mails, audit };
};

const owner: MemberActor = { kind: "member", accountId: "acct", organizationId: ORG, role: "owner" };
const viewer: MemberActor = { ...owner, role: "viewer" };

t.test(
  "create: each item's problems named; nothing written until all pass; mailed while the budget lasts",
  async (t) => {
    const { store, rows, mails, audit } = memoryStore();
    let n = 0;
    const ctx = { now, newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` };
    let budget = 2;
    const deps = {
      store,
      urls: { publicBase: "https://laurel.example" },
      mailBudget: { take: async () => budget-- > 0 },
    };
    const refusal = await createRecommendations(deps, ctx, owner, null, ORG, {
      recommendations: [
        { badge_template_id: ACTIVE, recipient_email: "a@example.org" },
        { badge_template_id: DRAFT, recipient_email: "a@example.org" },
        { badge_template_id: "00000000-0000-4000-8000-0000000000ff", recipient_email: "a@example.org" },
        { badge_template_id: ACTIVE, recipient_email: "A@Example.org " },
        { badge_template_id: ACTIVE, employee_id: "00000000-0000-4000-8000-0000000000ee" },
        { badge_template_id: ACTIVE },
      ],
    }).catch((e) => e);
    t.ok(isCoreError(refusal) && refusal.code === "validation_failed");
    t.same(
      refusal.errors.map((e: { field: string; message: string }) => [e.field, e.message]),
      [
        ["recommendations[1].badge_template_id", "must be an active template (publish it first)"],
        ["recommendations[2].badge_template_id", "names no badge template of this organization"],
        ["recommendations[3].recipient_email", "repeats recommendation 1 of this request"],
        ["recommendations[4].employee_id", "names no employee record of this organization"],
        ["recommendations[5].recipient_email", "give either recipient_email or employee_id, one of them"],
      ],
    );
    t.equal(rows.size, 0, "nothing written");

    const viewerRefused = await createRecommendations(deps, ctx, viewer, null, ORG, {
      badge_template_id: ACTIVE,
      recipient_email: "a@example.org",
    }).catch((e) => e);
    t.ok(isCoreError(viewerRefused) && viewerRefused.code === "forbidden", "a viewer may not recommend");

    const made = await createRecommendations(deps, ctx, owner, "203.0.113.9", ORG, {
      recommendations: [
        { badge_template_id: ACTIVE, recipient_email: " a@example.org ", message: "  Go on  " },
        { badge_template_id: ACTIVE, employee_id: EMPLOYEE },
        { badge_template_id: ACTIVE, recipient_email: "c@example.org" },
      ],
    });
    t.same(
      made.map((r) => [r.recipient_email, r.recipient_email_key, r.employee_id, r.message, r.notified_at !== null]),
      [
        ["a@example.org", "a@example.org", null, "Go on", true],
        ["emp@forge.example", "emp@forge.example", EMPLOYEE, null, true],
        ["c@example.org", "c@example.org", null, null, false],
      ],
      "the budget of two mails: the third is written, not mailed",
    );
    t.same(
      mails.map((m) => [m.content.to, m.content.template]),
      [
        ["a@example.org", "recommendation"],
        ["emp@forge.example", "recommendation"],
      ],
    );
    t.match(mails[0]?.content, { message: "Go on", link: "https://laurel.example/wallet#recommendations" });
    t.same(
      audit.map((a) => [a.action, a.client_address]),
      Array(3).fill(["recommendation.created", "203.0.113.9"]),
    );

    const twice = await createRecommendations(deps, ctx, owner, null, ORG, {
      badge_template_id: ACTIVE,
      recipient_email: "A@example.org",
    }).catch((e) => e);
    t.ok(isCoreError(twice) && twice.code === "validation_failed", "one per template and person");
    t.equal(twice.errors[0].field, "recipient_email");
    t.equal(rows.size, 3);
    t.equal(mails.length, 2, "a refused one is not mailed");
    t.match(recommendationJson(made[0] as RecommendationView, { publicBase: "https://laurel.example" }), {
      state: "open",
      badge_template: { id: ACTIVE, name: "Welding" },
      created_at: "2026-12-07T10:00:00.000Z",
    });
  },
);
