import t from "tap";
import { createTemplate, eventRows, eventually, organization } from "../support/badges.ts";
import { startLaurel } from "../support/laurel.ts";

/** `npm start`'s embedded database (one connection): an import is worked there too. */
t.test("a badge import and an employee import finish on PGlite", async (t) => {
  const laurel = await startLaurel({ database: "pglite", importWorker: true });
  t.teardown(() => laurel.close());
  const org = await organization(laurel, "Embedded Org");
  const template = (await createTemplate(laurel, org)).id;
  const files = {
    badges: [
      "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at",
      ...Array.from({ length: 30 }, (_, i) => `${template},p${i}@example.org,Ada,Lovelace,2024-03-01T10:00:00Z`),
    ].join("\n"),
    employees: [
      "external_id,email,first_name,last_name",
      "E1,e1@example.org,Emp,One",
      "E2,e2@example.org,Emp,Two",
    ].join("\n"),
  };
  for (const kind of ["badges", "employees"] as const) {
    const res = await fetch(`${laurel.baseUrl}/organizations/${org.id}/${kind}/imports`, {
      method: "POST",
      headers: { authorization: org.auth, "content-type": "text/csv" },
      body: files[kind],
    });
    t.equal(res.status, 201, kind);
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    const done = await eventually(async () => {
      const s = await fetch(`${laurel.baseUrl}/organizations/${org.id}/${kind}/imports/${id}`, {
        headers: { authorization: org.auth },
      });
      const data = ((await s.json()) as { data: { state: string; done_count: number } }).data;
      return data.state === "running" ? undefined : data;
    }, 30_000);
    t.match(done, { state: "finished", done_count: kind === "badges" ? 30 : 2 }, kind);
  }
  t.equal((await eventRows(laurel, org.id, "badge.created")).length, 30);
  t.equal((await eventRows(laurel, org.id, "employment.created")).length, 2);
});
