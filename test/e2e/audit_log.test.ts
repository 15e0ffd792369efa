import t from "tap";
import { postgresAuditLog, postgresMemberStore, postgresWebhookLogPartitions } from "../../adapters/db/mod.ts";
import { auditRecord, readAuditLog } from "../../core/audit/mod.ts";
import { startRetention } from "../../workers/mod.ts";
import { apiClient, createTemplate, eventually, issueBody, organization, trpc } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * The audit log of the Developers section's changes, whatever the door: OAuth applications and
 * authorization tokens over REST (the credential and the client's address), webhook settings
 * and data services through the admin API (the operator); and its retention job.
 */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

interface Row {
  action: string;
  actor_kind: string;
  actor_id: string | null;
  target: string | null;
  client_address: string | null;
  details: Record<string, unknown>;
}
const rows = (organizationId: string) =>
  laurel.db.all<Row>(
    "select action, actor_kind, actor_id, target, client_address, details from audit_log where organization_id = ? order by occurred_at, id",
    [organizationId],
  );

const call = async (method: string, url: string, auth: string, body?: unknown) => {
  const res = await fetch(url, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

t.test("OAuth applications and authorization tokens over REST", async (t) => {
  const a = await laurel.createOrganization("Audited");
  const base = `${laurel.baseUrl}/organizations/${a.organization.id}`;
  const full = basic(a.authorization_token.token);
  const tokenId = a.authorization_token.id;

  const app = await call("POST", `${base}/oauth_applications`, full, { name: "Sync" });
  t.equal(app.status, 201);
  t.equal((await call("PUT", `${base}/oauth_applications/${app.body.data.id}`, full, { name: "Sync 2" })).status, 200);
  t.equal((await call("DELETE", `${base}/oauth_applications/2147483000`, full)).status, 404);
  t.equal((await call("DELETE", `${base}/oauth_applications/${app.body.data.id}`, full)).status, 204);
  const made = await call("POST", `${base}/authorization_tokens`, full, { description: "ci", delete_enabled: false });
  t.equal(made.status, 201);
  const rotated = await call("POST", `${base}/authorization_tokens/rotate`, basic(made.body.data.token), {});
  t.equal(rotated.status, 201);

  // An application's access token acts as that application.
  const app2 = await call("POST", `${base}/oauth_applications`, full, { name: "Bearer maker" });
  const issued = await fetch(`${laurel.authUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: app2.body.data.uid,
      client_secret: app2.body.data.secret,
      scope: "oauth_applications",
    }).toString(),
  });
  const bearer = `Bearer ${((await issued.json()) as { access_token: string }).access_token}`;
  t.equal((await call("POST", `${base}/oauth_applications`, bearer, { name: "By bearer" })).status, 201);

  const audit = await rows(a.organization.id);
  // The organization's own creation is recorded first, by the operator.
  // The organization and its first token are made in the same millisecond: no order between them.
  t.same(
    audit
      .slice(0, 2)
      .map((r) => r.action)
      .sort(),
    ["authorization_token.created", "organization.created"],
  );
  t.same(
    audit.slice(2).map((r) => [r.action, r.actor_kind]),
    [
      ["oauth_application.created", "authorization_token"],
      ["oauth_application.updated", "authorization_token"],
      ["oauth_application.deleted", "authorization_token"],
      ["authorization_token.created", "authorization_token"],
      ["authorization_token.rotated", "authorization_token"],
      ["oauth_application.created", "authorization_token"],
      ["oauth_application.created", "oauth_application"],
    ],
    "every change once, in order; the refused delete left no row",
  );
  const byRest = audit.filter((r) => r.actor_kind !== "operator");
  for (const r of byRest) t.ok(r.client_address, `${r.action}: the client's address is recorded`);
  t.equal(audit[2]?.actor_id, tokenId, "the token is named by its id");
  t.equal(audit[2]?.target, `oauth_application:${app.body.data.id}`);
  t.same(audit[3]?.details.changed, ["name"]);
  t.equal(audit[6]?.actor_id, made.body.data.id, "the rotated token is the one that asked");
  t.equal(audit[6]?.details.replacement_id, rotated.body.data.id);
  t.equal(audit[8]?.actor_id, String(app2.body.data.id), "the application is named by its id");
  t.notOk(JSON.stringify(audit).includes(made.body.data.token), "no token value in the log");
  t.notOk(JSON.stringify(audit).includes(app.body.data.secret), "no secret in the log");

  const page = await readAuditLog(postgresAuditLog(laurel.db), a.organization.id, null, 4);
  t.equal(page.items.length, 4);
  t.equal(page.items[0]?.action, "oauth_application.created", "newest first");
  const next = await readAuditLog(postgresAuditLog(laurel.db), a.organization.id, page.next, 50);
  t.equal(next.items.length, 5, "the keyset page continues where the first ended");
  t.equal(next.next, null);
});

t.test("webhook settings and data services through the admin API", async (t) => {
  const a = await laurel.createOrganization("Hooked");
  const org = a.organization.id;
  await trpc(laurel, "webhooks.update", { organization_id: org, webhook_url: "https://hooks.example.org/in" });
  await trpc(laurel, "webhooks.update", { organization_id: org, event_types: ["badge.created"] });
  const secret = (await trpc(laurel, "webhooks.secret", { organization_id: org, rotate: true })) as { secret: string };
  const app = await call(
    "POST",
    `${laurel.baseUrl}/organizations/${org}/oauth_applications`,
    basic(a.authorization_token.token),
    {
      name: "Data",
    },
  );
  await trpc(laurel, "oauthApplications.setDataServices", {
    organization_id: org,
    application_id: app.body.data.id,
    enabled: true,
  });
  const all = (await rows(org)).filter((r) => r.actor_kind === "operator");
  t.same(
    all
      .slice(0, 2)
      .map((r) => r.action)
      .sort(),
    ["authorization_token.created", "organization.created"],
  );
  const audit = all.slice(2);
  t.same(
    audit.map((r) => r.action),
    ["webhook_settings.updated", "webhook_settings.updated", "webhook_secret.rotated", "oauth_application.updated"],
  );
  t.equal(audit[0]?.details.webhook_url, "https://hooks.example.org/in");
  t.same(audit[1]?.details.event_types, ["badge.created"]);
  t.same(audit[3]?.details, { changed: ["data_services_enabled"], data_services_enabled: true });
  t.notOk(JSON.stringify(audit).includes(secret.secret), "no signing secret in the log");
});

t.test("retention: the worker job removes rows past 400 days, and only those", async (t) => {
  const a = await laurel.createOrganization("Old");
  const members = postgresMemberStore(laurel.db);
  const row = (daysAgo: number, id: string) =>
    auditRecord(
      { now: new Date(Date.now() - daysAgo * 86_400_000), newId: () => id },
      { actor: { kind: "operator", id: null }, client_address: null },
      a.organization.id,
      "organization.updated",
      null,
      { days_ago: daysAgo },
    );
  await members.transaction(async (tx) => {
    await tx.appendAudit(row(401, "0190a0d8-0000-7000-8000-000000000401"));
    await tx.appendAudit(row(402, "0190a0d8-0000-7000-8000-000000000402"));
    await tx.appendAudit(row(399, "0190a0d8-0000-7000-8000-000000000399"));
  });
  const job = startRetention(
    {
      audit: postgresAuditLog(laurel.db),
      invitations: members,
      webhookLog: postgresWebhookLogPartitions(laurel.db),
      clock: () => new Date(),
      log: console,
    },
    { intervalMs: 50, batch: 1, webhookLogRetentionDays: 35 },
  );
  t.teardown(() => job.stop());
  const left = await eventually(async () => {
    const days = (await rows(a.organization.id)).map((r) => r.details.days_ago).filter((d) => d !== undefined);
    return days.length === 1 ? days : undefined;
  });
  t.same(left, [399]);
});

t.test("template changes and the organization's badge revocations, replacements and deletions over REST", async (t) => {
  const org = await organization(laurel, "Templates");
  const api = apiClient(laurel);
  const template = await createTemplate(laurel, org, { name: "Go" });
  t.equal((await api("PUT", `${org.templates}/${template.id}`, org.auth, { name: "Go 2" })).status, 200);
  t.equal((await api("PUT", `${org.templates}/${template.id}/archive`, org.auth)).status, 200);
  t.equal((await api("PUT", `${org.templates}/${template.id}/unarchive`, org.auth)).status, 200);
  const spare = await createTemplate(laurel, org, { name: "Spare" });
  t.equal((await api("DELETE", `${org.templates}/${spare.id}`, org.auth)).status, 204);
  const issue = async (email: string) =>
    (await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: email }))).body.data
      .id as string;
  const [a, b, c] = [await issue("a@example.org"), await issue("b@example.org"), await issue("c@example.org")];
  t.equal((await api("PUT", `${org.badges}/${a}/revoke`, org.auth, { reason: "mistake" })).status, 200);
  t.equal(
    (await api("POST", `${org.badges}/${b}/replace`, org.auth, { issued_at: new Date().toISOString() })).status,
    201,
  );
  t.equal((await api("DELETE", `${org.badges}/${c}`, org.auth)).status, 204);
  const audit = (await rows(org.id)).filter((r) => r.actor_kind === "authorization_token");
  t.same(
    audit.map((r) => [r.action, r.target]),
    [
      ["badge_template.created", `badge_template:${template.id}`],
      ["badge_template.updated", `badge_template:${template.id}`],
      ["badge_template.archived", `badge_template:${template.id}`],
      ["badge_template.unarchived", `badge_template:${template.id}`],
      ["badge_template.created", `badge_template:${spare.id}`],
      ["badge_template.deleted", `badge_template:${spare.id}`],
      ["badge.revoked", `badge:${a}`],
      ["badge.replaced", `badge:${b}`],
      ["badge.deleted", `badge:${c}`],
    ],
    "issuing itself is recorded by its events, not here",
  );
  for (const r of audit) t.ok(r.client_address, `${r.action}: the client's address`);
});
