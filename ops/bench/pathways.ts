// Benchmark of the pathway progress kept as badges are accepted: what one acceptance costs when
// published pathways name the badge's template, against the same acceptance when none does (the
// peer, in the same run, on the same server and database). Three cases, each accepting
// BENCH_PATHWAY_ACCEPTS pending badges (default 400) of one template, one at a time
// (`badges.accept` over tRPC, the earner's use case), on one keep-alive connection, the three cases
// taking turns acceptance by acceptance:
//   1. no pathway names the template;
//   2. BENCH_PATHWAYS published pathways (default 10) name it in a milestone of three (no
//      acceptance completes one: the progress rows are written and counted);
//   3. one published pathway of one milestone (that template alone): every acceptance completes it
//      and issues its completion badge in the same transaction.
// Figures: mean and p50/p99 milliseconds per acceptance, and the extra cost of cases 2 and 3 over
// case 1. Target: the progress of 10 pathways adds under 50% to an acceptance.
//
// Run: BENCH_ONLY=pathways npm run bench, or npx node ops/bench/pathways.ts once
// `bash ops/prepare.sh test` has PostgreSQL running (a fresh database beside BENCH_DATABASE_URL,
// DATABASE_URL or TEST_DATABASE_URL, dropped afterwards; NATS_URL when set, else a nats-server of
// its own). Prints its figures; writes no document.

import {
  adminTrpc,
  createBenchOrganization,
  log,
  percentile,
  runBenchProcess,
  withBenchLaurel,
} from "./laurel_process.ts";
import type { RunningServer } from "./lib.ts";

const ACCEPTS = Number(process.env.BENCH_PATHWAY_ACCEPTS ?? 400);
const PATHWAYS = Number(process.env.BENCH_PATHWAYS ?? 10);
const TARGET_EXTRA = 0.5;
const ISSUE_CONCURRENCY = 8;

type Api = (method: string, path: string, body?: unknown) => Promise<{ id: string }>;

const restClient =
  (base: string, token: string): Api =>
  async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${token}:`).toString("base64")}`,
        "content-type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string } }).data;
  };

/** `count` pending badges of `template` to distinct addresses, issued a few at a time. */
const issueMany = async (api: Api, org: string, template: string, count: number, tag: string): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < count; i += ISSUE_CONCURRENCY) {
    const batch = Array.from({ length: Math.min(ISSUE_CONCURRENCY, count - i) }, (_, k) =>
      api("POST", `/organizations/${org}/badges`, {
        badge_template_id: template,
        recipient_email: `${tag}-${i + k}@bench.example`,
        issued_to_first_name: "Bench",
        issued_to_last_name: "Earner",
        issued_at: "2026-12-01 10:00:00 +0000",
        suppress_badge_notification_email: true,
      }),
    );
    for (const b of await Promise.all(batch)) ids.push(b.id);
  }
  return ids;
};

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return { mean, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};

runBenchProcess(async (started: RunningServer[]) =>
  withBenchLaurel(
    started,
    { name: "pathways", title: "Pathway progress: the cost of an acceptance with and without pathways" },
    async (laurel) => {
      const created = await createBenchOrganization(laurel, "Pathway bench");
      const org = created.organization.id;
      const api = restClient(`${laurel.origin}/v1`, created.authorization_token.token);
      const template = async (name: string) =>
        (
          await api("POST", `/organizations/${org}/badge_templates`, {
            name,
            description: "Bench template",
            state: "active",
            allow_duplicate_badges: true,
          })
        ).id;
      const [plain, named, other1, other2, single, completion] = await Promise.all(
        ["Plain", "Named", "Other one", "Other two", "Single", "Completion"].map(template),
      );
      const publish = async (milestones: unknown[]) => {
        const p = await api("POST", `/organizations/${org}/pathways`, {
          name: `Bench pathway ${Math.random().toString(36).slice(2, 8)}`,
          description: "Bench",
          completion_badge_template_id: completion,
          milestones,
        });
        await api("PUT", `/organizations/${org}/pathways/${p.id}/publish`);
      };
      for (let i = 0; i < PATHWAYS; i++) {
        await publish([
          { name: "Start", badge_template_ids: [named, other1, other2], required: 3 },
          { name: "Then", badge_template_ids: [other1], required: 1 },
        ]);
      }
      await publish([{ name: "Only", badge_template_ids: [single], required: 1 }]);

      const accept = async (ids: string[]): Promise<number[]> => {
        const times: number[] = [];
        for (const id of ids) {
          const t0 = performance.now();
          await adminTrpc(laurel, "badges.accept", { badge_id: id });
          times.push(performance.now() - t0);
        }
        return times;
      };
      // Warm the accept path (code loaded, statements prepared) before anything is timed.
      await accept(await issueMany(api, org, plain, 30, "warm"));
      const cases = [
        { name: "no pathway names the template", template: plain, tag: "plain" },
        { name: `${PATHWAYS} pathways name it (progress kept)`, template: named, tag: "named" },
        { name: "each acceptance completes a pathway (completion badge issued)", template: single, tag: "single" },
      ];
      // The cases take turns, one acceptance each, so a drift of the machine or the database over
      // the run falls on all three alike.
      const pending = await Promise.all(cases.map((c) => issueMany(api, org, c.template, ACCEPTS, c.tag)));
      const times: number[][] = cases.map(() => []);
      for (let i = 0; i < ACCEPTS; i++) {
        for (const [k, ids] of pending.entries()) times[k]?.push(...(await accept([ids[i] as string])));
      }
      const results = cases.map((c, k) => ({ name: c.name, ...summary(times[k] ?? []) }));
      const base = results[0]?.mean ?? 1;
      log(`acceptances per case: ${ACCEPTS}, one at a time over tRPC on one connection, the cases in turn`);
      for (const r of results) {
        const extra =
          r === results[0]
            ? "(peer)"
            : `+${(r.mean - base).toFixed(2)} ms (${((r.mean / base - 1) * 100).toFixed(0)}%)`;
        log(`${r.name}: mean ${r.mean.toFixed(2)} ms, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms ${extra}`);
      }
      const progress = results[1] as { mean: number };
      const ok = progress.mean / base - 1 < TARGET_EXTRA;
      log(`target: ${PATHWAYS} pathways add under ${TARGET_EXTRA * 100}% to an acceptance: ${ok ? "met" : "MISSED"}`);
      return ok ? 0 : 1;
    },
  ),
);
