// Benchmark of CSV imports, in one run, against Laurel's API server (apps/server.ts) and one worker
// process (apps/worker.ts), as deployed:
//   1. A 10,000-row badge import, from the upload to the last badge issued (the import's state
//      polled every 50 ms), against the REST batch endpoint issuing the same 10,000 badges
//      (100 per request, 4 requests in flight) in the same run; target: the import's rate at least
//      50% of the batch endpoint's.
//   2. A 100,000-row employee import, from the upload to the last record written; target under
//      60 s, and the API process's resident memory growing by less than 100 MiB meanwhile (sampled
//      every 100 ms, the peak against the figure before the upload).
//   3. An employee file at the size limit (48 MiB: 100,000 rows of about 500 bytes), checked only
//      (`dry_run=true`: spooled to disk, then parsed as it is read back): the API process's resident
//      memory growing by less than 96 MiB meanwhile (most of it garbage of the parse: the file is
//      never held).
// Both imports suppress nothing the batch does not: the same items, notifications suppressed.
//
// Run: BENCH_ONLY=imports npm run bench, or npx node ops/bench/imports.ts once PostgreSQL runs.
// A fresh database is made beside BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL and
// dropped afterwards; NATS_URL is used when set, else a nats-server of its own is started.
// Env: BENCH_IMPORT_BADGES (default 10000), BENCH_IMPORT_EMPLOYEES (default 100000). Targets are
// judged only at the default sizes. The last line is one JSON object with the figures.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalNats, startLocalNats } from "../../adapters/bus/mod.ts";
import { benchAdminUrl, createBenchDatabase, log, startLaurelServer } from "./laurel_process.ts";
import { BENCH_RATE_LIMITS, serverNodeArgs } from "./laurel_setup.ts";
import { basicHeader, delay, laurelEntry, rssKiB, startServer } from "./lib.ts";

const BADGES = Number(process.env.BENCH_IMPORT_BADGES ?? 10_000);
const EMPLOYEES = Number(process.env.BENCH_IMPORT_EMPLOYEES ?? 100_000);
const FULL = BADGES === 10_000 && EMPLOYEES === 100_000;
const adminUrl = benchAdminUrl();

const main = async (): Promise<void> => {
  const database = await createBenchDatabase(adminUrl);
  const dir = mkdtempSync(join(tmpdir(), "laurel-bench-imports-"));
  const nats: LocalNats | null = process.env.NATS_URL ? null : await startLocalNats({ storeDir: join(dir, "nats") });
  const natsUrl = process.env.NATS_URL ?? (nats as LocalNats).url;
  const laurel = await startLaurelServer(database.url, natsUrl, dir);
  const worker = await startServer({
    name: "worker",
    command: process.execPath,
    args: [...serverNodeArgs(), laurelEntry("worker")],
    env: { DATA_DIR: dir, DATABASE_URL: database.url, NATS_URL: natsUrl, HOST: "127.0.0.1", ...BENCH_RATE_LIMITS },
    ready: /webhook worker ready/,
    readyTimeoutMs: 120_000,
  });
  try {
    const created = await fetch(`${laurel.adminOrigin}/trpc/organizations.create`, {
      method: "POST",
      headers: { authorization: `Bearer ${laurel.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench imports", email: "bench@example.org" }),
    });
    const org = (
      (await created.json()) as {
        result: { data: { organization: { id: string }; authorization_token: { token: string } } };
      }
    ).result.data;
    const api = `${laurel.origin}/v1/organizations/${org.organization.id}`;
    const auth = basicHeader(org.authorization_token.token, "");
    const json = { authorization: auth, "content-type": "application/json" };
    const template = async (name: string): Promise<string> => {
      const res = await fetch(`${api}/badge_templates`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ name, description: "bench", state: "active" }),
      });
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    const item = (templateId: string, i: number) => ({
      badge_template_id: templateId,
      recipient_email: `learner${i}@example.org`,
      issued_to_first_name: "Bench",
      issued_to_last_name: `Learner ${i}`,
      issued_at: "2026-01-01T00:00:00Z",
      suppress_badge_notification_email: true,
    });

    // A warm-up of both paths (JIT, prepared statements, the worker's first poll), not measured.
    const warm = await template("Warm-up");
    const warmRes = await fetch(`${api}/badges/batch`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ badges: Array.from({ length: 100 }, (_, i) => item(warm, -1 - i)) }),
    });
    if (warmRes.status !== 201) throw new Error(`warm-up batch: ${warmRes.status} ${await warmRes.text()}`);

    // 1a. The batch endpoint.
    const batchTemplate = await template("Batch");
    const batches: object[][] = [];
    for (let i = 0; i < BADGES; i += 100)
      batches.push(Array.from({ length: Math.min(100, BADGES - i) }, (_, k) => item(batchTemplate, i + k)));
    const batchStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < batches.length) {
          const badges = batches[next++];
          const res = await fetch(`${api}/badges/batch`, {
            method: "POST",
            headers: json,
            body: JSON.stringify({ badges }),
          });
          if (res.status !== 201) throw new Error(`batch: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      }),
    );
    const batchS = (performance.now() - batchStart) / 1000;
    log(`batch endpoint: ${BADGES} badges in ${batchS.toFixed(2)} s (${(BADGES / batchS).toFixed(0)}/s)`);

    // 1b. The same badges from a CSV import.
    const importTemplate = await template("Import");
    const csv = [
      "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at,suppress_badge_notification_email",
      ...Array.from({ length: BADGES }, (_, i) => {
        const x = item(importTemplate, i);
        return `${x.badge_template_id},${x.recipient_email},${x.issued_to_first_name},${x.issued_to_last_name},${x.issued_at},true`;
      }),
    ].join("\n");
    const finish = async (kind: string, body: string, onPoll: () => void = () => {}): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${api}/${kind}/imports`, {
        method: "POST",
        headers: { authorization: auth, "content-type": "text/csv" },
        body,
      });
      if (res.status !== 201) throw new Error(`${kind} import: ${res.status} ${await res.text()}`);
      const id = ((await res.json()) as { data: { id: string } }).data.id;
      for (;;) {
        onPoll();
        const s = await fetch(`${api}/${kind}/imports/${id}`, { headers: { authorization: auth } });
        const data = ((await s.json()) as { data: { state: string; done_count: number; row_count: number } }).data;
        if (data.state === "finished" || data.state === "failed") {
          if (data.done_count !== data.row_count)
            throw new Error(`${kind} import: ${data.done_count} of ${data.row_count}`);
          return (performance.now() - t0) / 1000;
        }
        await delay(50);
      }
    };
    await finish(
      "badges",
      [
        csv.split("\n")[0],
        ...Array.from({ length: 100 }, (_, i) => `${warm},warm${i}@example.org,Bench,Warm,2026-01-01T00:00:00Z,true`),
      ].join("\n"),
    );
    const importS = await finish("badges", csv);
    const ratio = batchS / importS;
    log(
      `CSV import: ${BADGES} badges in ${importS.toFixed(2)} s (${(BADGES / importS).toFixed(0)}/s), ${(ratio * 100).toFixed(0)}% of the batch endpoint's rate`,
    );

    // 2. 100,000 employee records, and the API process's memory meanwhile.
    const people = [
      "external_id,email,first_name,last_name,department,team,position_title",
      ...Array.from(
        { length: EMPLOYEES },
        (_, i) => `E-${i},e${i}@example.com,Import,Row ${i},Dept ${i % 7},Team ${i % 40},Engineer`,
      ),
    ].join("\n");
    const rssBefore = rssKiB(laurel.server.pid) ?? 0;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssKiB(laurel.server.pid) ?? 0);
    }, 100);
    const employeesS = await finish("employees", people).finally(() => clearInterval(sampler));
    const growthMiB = (rssPeak - rssBefore) / 1024;
    log(
      `CSV import: ${EMPLOYEES} employee records in ${employeesS.toFixed(1)} s; API RSS ${(rssBefore / 1024).toFixed(0)} -> peak ${(rssPeak / 1024).toFixed(0)} MiB (+${growthMiB.toFixed(0)})`,
    );

    // 3. A file at the size limit, read and checked only; rows of about 500 bytes (a long position
    // title each, refused by its length: the parse is what is measured, not the writes).
    const title = "x".repeat(430);
    const large = [
      "external_id,email,first_name,last_name,department,team,position_title",
      ...Array.from({ length: EMPLOYEES }, (_, i) => `L-${i},l${i}@example.com,Large,Row ${i},Dept,Team,${title}`),
    ].join("\n");
    const largeMiB = Buffer.byteLength(large) / 1024 / 1024;
    const largeBefore = rssKiB(laurel.server.pid) ?? 0;
    let largePeak = largeBefore;
    const largeSampler = setInterval(() => {
      largePeak = Math.max(largePeak, rssKiB(laurel.server.pid) ?? 0);
    }, 50);
    const checkStart = performance.now();
    const checked = await fetch(`${api}/employees/imports?dry_run=true`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "text/csv" },
      body: large,
    }).finally(() => clearInterval(largeSampler));
    const checkS = (performance.now() - checkStart) / 1000;
    const checkedBody = (await checked.json()) as { data: { row_count?: number } };
    if (checked.status !== 200)
      throw new Error(`the large file was answered ${checked.status}: ${JSON.stringify(checkedBody)}`);
    const largeGrowthMiB = (largePeak - largeBefore) / 1024;
    log(
      `CSV check: a ${largeMiB.toFixed(1)} MiB employee file (${checkedBody.data.row_count} rows) read and checked in ${checkS.toFixed(1)} s; API RSS ${(largeBefore / 1024).toFixed(0)} -> peak ${(largePeak / 1024).toFixed(0)} MiB (+${largeGrowthMiB.toFixed(0)})`,
    );

    const figures = {
      import_badges_rows: BADGES,
      batch_badges_s: Number(batchS.toFixed(2)),
      import_badges_s: Number(importS.toFixed(2)),
      import_vs_batch_rate: Number(ratio.toFixed(2)),
      import_100k_rows: EMPLOYEES,
      import_100k_s: Number(employeesS.toFixed(1)),
      import_rss_growth_mib: Number(growthMiB.toFixed(0)),
      check_limit_file_mib: Number(largeMiB.toFixed(1)),
      check_limit_file_s: Number(checkS.toFixed(1)),
      check_limit_rss_growth_mib: Number(largeGrowthMiB.toFixed(0)),
    };
    const missed = FULL
      ? [
          ratio < 0.5 ? "import_vs_batch_rate >= 0.5" : null,
          employeesS >= 60 ? "import_100k_s < 60" : null,
          growthMiB >= 100 ? "import_rss_growth_mib < 100" : null,
          largeGrowthMiB >= 96 ? "check_limit_rss_growth_mib < 96" : null,
        ].filter((m) => m !== null)
      : [];
    if (!FULL) log("(not the default sizes: targets not judged)");
    for (const m of missed) log(`target missed: ${m}`);
    log(JSON.stringify(figures));
    if (missed.length > 0) process.exitCode = 1;
  } finally {
    await worker.stop();
    await laurel.server.stop();
    await nats?.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
};

await main();
