import t, { type Test } from "tap";
import { createTemplate, eventually, type OrgFixture, organization } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { startWorkerBeside } from "../support/processes.ts";

/**
 * A worker process killed (SIGKILL) in the middle of a 5,000-row import: after workers start
 * again, every row is issued exactly once (badges and `badge.created` events counted by row key),
 * and none is lost.
 */

const ROWS = 5000;

interface ImportStatus {
  state: string;
  done_count: number;
  failed_count: number;
}

/** Posts `csv` as an import of `kind` and returns how to read its status: both tests crash a worker under one. */
const postImport = async (t: Test, laurel: TestLaurel, org: OrgFixture, kind: "badges" | "employees", csv: string) => {
  const res = await fetch(`${laurel.baseUrl}/organizations/${org.id}/${kind}/imports`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "text/csv" },
    body: csv,
  });
  t.equal(res.status, 201);
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  const status = async (): Promise<ImportStatus> =>
    (
      (await (
        await fetch(`${laurel.baseUrl}/organizations/${org.id}/${kind}/imports/${id}`, {
          headers: { authorization: org.auth },
        })
      ).json()) as { data: ImportStatus }
    ).data;
  return { id, status };
};

/** The import's status once it has finished. */
const finished = (status: () => Promise<ImportStatus>) =>
  eventually(async () => {
    const s = await status();
    return s.state === "finished" ? s : undefined;
  }, 120_000);

t.test("a killed worker's import resumes with every row issued exactly once", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const org = await organization(laurel, "Crash Org");
  // Duplicates allowed: a row issued twice would show as two badges to one address.
  const template = (await createTemplate(laurel, org, { allow_duplicate_badges: true })).id;
  const csv = [
    "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at,suppress_badge_notification_email",
    ...Array.from(
      { length: ROWS },
      (_, i) => `${template},row${i + 1}@example.org,Row,${i + 1},2024-03-01T10:00:00Z,true`,
    ),
  ].join("\n");
  const { id, status } = await postImport(t, laurel, org, "badges", csv);

  const first = await startWorkerBeside(laurel);
  const atKill = await eventually(async () => {
    const s = await status();
    return s.done_count >= 600 ? s : undefined;
  }, 60_000);
  await first.stop("SIGKILL");
  const afterKill = await status();
  t.ok(afterKill.done_count < ROWS, `killed in the middle (${afterKill.done_count} of ${ROWS} issued)`);
  t.ok(afterKill.done_count >= atKill.done_count);

  // Two workers take over: they share the rest without taking the same rows.
  const second = await startWorkerBeside(laurel);
  const third = await startWorkerBeside(laurel);
  t.teardown(async () => {
    await second.stop();
    await third.stop();
  });
  const end = await finished(status);
  t.match(end, { state: "finished", done_count: ROWS, failed_count: 0 });

  const perRecipient = await laurel.db.all<{ recipient_email: string; n: number }>(
    "select recipient_email, count(*)::int as n from badges where organization_id = ? group by recipient_email",
    [org.id],
  );
  t.equal(perRecipient.length, ROWS, "a badge for every row");
  t.same(
    perRecipient.filter((r) => r.n !== 1),
    [],
    "no row issued twice",
  );
  const events = await laurel.db.all<{ email: string; n: number }>(
    `select b.recipient_email as email, count(*)::int as n from events e
     join badges b on b.id = (e.detail->'badge'->>'id')::uuid
     where e.organization_id = ? and e.event_type = 'badge.created' group by 1`,
    [org.id],
  );
  t.equal(events.length, ROWS, "a badge.created event for every row");
  t.same(
    events.filter((e) => e.n !== 1),
    [],
    "one event per row",
  );
  const [linked] = await laurel.db.all<{ n: number }>(
    `select count(*)::int as n from import_rows r join badges b on b.id = r.outcome_id
     where r.import_id = ? and r.status = 'done' and b.recipient_email = 'row' || r.row_no || '@example.org'`,
    [id],
  );
  t.equal(linked?.n, ROWS, "each row's outcome is the badge issued for it");
});

t.test("a killed worker's employee import resumes: every record created once, no event twice", async (t) => {
  const PEOPLE = 10_000;
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const org = await organization(laurel, "Crash Employer");
  const csv = [
    "external_id,email,first_name,last_name,department",
    ...Array.from({ length: PEOPLE }, (_, i) => `E-${i + 1},e${i + 1}@example.org,Emp,${i + 1},Sales`),
  ].join("\n");
  const { id, status } = await postImport(t, laurel, org, "employees", csv);
  const first = await startWorkerBeside(laurel);
  await eventually(async () => ((await status()).done_count >= 2000 ? true : undefined), 60_000);
  await first.stop("SIGKILL");
  const afterKill = await status();
  t.ok(afterKill.done_count < PEOPLE, `killed in the middle (${afterKill.done_count} of ${PEOPLE} written)`);
  const second = await startWorkerBeside(laurel);
  t.teardown(() => second.stop());
  const end = await finished(status);
  t.match(end, { state: "finished", done_count: PEOPLE, failed_count: 0 });
  const [records] = await laurel.db.all<{ n: number }>(
    "select count(*)::int as n from employees where organization_id = ?",
    [org.id],
  );
  t.equal(records?.n, PEOPLE, "a record for every row");
  const created = await laurel.db.all<{ external_id: string; n: number }>(
    `select detail->'employment'->>'external_id' as external_id, count(*)::int as n from events
     where organization_id = ? and event_type = 'employment.created' group by 1`,
    [org.id],
  );
  t.equal(created.length, PEOPLE, "an employment.created event for every row");
  t.same(
    created.filter((c) => c.n !== 1),
    [],
    "none twice",
  );
  const [details] = await laurel.db.all<{ n: number }>(
    "select count(*)::int as n from import_rows where import_id = ? and detail = 'created'",
    [id],
  );
  t.equal(details?.n, PEOPLE, "every row's outcome says created (none was written before its outcome)");
});
