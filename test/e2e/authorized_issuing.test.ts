import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { checkAssertion, checkHostedOrigins, expandStrict } from "../support/ob2/check.ts";
import {
  makeTestCa,
  type Receiver,
  startReceiver,
  startTestPipeline,
  type TestCa,
  waitFor,
  webhookEnv,
  webhookOrganization,
} from "../support/webhooks.ts";

/**
 * Issuing on another organization's behalf: an authorized issuer issues a grantor's template
 * through its own badge routes; the badge is the grantor's and names both; both organizations list
 * it, record `badge.created` (and its later events) and receive it at their webhooks; the OB 2.0
 * assertion validates and names the grantor; once the authorization ends the next issue is refused.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let ca: TestCa;
let receiver: Receiver;
t.before(async () => {
  ca = makeTestCa();
  laurel = await startLaurel();
  api = apiClient(laurel);
  receiver = await startReceiver(ca);
});
t.teardown(async () => {
  await receiver.close();
  await laurel.close();
  ca.remove();
});

const eventsOf = async (org: { id: string; auth: string }) =>
  (await api("GET", `/organizations/${org.id}/events`, org.auth)).body.data as Array<{
    id: string;
    event_type: string;
  }>;

t.test("an authorized issuer issues a grantor's template: both records, both webhooks, OB 2.0", async (t) => {
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca));
  t.teardown(() => pipeline.stop());
  const g = await webhookOrganization(laurel, { url: receiver.url, name: "Grantor University" });
  const i = await webhookOrganization(laurel, { url: receiver.url, name: "Training Partner" });
  const grantor = {
    id: g.id,
    auth: g.auth,
    templates: `/organizations/${g.id}/badge_templates`,
    badges: `/organizations/${g.id}/badges`,
  };
  const issuer = {
    id: i.id,
    auth: i.auth,
    templates: `/organizations/${i.id}/badge_templates`,
    badges: `/organizations/${i.id}/badges`,
  };
  const stranger = await organization(laurel, "Stranger");
  const tpl = await createTemplate(laurel, grantor, { name: "Rust", allow_duplicate_badges: true });
  const other = await createTemplate(laurel, grantor, { name: "Go" });
  const own = await createTemplate(laurel, issuer, { name: "Partner's own" });

  const before = await api("POST", issuer.badges, issuer.auth, issueBody(tpl.id));
  t.equal(before.status, 422, "no authorization yet: the template is unknown to the issuer");
  t.match(before.body.data.reason, { name: "badge_template_unknown" });

  const granted = await api("POST", `/organizations/${g.id}/issuers`, g.auth, {
    issuer_organization_id: i.id,
    badge_template_ids: [tpl.id],
  });
  t.equal(granted.status, 201);
  const authorization = granted.body.data.id;
  t.equal((await api("POST", issuer.badges, issuer.auth, issueBody(tpl.id))).status, 422, "not while pending");
  t.equal((await api("PUT", `/organizations/${i.id}/grantors/${authorization}/accept`, i.auth)).status, 200);

  const issued = await api(
    "POST",
    issuer.badges,
    issuer.auth,
    issueBody(tpl.id, { recipient_email: "ada@example.org" }),
  );
  t.equal(issued.status, 201, "issued through the issuer's own route");
  const badge = issued.body.data;
  t.same(badge.issuer, {
    name: "Grantor University",
    image_url: null,
    authorized_issuer: { id: i.id, name: "Training Partner", image_url: null },
  });
  t.equal(badge.badge_template.id, tpl.id);
  t.equal(
    (await api("POST", issuer.badges, issuer.auth, issueBody(other.id))).status,
    422,
    "a template the authorization does not name",
  );
  t.equal(
    (await api("POST", stranger.badges, stranger.auth, issueBody(tpl.id))).status,
    422,
    "an organization not authorized",
  );

  // Both organizations read it and list it; a filter tells issued-on-behalf badges apart.
  t.equal((await api("GET", `${grantor.badges}/${badge.id}`, g.auth)).status, 200, "the grantor's badge");
  t.equal((await api("GET", `${issuer.badges}/${badge.id}`, i.auth)).status, 200, "the issuer reads it");
  t.equal((await api("GET", `${stranger.badges}/${badge.id}`, stranger.auth)).status, 404);
  const ownBadge = await api("POST", issuer.badges, issuer.auth, issueBody(own.id));
  t.equal(ownBadge.status, 201);
  const ids = async (org: { badges: string; auth: string }, query = "") =>
    ((await api("GET", `${org.badges}${query}`, org.auth)).body.data as Array<{ id: string }>).map((b) => b.id);
  t.same(await ids(grantor), [badge.id], "the grantor lists it");
  t.same((await ids(issuer)).sort(), [badge.id, ownBadge.body.data.id].sort(), "the issuer lists it beside its own");
  t.same(await ids(issuer, "?filter=on_behalf::true"), [badge.id], "on_behalf::true: issued for a grantor");
  t.same(await ids(issuer, "?filter=on_behalf::false"), [ownBadge.body.data.id], "on_behalf::false: its own");
  t.same(await ids(grantor, "?filter=on_behalf::true"), [badge.id], "for the grantor: issued by its issuers");
  t.same(await ids(grantor, `?filter=issued_by_organization_id::${i.id}`), [badge.id]);
  t.same(await ids(issuer, `?filter=organization_id::${g.id}`), [badge.id], "the issuer's badges of one grantor");
  t.same(await ids(stranger), [], "nobody else lists it");
  t.equal(
    (await api("GET", `/organizations/${i.id}/high_volume_issued_badge_search`, i.auth)).body.data.length,
    2,
    "the high-volume search reads the same badges",
  );

  // Both event records hold badge.created, with the same badge.
  const created = async (org: { id: string; auth: string }) =>
    (await eventsOf(org)).filter((e) => e.event_type === "badge.created");
  const [gCreated] = await created(grantor);
  const iCreatedAll = await created(issuer);
  t.ok(gCreated, "the grantor's records hold badge.created");
  t.equal(iCreatedAll.length, 2, "the issuer's records hold badge.created of both its badges");
  const detailOf = async (org: { id: string; auth: string }, id: string) =>
    (await api("GET", `/organizations/${org.id}/events/${id}`, org.auth)).body.data;
  const gDetail = await detailOf(grantor, gCreated?.id ?? "");
  t.match(gDetail, { organization_id: g.id, badge: { id: badge.id, issuer: { name: "Grantor University" } } });
  const iDetail = (await Promise.all(iCreatedAll.map((e) => detailOf(issuer, e.id)))).find(
    (d) => d.badge.id === badge.id,
  );
  t.match(iDetail, {
    organization_id: i.id,
    badge: { id: badge.id, issuer: { authorized_issuer: { id: i.id } } },
  });

  // Both webhooks receive it.
  const delivered = await waitFor("both webhooks", () => {
    const ids = new Set(receiver.received.map((d) => d.json.id));
    return ids.has(gCreated?.id ?? "") && ids.has(iDetail.id) ? true : undefined;
  });
  t.ok(delivered);
  t.same(
    receiver.verify(
      [g.secret],
      receiver.received.filter((d) => d.json.organization_id === g.id),
    ),
    [],
    "the grantor's deliveries are signed with its secret",
  );
  t.same(
    receiver.verify(
      [i.secret],
      receiver.received.filter((d) => d.json.organization_id === i.id),
    ),
    [],
    "the issuer's with its own",
  );

  // Later events go to both: the earner accepts it.
  await trpc(laurel, "badges.accept", { badge_id: badge.id });
  t.ok(
    (await eventsOf(grantor)).some((e) => e.event_type === "badge.state.changed"),
    "the grantor's state change",
  );
  t.ok(
    (await eventsOf(issuer)).some((e) => e.event_type === "badge.state.changed"),
    "the issuer's",
  );

  // The OB 2.0 assertion validates and names the grantor as its issuer.
  const get = async (url: string) => {
    const res = await fetch(url, { headers: { accept: "application/ld+json" } });
    return { status: res.status, body: await res.json() };
  };
  const assertion = await get(`${laurel.baseUrl}/obi/v2/badge_assertions/${badge.id}`);
  t.equal(assertion.status, 200);
  t.same(checkAssertion(assertion.body, { now: new Date(), email: "ada@example.org" }), []);
  t.ok(await expandStrict(assertion.body));
  const badgeClass = await get(assertion.body.badge);
  const issuerProfile = await get(badgeClass.body.issuer.id);
  t.equal(issuerProfile.body.id, `${laurel.baseUrl}/obi/v2/issuers/${g.id}`, "the grantor is the OB 2.0 issuer");
  t.equal(issuerProfile.body.name, "Grantor University");
  t.same(checkHostedOrigins(assertion.body, badgeClass.body, issuerProfile.body), []);

  // The grantor ends the authorization: the next issue is refused; the badge stays valid.
  t.equal((await api("DELETE", `/organizations/${g.id}/issuers/${authorization}`, g.auth)).status, 204);
  const after = await api(
    "POST",
    issuer.badges,
    issuer.auth,
    issueBody(tpl.id, { recipient_email: "bob@example.org" }),
  );
  t.equal(after.status, 422, "refused once the authorization ended");
  t.match(after.body.data, { reason: { name: "badge_template_unknown" }, errors: [{ field: "badge_template_id" }] });
  t.equal((await get(`${laurel.baseUrl}/obi/v2/badge_assertions/${badge.id}`)).status, 200, "still valid");
  t.same(await ids(issuer, "?filter=on_behalf::true"), [badge.id], "still in the issuer's list");
});

t.test("batch issue on a grantor's behalf, item by item", async (t) => {
  const grantor = await organization(laurel, "Batch Grantor");
  const issuer = await organization(laurel, "Batch Issuer");
  const tpl = await createTemplate(laurel, grantor, { name: "Batch" });
  const made = await api("POST", `/organizations/${grantor.id}/issuers`, grantor.auth, {
    issuer_organization_id: issuer.id,
  });
  await api("PUT", `/organizations/${issuer.id}/grantors/${made.body.data.id}/accept`, issuer.auth);
  const res = await api("POST", `${issuer.badges}/batch`, issuer.auth, {
    badges: [
      issueBody(tpl.id, { recipient_email: "one@example.org" }),
      issueBody(tpl.id, { recipient_email: "one@example.org" }),
      issueBody("0190a0d8-0000-7000-8000-000000000000", { recipient_email: "two@example.org" }),
    ],
  });
  t.ok([200, 201, 207].includes(res.status), `answered ${res.status}`);
  const body = JSON.stringify(res.body);
  t.match(body, /User already has this badge/, "the duplicate rule holds for the grantor's template");
  const listed = (await api("GET", grantor.badges, grantor.auth)).body.data;
  t.equal(listed.length, 1, "one badge, the grantor's");
  t.match(listed[0], { recipient_email: "one@example.org", issuer: { authorized_issuer: { id: issuer.id } } });
});
