import t from "tap";
import { apiClient, createTemplate, eventRows, issueBody, organization } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * Issuing on a grantor's behalf on the embedded database (PGlite, one connection): the issue's own
 * transaction, taken while other issues and the mail budget run beside it, neither waits forever
 * nor lets a second exclusive badge through; the grantor ends it and the next issue is refused.
 */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel({ database: "pglite" });
});
t.teardown(() => laurel.close());

t.test("on-behalf issues beside the issuer's own, concurrently, on PGlite", async (t) => {
  t.equal(laurel.db.kind, "pglite");
  const api = apiClient(laurel);
  const grantor = await organization(laurel, "Embedded Grantor");
  const issuer = await organization(laurel, "Embedded Issuer");
  const theirs = await createTemplate(laurel, grantor, { name: "Theirs" });
  const own = await createTemplate(laurel, issuer, { name: "Own", allow_duplicate_badges: true });
  const made = await api("POST", `/organizations/${grantor.id}/issuers`, grantor.auth, {
    issuer_organization_id: issuer.id,
  });
  t.equal(
    (await api("PUT", `/organizations/${issuer.id}/grantors/${made.body.data.id}/accept`, issuer.auth)).status,
    200,
  );

  const results = await Promise.all([
    ...Array.from({ length: 4 }, () => api("POST", issuer.badges, issuer.auth, issueBody(theirs.id))),
    ...Array.from({ length: 4 }, (_, i) =>
      api("POST", issuer.badges, issuer.auth, issueBody(own.id, { recipient_email: `own${i}@example.org` })),
    ),
  ]);
  t.same(
    results
      .slice(0, 4)
      .map((r) => r.status)
      .sort(),
    [201, 422, 422, 422],
    "the grantor's exclusive template gives one badge, concurrently too",
  );
  t.same(
    results.slice(4).map((r) => r.status),
    [201, 201, 201, 201],
    "the issuer's own beside them",
  );
  t.equal((await eventRows(laurel, grantor.id, "badge.created")).length, 1, "the grantor's badge.created");
  t.equal((await eventRows(laurel, issuer.id, "badge.created")).length, 5, "the issuer's: its four and the one");

  t.equal((await api("DELETE", `/organizations/${grantor.id}/issuers/${made.body.data.id}`, grantor.auth)).status, 204);
  const after = await api(
    "POST",
    issuer.badges,
    issuer.auth,
    issueBody(theirs.id, { recipient_email: "late@example.org" }),
  );
  t.equal(after.status, 422, "refused once ended");
});
