import pg from "pg";
import t from "tap";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { postgresBadgeStore } from "../../adapters/db/mod.ts";
import { DUPLICATE_BADGE_MESSAGE } from "../../core/badges/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import { apiClient, createTemplate, eventually, issueBody, organization } from "../support/badges.ts";
import { basic, type OrganizationWithToken, spawnTwoServers, startLaurel, trpcMutation } from "../support/laurel.ts";

/**
 * Concurrent badge issues share statements and commits (adapters/db/grouped_issues.ts). Each
 * request must still get exactly its own answer, and the events' `seq` must stay dense.
 */

interface SeqFigures {
  n: number;
  distinct: number;
  min: number;
  max: number;
  total: number;
}

const seqFigures = async (url: string, organizationId: string): Promise<SeqFigures> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(
      `select count(*)::int as n, count(distinct seq)::int as distinct, coalesce(min(seq), 0)::int as min,
              coalesce(max(seq), 0)::int as max,
              (select total from event_counts where organization_id = $1)::int as total
       from events where organization_id = $1`,
      [organizationId],
    );
    return rows[0] as SeqFigures;
  } finally {
    await c.end();
  }
};

t.test("a batch of concurrent issues: each request gets its own answer", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const api = apiClient(laurel);
  const org = await organization(laurel, "Grouped Org");
  const other = await organization(laurel, "Other Org");
  const tpl = await createTemplate(laurel, org, { allow_duplicate_badges: false });
  const foreign = await createTemplate(laurel, other);

  // 20 distinct recipients, 5 requests for one recipient (the duplicate rule lets one through),
  // 3 naming another organization's template; all sent at once, so they share batches.
  const bodies = [
    ...Array.from({ length: 20 }, (_, i) => ({
      kind: "fresh",
      body: issueBody(tpl.id, { recipient_email: `r${i}@x.example` }),
    })),
    ...Array.from({ length: 5 }, () => ({
      kind: "same",
      body: issueBody(tpl.id, { recipient_email: "same@x.example" }),
    })),
    ...Array.from({ length: 3 }, (_, i) => ({
      kind: "foreign",
      body: issueBody(foreign.id, { recipient_email: `f${i}@x.example` }),
    })),
  ];
  const answers = await Promise.all(
    bodies.map((b) => api("POST", org.badges, org.auth, b.body).then((r) => ({ ...b, r }))),
  );

  const fresh = answers.filter((a) => a.kind === "fresh");
  t.ok(
    fresh.every((a) => a.r.status === 201),
    "every distinct recipient got a badge",
  );
  t.same(
    fresh.map((a) => a.r.body.data.recipient_email).sort(),
    fresh.map((a) => a.body.recipient_email).sort(),
    "each answer is the request's own badge",
  );
  const same = answers.filter((a) => a.kind === "same");
  t.equal(same.filter((a) => a.r.status === 201).length, 1, "one badge for the repeated recipient");
  const refused = same.filter((a) => a.r.status !== 201);
  t.equal(refused.length, 4);
  for (const a of refused) {
    t.equal(a.r.status, 422);
    t.equal(a.r.body.data.message, DUPLICATE_BADGE_MESSAGE);
    t.same(a.r.body.data.errors, [{ field: "recipient_email", message: DUPLICATE_BADGE_MESSAGE }]);
  }
  for (const a of answers.filter((x) => x.kind === "foreign")) {
    t.equal(a.r.status, 422, "another organization's template is unknown here");
    t.match(a.r.body, { data: { errors: [{ field: "badge_template_id" }] } });
  }

  // 21 badges, each with badge.created and (after the response) its notification.
  const url = (laurel.database as { url: string }).url;
  const figures = await eventually(async () => {
    const f = await seqFigures(url, org.id);
    return f.n >= 1 + 42 ? f : undefined; // + badge_template.created
  });
  t.same(figures, { n: 43, distinct: 43, min: 1, max: 43, total: 43 }, "seq is 1..n, no gap, no repeat");
});

t.test("a batch whose statement fails: each call falls back to its own write", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const api = apiClient(laurel);
  const org = await organization(laurel, "Fallback Org");
  const tpl = await createTemplate(laurel, org);
  const first = await api("POST", org.badges, org.auth, issueBody(tpl.id));
  t.equal(first.status, 201);
  const store = postgresBadgeStore(laurel.db);
  const view = await store.getBadge(org.id, first.body.data.id);
  if (!view) throw new Error("badge not found");

  const copy = (i: number, templateId: string) => {
    const badge = { ...view.badge, id: uuidv7(), badge_template_id: templateId, recipient_email: `c${i}@x.example` };
    const event: EventRecord = {
      id: uuidv7(),
      organization_id: org.id,
      event_type: "badge.created",
      occurred_at: new Date(),
      detail: { badge: { id: badge.id } },
    };
    return { badge, key: `c${i}@x.example`, event };
  };
  // Called in one tick: the first runs alone, the next four share a batch, whose statement fails
  // on the foreign key of the one naming a template that does not exist.
  const calls = [copy(0, tpl.id), copy(1, tpl.id), copy(2, uuidv7()), copy(3, tpl.id), copy(4, tpl.id)];
  const results = await Promise.all(calls.map((c) => store.insertBadge(c.badge, c.key, true, [c.event])));
  t.same(results, ["inserted", "inserted", "template_gone", "inserted", "inserted"]);
  for (const [i, c] of calls.entries()) {
    const found = await store.getBadge(org.id, c.badge.id);
    t.equal(found !== null, i !== 2, `badge ${i} ${i === 2 ? "not " : ""}written`);
  }
  const url = (laurel.database as { url: string }).url;
  const figures = await eventually(async () => {
    const f = await seqFigures(url, org.id);
    return f.n >= 1 + 2 + 4 ? f : undefined;
  });
  t.same(figures, { n: 7, distinct: 7, min: 1, max: 7, total: 7 }, "only the written badges' events, seq dense");
});

t.test("two API processes issuing at once for one organization: seq stays dense", async (t) => {
  const { a, b, adminToken, databaseUrl, close } = await spawnTwoServers();
  t.teardown(close);
  const { organization: org, authorization_token } = (await trpcMutation(
    a.adminOrigin,
    adminToken,
    "organizations.create",
    {
      name: "Two Process Issuer",
      email: "issuer@example.org",
    },
  )) as OrganizationWithToken;
  const auth = basic(authorization_token.token);
  const post = async (origin: string, path: string, body: unknown) => {
    const res = await fetch(`${origin}/v1/organizations/${org.id}${path}`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: { id: string } } };
  };
  const tpl = await post(a.origin, "/badge_templates", { name: "Dense", description: "Counts", state: "active" });
  t.equal(tpl.status, 201);

  // 16 clients per process, 12 issues each: 384 badges.
  const statuses: number[] = [];
  await Promise.all(
    [a.origin, b.origin].flatMap((origin, p) =>
      Array.from({ length: 16 }, async (_, c) => {
        for (let i = 0; i < 12; i++) {
          const r = await post(
            origin,
            "/badges",
            issueBody(tpl.body.data.id, { recipient_email: `p${p}c${c}i${i}@x.example` }),
          );
          statuses.push(r.status);
        }
      }),
    ),
  );
  t.equal(statuses.filter((s) => s === 201).length, 384, "every issue answered 201");
  // The template's event and each badge's badge.created; the notifications wait in the mail
  // outbox, written with their badges (no mail sender runs here).
  const expected = 1 + 384;
  const figures = await seqFigures(databaseUrl, org.id);
  t.same(figures, { n: expected, distinct: expected, min: 1, max: expected, total: expected }, "seq is 1..n");
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const { rows } = await c.query("select count(*)::int as n from mail_outbox where organization_id = $1", [org.id]);
  await c.end();
  t.equal(rows[0].n, 384, "one outbox mail per badge");
});
