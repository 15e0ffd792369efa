import t from "tap";
import { apiClient, createTemplate, organization, trpc, trpcFailure } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { trpcQuery } from "../support/webhooks.ts";

/**
 * The operator's tRPC over pathways (list, earners, archive) and authorized issuers (either side's
 * list, ending one): the API's use cases acting as the operator, audited as such.
 */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

// biome-ignore lint/suspicious/noExplicitAny: tRPC answers
type Json = any;
const query = (path: string, input: unknown) =>
  trpcQuery(laurel.adminOrigin, laurel.server.adminToken, path, input) as Promise<Json>;

t.test("pathways: list, an earner's progress, archive", async (t) => {
  const api = apiClient(laurel);
  const org = await organization(laurel, "Operated Pathways");
  const [a, done] = [
    await createTemplate(laurel, org, { name: "A" }),
    await createTemplate(laurel, org, { name: "Done" }),
  ];
  const made = await api("POST", `/organizations/${org.id}/pathways`, org.auth, {
    name: "Route",
    description: "Two steps",
    completion_badge_template_id: done.id,
    milestones: [{ name: "First", badge_template_ids: [a.id] }],
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const id = made.body.data.id;
  t.equal((await api("PUT", `/organizations/${org.id}/pathways/${id}/publish`, org.auth)).status, 200);
  const listed = await query("pathways.list", { organization_id: org.id, state: "published" });
  t.same(
    listed.data.map((p: Json) => p.id),
    [id],
  );
  const none = await query("pathways.earners", { organization_id: org.id, pathway_id: id });
  t.equal(none.metadata.total_count, 0, "nobody started it yet");
  const badge = await api("POST", org.badges, org.auth, {
    badge_template_id: a.id,
    recipient_email: "walker@example.org",
    issued_to_first_name: "Wal",
    issued_to_last_name: "Ker",
    issued_at: "2026-12-01 10:00:00 +0000",
    suppress_badge_notification_email: true,
  });
  await trpc(laurel, "badges.accept", { badge_id: badge.body.data.id });
  const earners = await query("pathways.earners", { organization_id: org.id, pathway_id: id, state: "completed" });
  t.equal(earners.data.length, 1, "the earner who completed it");
  t.equal(earners.data[0].recipient_email, "walker@example.org");
  const archived = (await trpc(laurel, "pathways.archive", { organization_id: org.id, pathway_id: id })) as Json;
  t.equal(archived.state, "archived");
  const again = await trpcFailure(laurel, "pathways.archive", { organization_id: org.id, pathway_id: id });
  t.equal(again.code, "UNPROCESSABLE_CONTENT", "an archived pathway is not archived twice");
  const audit = await laurel.db.all<{ actor_kind: string }>(
    "select actor_kind from audit_log where organization_id = ? and action = 'pathway.archived'",
    [org.id],
  );
  t.same(audit, [{ actor_kind: "operator" }]);
});

t.test("authorized issuers: either side's list, and ending one", async (t) => {
  const api = apiClient(laurel);
  const grantor = await organization(laurel, "Operated Grantor");
  const issuer = await organization(laurel, "Operated Issuer");
  const granted = await api("POST", `/organizations/${grantor.id}/issuers`, grantor.auth, {
    issuer_organization_id: issuer.id,
  });
  t.equal(granted.status, 201, JSON.stringify(granted.body));
  const id = granted.body.data.id;
  const ofGrantor = await query("issuerAuthorizations.list", { organization_id: grantor.id, side: "grantor" });
  t.same(
    ofGrantor.data.map((a: Json) => a.id),
    [id],
  );
  const ofIssuer = await query("issuerAuthorizations.list", { organization_id: issuer.id, side: "issuer" });
  t.same(
    ofIssuer.data.map((a: Json) => a.id),
    [id],
  );
  const wrongSide = await query("issuerAuthorizations.list", { organization_id: grantor.id, side: "issuer" });
  t.equal(wrongSide.data.length, 0, "the grantor received none");
  const notTheirs = await trpcFailure(laurel, "issuerAuthorizations.end", {
    organization_id: issuer.id,
    side: "grantor",
    issuer_authorization_id: id,
  });
  t.equal(notTheirs.code, "NOT_FOUND", "the issuer cannot reach it by the grantor's path");
  const ended = (await trpc(laurel, "issuerAuthorizations.end", {
    organization_id: grantor.id,
    side: "grantor",
    issuer_authorization_id: id,
  })) as Json;
  t.equal(ended.state, "ended");
  t.equal(ended.ended_by, "grantor");
});
