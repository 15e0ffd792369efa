import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import {
  checkTransition,
  countsFor,
  type Milestone,
  type PathwayRecord,
  pathwayErrors,
  pathwayProgress,
  updatedPathway,
} from "../../core/pathways/mod.ts";

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const [A, B, C, D, E, F, DONE] = [1, 2, 3, 4, 5, 6, 9].map(id) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const now = new Date("2026-12-07T10:00:00.000Z");

/** Three milestones, the second "2 of 3". */
const MILESTONES: Milestone[] = [
  { name: "Basics", badge_template_ids: [A], required: 1 },
  { name: "Practice", badge_template_ids: [B, C, D], required: 2 },
  { name: "Capstone", badge_template_ids: [E, F], required: 2 },
];

t.test("progress from the templates held: per milestone, and complete when every one is done", async (t) => {
  const cases: [string[], number[], number, boolean][] = [
    [[], [0, 0, 0], 0, false],
    [[A], [1, 0, 0], 1, false],
    [[B, D], [0, 2, 0], 1, false],
    [[A, B, C, D], [1, 3, 0], 2, false],
    [[A, B, E, F], [1, 1, 2], 2, false],
    [[A, C, D, E, F], [1, 2, 2], 3, true],
    [[F, E, D, B, A], [1, 2, 2], 3, true],
    [[A.toUpperCase(), B, B, C, E, F], [1, 2, 2], 3, true],
    [[DONE, id(77)], [0, 0, 0], 0, false],
  ];
  for (const [held, counts, done, complete] of cases) {
    const p = pathwayProgress(MILESTONES, held);
    t.same(
      p.milestones.map((m) => m.held),
      counts,
      `${held.length} held: counts`,
    );
    t.equal(p.done, done, `${held.length} held: milestones done`);
    t.equal(p.complete, complete, `${held.length} held: complete`);
  }
  t.equal(pathwayProgress([], [A]).complete, false, "no milestones is never complete");
});

const ORG = id(200);
const GRANTOR = id(300);
const OTHER = id(400);

t.test("validation names each problem by its field", async (t) => {
  const own = (state: string) => ({ state, organization_id: ORG });
  const facts = {
    templates: new Map([
      [A, own("active")],
      [B, own("active")],
      [C, own("archived")],
      [D, own("draft")],
      [DONE, own("active")],
    ]),
    grants: [],
  };
  t.same(pathwayErrors(ORG, "Goal", MILESTONES.slice(0, 1), DONE, facts), [], "a valid pathway");
  const errors = pathwayErrors(
    ORG,
    " ",
    [
      { name: "One", badge_template_ids: [A, A], required: 1 },
      { name: "Two", badge_template_ids: [B, C, D, E], required: 5 },
      { name: "Three", badge_template_ids: [DONE], required: 0 },
    ],
    D,
    facts,
  );
  t.same(
    errors.map((e) => e.field),
    [
      "name",
      "milestones[0].badge_template_ids[1]",
      "milestones[1].badge_template_ids[2]",
      "milestones[1].badge_template_ids[3]",
      "milestones[1].required",
      "milestones[2].required",
      "completion_badge_template_id",
    ],
  );
  t.same(
    pathwayErrors(ORG, "Goal", [{ name: "Self", badge_template_ids: [DONE], required: 1 }], DONE, facts).map(
      (e) => e.field,
    ),
    ["milestones[0].badge_template_ids[0]"],
    "the completion template is no milestone's",
  );
  t.same(
    pathwayErrors(ORG, "Goal", MILESTONES.slice(0, 1), id(55), facts).map((e) => e.field),
    ["completion_badge_template_id"],
    "an unknown completion template",
  );
});

t.test("a grantor's templates: nameable in milestones while a grant covers them, never the completion", async (t) => {
  const G1 = id(31);
  const G2 = id(32);
  const templates = new Map([
    [A, { state: "active", organization_id: ORG }],
    [DONE, { state: "active", organization_id: ORG }],
    [G1, { state: "active", organization_id: GRANTOR }],
    [G2, { state: "active", organization_id: GRANTOR }],
    [id(41), { state: "active", organization_id: OTHER }],
  ]);
  const grant = (g: Partial<{ state: "pending" | "accepted" | "ended"; all_templates: boolean; ids: string[] }>) => ({
    grantor_id: GRANTOR,
    state: g.state ?? "accepted",
    all_templates: g.all_templates ?? false,
    badge_template_ids: g.ids ?? [],
  });
  const milestone = (ids: string[]) => [{ name: "Mixed", badge_template_ids: ids, required: 1 }];
  const fields = (ids: string[], grants: ReturnType<typeof grant>[], completion = DONE) =>
    pathwayErrors(ORG, "Goal", milestone(ids), completion, { templates, grants }).map((e) => e.field);
  const cases: [string, string[], ReturnType<typeof grant>[], string[], string?][] = [
    ["every template granted", [A, G1, G2], [grant({ all_templates: true })], []],
    ["the listed one granted", [A, G1], [grant({ ids: [G1] })], []],
    ["one not listed", [A, G2], [grant({ ids: [G1] })], ["milestones[0].badge_template_ids[1]"]],
    [
      "a pending grant",
      [G1],
      [grant({ state: "pending", all_templates: true })],
      ["milestones[0].badge_template_ids[0]"],
    ],
    ["an ended grant", [G1], [grant({ state: "ended", all_templates: true })], ["milestones[0].badge_template_ids[0]"]],
    ["no grant", [G1], [], ["milestones[0].badge_template_ids[0]"]],
    [
      "a template of an organization that granted nothing",
      [id(41)],
      [grant({ all_templates: true })],
      ["milestones[0].badge_template_ids[0]"],
    ],
    ["a grantor's template as completion", [A], [grant({ all_templates: true })], ["completion_badge_template_id"], G1],
  ];
  for (const [name, ids, grants, expected, completion] of cases)
    t.same(fields(ids, grants, completion), expected, name);
});

t.test("a badge counts for its organization and for the one that issued it on its behalf", async (t) => {
  t.same(countsFor({ organization_id: ORG, issued_by_organization_id: null }), [ORG]);
  t.same(countsFor({ organization_id: GRANTOR, issued_by_organization_id: ORG }), [GRANTOR, ORG]);
});

const pathway = (state: PathwayRecord["state"]): PathwayRecord => ({
  id: id(100),
  organization_id: ORG,
  name: "Goal",
  description: "",
  state,
  version: 1,
  completion_badge_template_id: DONE,
  milestones: MILESTONES,
  recommend_next: false,
  created_at: now,
  updated_at: now,
  published_at: state === "draft" ? null : now,
});

t.test("transitions: publish a draft, archive a draft or published one, delete only a draft", async (t) => {
  const allowed: [PathwayRecord["state"], "publish" | "archive" | "delete" | "update", boolean][] = [
    ["draft", "publish", true],
    ["published", "publish", false],
    ["archived", "publish", false],
    ["draft", "archive", true],
    ["published", "archive", true],
    ["archived", "archive", false],
    ["draft", "delete", true],
    ["published", "delete", false],
    ["archived", "delete", false],
    ["draft", "update", true],
    ["published", "update", true],
    ["archived", "update", false],
  ];
  for (const [state, action, ok] of allowed) {
    let error: unknown = null;
    try {
      checkTransition(state, action);
    } catch (e) {
      error = e;
    }
    if (ok) t.equal(error, null, `${action} ${state}`);
    else t.ok(isCoreError(error) && error.code === "validation_failed", `${action} ${state} refused`);
  }
});

t.test("a published pathway's milestones change only by a new version; a draft's in place", async (t) => {
  const later = new Date(now.getTime() + 1000);
  const fewer = [{ name: "Basics", badge_template_ids: [A] }];
  const draft = updatedPathway(pathway("draft"), { milestones: fewer }, later);
  t.equal(draft.version, 1, "a draft stays version 1");
  t.same(draft.milestones, [{ name: "Basics", badge_template_ids: [A], required: 1 }], "required defaults to all");
  const published = pathway("published");
  const renamed = updatedPathway(published, { name: " New name " }, later);
  t.match(renamed, { version: 1, name: "New name", state: "published" }, "a name changes in place");
  const same = updatedPathway(published, { milestones: MILESTONES }, later);
  t.equal(same.version, 1, "the same milestones are no new version");
  // As a store gives them back (jsonb orders an object's keys its own way) and as a form sends them (by name).
  const stored = {
    ...published,
    milestones: MILESTONES.map((m) => ({
      required: m.required,
      name: m.name,
      badge_template_ids: m.badge_template_ids,
    })),
  };
  const reordered = MILESTONES.map((m) => ({ ...m, badge_template_ids: [...m.badge_template_ids].reverse() }));
  t.equal(
    updatedPathway(stored, { milestones: reordered }, later).version,
    1,
    "nor are they in another key or template order",
  );
  const next = updatedPathway(published, { milestones: fewer }, later);
  t.match(next, { version: 2, state: "published", updated_at: later }, "new milestones: version 2");
  t.equal(
    updatedPathway(published, { completion_badge_template_id: A }, later).version,
    2,
    "so does a new completion template",
  );
  t.throws(() => updatedPathway(pathway("archived"), { name: "x" }, later), "an archived pathway does not change");
});
