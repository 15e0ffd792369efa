import t from "tap";
import { apiClient, createTemplate, eventually, type OrgFixture, organization } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * A CSV import by an authorized issuer: rows of the grantor's templates it may issue are checked
 * and issued on the grantor's behalf; rows of a template it may not issue are refused before
 * anything is issued, with the message any unknown template gets.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel({ importWorker: true });
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

const HEADER = "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at";

const post = async (org: OrgFixture, path: string, body: string) => {
  const res = await fetch(`${laurel.baseUrl}/organizations/${org.id}/${path}`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "text/csv" },
    body,
  });
  return { status: res.status, body: await res.json() };
};

t.test("an issuer imports a file of its grantor's template", async (t) => {
  const grantor = await organization(laurel, "Import Grantor");
  const issuer = await organization(laurel, "Import Issuer");
  const covered = await createTemplate(laurel, grantor, { name: "Covered" });
  const notCovered = await createTemplate(laurel, grantor, { name: "Not covered" });
  const made = await api("POST", `/organizations/${grantor.id}/issuers`, grantor.auth, {
    issuer_organization_id: issuer.id,
    badge_template_ids: [covered.id],
  });
  await api("PUT", `/organizations/${issuer.id}/grantors/${made.body.data.id}/accept`, issuer.auth);
  const csv = [
    HEADER,
    `${covered.id},one@example.org,Ada,Lovelace,2024-03-01T10:00:00Z`,
    `${covered.id},two@example.org,Bob,Builder,2024-03-01T10:00:00Z`,
    `${notCovered.id},three@example.org,Cy,Young,2024-03-01T10:00:00Z`,
  ].join("\n");

  const dry = await post(issuer, "badges/imports?dry_run=true", csv);
  t.equal(dry.status, 200, JSON.stringify(dry.body));
  t.match(dry.body.data, { row_count: 3, valid_count: 2, invalid_count: 1 });
  t.match(dry.body.data.errors, [
    { row: 3, column: "badge_template_id", message: /no badge template of this organization/ },
  ]);

  const started = await post(issuer, "badges/imports", csv);
  t.equal(started.status, 201, JSON.stringify(started.body));
  const done = await eventually(async () => {
    const r = (await api("GET", `/organizations/${issuer.id}/badges/imports/${started.body.data.id}`, issuer.auth)).body
      .data;
    return r.state === "finished" || r.state === "failed" ? r : undefined;
  }, 30_000);
  t.match(done, { state: "finished", done_count: 2, failed_count: 0 });

  const listed = (await api("GET", `${grantor.badges}?filter=on_behalf::true`, grantor.auth)).body.data;
  t.same(
    listed.map((b: { recipient_email: string }) => b.recipient_email).sort(),
    ["one@example.org", "two@example.org"],
    "the grantor's badges, issued by the issuer",
  );
  t.ok(
    listed.every((b: { issuer: { authorized_issuer: { id: string } } }) => b.issuer.authorized_issuer.id === issuer.id),
  );
  const events = await laurel.db.all<{ organization_id: string }>(
    "select organization_id from events where event_type = 'badge.created' and organization_id in (?, ?)",
    [grantor.id, issuer.id],
  );
  t.equal(events.filter((e) => e.organization_id === grantor.id).length, 2, "badge.created for the grantor");
  t.equal(events.filter((e) => e.organization_id === issuer.id).length, 2, "and for the issuer");
});
