import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import {
  type AccountPathwayRow,
  type PathwayRecord,
  type PathwayShown,
  publicPathway,
  walletPathways,
} from "../../core/pathways/mod.ts";

/**
 * What the pathway pages show, decided in core: the public view of a published or archived pathway
 * (a draft is not found), and the wallet's pathways: started means a milestone template held (or
 * completed), each milestone done or not, next the templates not held of the milestones not done.
 */
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const [A, B, C, D, DONE] = [1, 2, 3, 4, 9].map(id) as [string, string, string, string, string];
const ref = (tid: string, name: string) => ({ id: tid, name, image: null, image_url: `https://x.example/${name}.png` });
const templates = [ref(A, "A"), ref(B, "B"), ref(C, "C"), ref(D, "D"), ref(DONE, "Done")];

const pathway = (over: Partial<PathwayRecord> = {}): PathwayRecord => ({
  id: id(100),
  organization_id: id(200),
  name: "Welder",
  description: "Steps",
  state: "published",
  version: 1,
  completion_badge_template_id: DONE,
  milestones: [
    { name: "Basics", badge_template_ids: [A], required: 1 },
    { name: "Practice", badge_template_ids: [B, C, D], required: 2 },
  ],
  recommend_next: false,
  created_at: new Date(0),
  updated_at: new Date(0),
  published_at: new Date(0),
  ...over,
});

const shown = (p: PathwayRecord): PathwayShown => ({ pathway: p, organization_name: "Forge", templates });

t.test("the public view: milestones in order with their templates; a draft or none is not found", async (t) => {
  const view = await publicPathway({ shown: async () => shown(pathway()) }, id(100));
  t.same(
    view.milestones.map((m) => [m.name, m.required, m.templates.map((x) => x.name)]),
    [
      ["Basics", 1, ["A"]],
      ["Practice", 2, ["B", "C", "D"]],
    ],
  );
  t.equal(view.completion?.name, "Done");
  t.equal(view.organization_name, "Forge");
  t.equal(
    (await publicPathway({ shown: async () => shown(pathway({ state: "archived" })) }, id(100))).state,
    "archived",
  );
  for (const found of [shown(pathway({ state: "draft" })), null]) {
    const error = await publicPathway({ shown: async () => found }, id(100)).catch((e: unknown) => e);
    t.ok(isCoreError(error) && error.code === "not_found", "not found");
  }
});

t.test("the wallet: started ones only, done and next, completed marked and last", async (t) => {
  const row = (p: PathwayRecord, held: string[], completed: Date | null = null): AccountPathwayRow => ({
    ...shown(p),
    held_template_ids: held,
    completed_at: completed,
  });
  const rows = [
    row(pathway({ id: id(101), name: "Zeta" }), [A, B.toUpperCase()]),
    row(pathway({ id: id(102), name: "Alpha" }), [DONE]), // only the completion badge: not started
    row(pathway({ id: id(103), name: "Beta" }), [A], new Date(1)), // completed, later revoked some
    row(pathway({ id: id(104), name: "Gamma", state: "archived" }), [A]),
  ];
  const items = await walletPathways({ forAccount: async () => rows }, id(1));
  t.same(
    items.map((p) => p.name),
    ["Zeta", "Beta"],
    "started, published ones; unfinished first",
  );
  const [zeta, beta] = items as [(typeof items)[0], (typeof items)[0]];
  t.same(
    zeta.milestones.map((m) => [m.name, m.held, m.done]),
    [
      ["Basics", 1, true],
      ["Practice", 1, false],
    ],
  );
  t.equal(zeta.done, 1);
  t.equal(zeta.completed, false);
  t.same(
    zeta.next.map((x) => x.name),
    ["C", "D"],
    "the templates not held of the milestones not done",
  );
  t.equal(beta.completed, true, "a completion stands");
  t.same(beta.next, []);
});
