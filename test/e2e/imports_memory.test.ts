import { readFileSync } from "node:fs";
import t from "tap";
import { organization } from "../support/badges.ts";
import { spawnServer, startLaurel } from "../support/laurel.ts";

/**
 * The upload of a large employee file, to a separate API process (as in production) whose
 * resident memory is sampled meanwhile: the file's bytes are never walked as an object (the
 * guard against text PostgreSQL cannot store reads text, not bytes), and the rows checked are not
 * all held at once.
 */
const ROWS = 100_000;
/**
 * The largest file the kind admits (10 MiB). Held whole (records, then every checked row with its
 * item, then the insert's JSON) the upload grew the process by about 150 MiB; streamed, by about
 * 85-95 MiB with an uncapped heap, most of it garbage V8 had not yet collected, and by how much
 * depended on how busy the machine was (128 MiB once, beside two other test files). The API
 * process here runs with its old generation capped at `HEAP_CAP_MIB`, so the collector must reclaim
 * what the import no longer holds: what remains is what the import needs (about 20 MiB). By the
 * figures above, a version that held the file whole could not stay under the bound.
 */
const BOUND_MIB = 64;
const HEAP_CAP_MIB = 128;

const laurel = await startLaurel();
const api = await spawnServer({
  DATABASE_URL: laurel.database?.url ?? "",
  NATS_URL: laurel.nats.url,
  DATA_DIR: laurel.dataDir,
  // Appended: tap passes its own options to child processes this way.
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --max-old-space-size=${HEAP_CAP_MIB}`,
});
t.teardown(async () => {
  await api.stop();
  await laurel.close();
});

/** Resident memory of the API process, from the kernel's accounting. */
const rssBytes = (): number => {
  const status = readFileSync(`/proc/${api.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
};

const people = (rows: number, prefix: string): string =>
  [
    "external_id,email,first_name,last_name,department,team,position_title,country,level",
    ...Array.from(
      { length: rows },
      (_, i) =>
        `${prefix}-${i},${prefix.toLowerCase()}${i}@example.com,Import,Row ${i},Dept ${i % 7},Team ${i % 40},Engineer,NL,L${i % 5}`,
    ),
  ].join("\n");

t.test(
  `a ${ROWS.toLocaleString("en")}-row employee file grows the API process by less than ${BOUND_MIB} MiB`,
  async (t) => {
    const org = await organization(laurel, "Large HR Co");
    const upload = (csv: string) =>
      fetch(`${api.origin}/v1/organizations/${org.id}/employees/imports`, {
        method: "POST",
        headers: { authorization: org.auth, "content-type": "text/csv" },
        body: csv,
      });
    // A small file first, so the code it runs is loaded before the baseline.
    const warm = await upload(people(100, "W"));
    t.equal(warm.status, 201, await warm.text());

    const csv = people(ROWS, "E");
    const baseline = rssBytes();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes());
    }, 20);
    const res = await upload(csv);
    const body = await res.json();
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes());
    t.equal(res.status, 201, JSON.stringify(body));
    t.match(body.data, { state: "running", row_count: ROWS, valid_count: ROWS, invalid_count: 0, errors: [] });
    const stored = await laurel.db.one<{ n: number }>(
      "select count(*)::int as n from import_rows where import_id = ? and status = 'pending'",
      [body.data.id],
    );
    t.equal(stored?.n, ROWS, "every row is stored, pending for the workers");
    const grown = (peak - baseline) / 1024 / 1024;
    t.ok(grown < BOUND_MIB, `the API process grew by ${grown.toFixed(1)} MiB (< ${BOUND_MIB} MiB)`);
  },
);

t.test("a file refused after rows were written leaves nothing stored", async (t) => {
  const org = await organization(laurel, "Refused HR Co");
  // Past the first chunk written, then a quote left open to the end of the file.
  const csv = `${people(2500, "R")}\nR-x,"open@example.com,Open,Quote,Dept,Team,Engineer,NL,L1`;
  const res = await fetch(`${api.origin}/v1/organizations/${org.id}/employees/imports`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "text/csv" },
    body: csv,
  });
  const body = await res.json();
  t.equal(res.status, 422, JSON.stringify(body));
  t.match(body.data.message, /not valid CSV/);
  const imports = await laurel.db.one<{ n: number }>(
    "select count(*)::int as n from imports where organization_id = ?",
    [org.id],
  );
  t.equal(imports?.n, 0, "no import is stored");
  const rows = await laurel.db.one<{ n: number }>(
    "select count(*)::int as n from import_rows r where not exists (select 1 from imports i where i.id = r.import_id)",
  );
  t.equal(rows?.n, 0, "and no row of one");
});
