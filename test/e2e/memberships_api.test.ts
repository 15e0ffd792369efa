import t from "tap";
import { loadServerKeys, nodeSecretBox } from "../../adapters/crypto/mod.ts";
import { postgresMemberStore } from "../../adapters/db/mod.ts";
import { acceptInvitation } from "../../core/members/mod.ts";
import { eventually } from "../support/badges.ts";
import { unfold } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/**
 * Memberships and invitations over REST against a running Laurel: flags, another organization,
 * the owner rules for credentials, the last owner, expiry, re-invitation, and the invitation mail
 * (multipart, with the console link) arriving at an SMTP server. Accounts sign in by mailed link.
 */
let laurel: TestLaurel;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
t.before(async () => {
  smtp = await startSmtpSink();
  laurel = await startLaurel({ env: { SMTP_URL: smtp.url } });
});
t.teardown(async () => {
  await laurel?.close();
  await smtp?.close();
});

const call = async (method: string, url: string, auth: string | null, body?: unknown) => {
  const res = await fetch(url, {
    method,
    headers: {
      ...(auth ? { authorization: auth } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

const invitationMail = (to: string) =>
  eventually(
    async () => smtp.mails.filter((m) => m.to.some((r) => r.toLowerCase().includes(to.toLowerCase()))).at(-1),
    10_000,
  );

const tokenIn = (data: string): string => {
  const m = new RegExp(`${laurel.origin}/console/invitations/([A-Za-z0-9_-]+)`).exec(unfold(data));
  if (!m?.[1]) throw new Error("no invitation link in the mail");
  return m[1];
};

t.test("invite, accept, list, change roles, remove; credentials leave owners alone", async (t) => {
  const a = await laurel.createOrganization("Acme & <Co>");
  const b = await laurel.createOrganization("Other");
  const full = basic(a.authorization_token.token);
  const base = `${laurel.baseUrl}/organizations/${a.organization.id}`;
  const flagged = async (r: boolean, w: boolean, d: boolean) => {
    const made = await call("POST", `${base}/authorization_tokens`, full, {
      description: "limited",
      read_enabled: r,
      write_enabled: w,
      delete_enabled: d,
    });
    return basic(made.body.data.token);
  };
  const readOnly = await flagged(true, false, false);
  const writeOnly = await flagged(false, true, false);

  // Flags and organizations are checked before anything else.
  t.equal((await call("GET", `${base}/memberships`, null)).status, 401);
  t.equal((await call("GET", `${base}/memberships`, writeOnly)).status, 403, "GET needs read");
  t.equal(
    (await call("POST", `${base}/invitations`, readOnly, { email: "x@example.org", role: "viewer" })).status,
    403,
  );
  t.equal(
    (await call("GET", `${base}/memberships`, basic(b.authorization_token.token))).status,
    403,
    "another organization's token",
  );

  // A credential invites no owner; bad bodies are 400/422 with the error body.
  const ownerInvite = await call("POST", `${base}/invitations`, full, { email: "boss@example.org", role: "owner" });
  t.equal(ownerInvite.status, 403);
  t.match(ownerInvite.body.data.message, /owner/);
  const bad = await call("POST", `${base}/invitations`, full, { email: "not an address", role: "viewer" });
  t.ok([400, 422].includes(bad.status), `a bad address: ${bad.status}`);
  t.equal((await call("POST", `${base}/invitations`, full, { email: "a@example.org", role: "king" })).status, 422);
  for (const email of ["nul\u0000@example.org", "\ud800@example.org", `${"x".repeat(400)}@example.org`]) {
    const odd = await call("POST", `${base}/invitations`, full, { email, role: "viewer" });
    t.ok(odd.status >= 400 && odd.status < 500, `an unstorable or oversized address: ${odd.status}`);
  }
  const oddPath = await call("GET", `${base}/memberships/not-a-uuid`, readOnly);
  t.equal(oddPath.status, 400, "a malformed id in the path");

  // Invite, re-invite: one pending invitation, the first link dead.
  const first = await call("POST", `${base}/invitations`, full, { email: "Ada@Example.org", role: "viewer" });
  t.equal(first.status, 201);
  t.equal(first.body.data.role, "viewer");
  t.notOk("token" in first.body.data, "the token is only in the mail");
  const firstMail = await invitationMail("Ada@Example.org");
  const firstToken = tokenIn(firstMail.data);
  const before = smtp.mails.length;
  const second = await call("POST", `${base}/invitations`, full, { email: "ada@example.org", role: "admin" });
  t.equal(second.status, 201);
  const mail = await eventually(
    async () => smtp.mails.slice(before).find((m) => m.to.some((r) => r.includes("ada@"))),
    10_000,
  );
  t.match(mail.data, /multipart\/alternative/i, "multipart");
  t.match(mail.data, /text\/plain/i);
  t.match(mail.data, /text\/html/i);
  const text = unfold(mail.data);
  t.match(text, /Acme &amp; &lt;Co>/, "the organization's name, escaped in the HTML part");
  t.match(text, /Acme & <Co>/, "and plain in the text part");
  t.match(text, /as admin/, "the role");
  t.match(text, /An application of Acme/, "who invited");
  const token = tokenIn(mail.data);
  t.not(token, firstToken);
  const pending = await call("GET", `${base}/invitations`, readOnly);
  t.equal(pending.status, 200);
  t.equal(pending.body.metadata.total_count, 1, "re-inviting replaced the invitation");
  t.equal(pending.body.data[0].email, "ada@example.org");
  t.equal((await call("GET", `${base}/invitations/${second.body.data.id}`, readOnly)).body.data.role, "admin");
  t.equal((await call("GET", `${base}/invitations/${first.body.data.id}`, readOnly)).status, 404, "the first is gone");

  // The invitee signs in with the address and accepts (the console's accept page calls this).
  const ada = httpEarner(laurel.origin, smtp);
  await ada.signIn("ada@example.org");
  const [adaUser] = await laurel.db.all<{ user_id: string }>("select user_id from user_emails where email_key = ?", [
    "ada@example.org",
  ]);
  const keys = loadServerKeys({ secretKey: undefined, signingKeyPem: undefined }, laurel.dataDir);
  const deps = { members: postgresMemberStore(laurel.db), secrets: nodeSecretBox(keys) };
  const ctx = () => ({ now: new Date(), newId: () => crypto.randomUUID() });
  const dead = await acceptInvitation(deps, ctx(), adaUser?.user_id as string, firstToken, null).catch((e) => e);
  t.equal(dead.code, "not_found", "the replaced link does not work");
  await acceptInvitation(deps, ctx(), adaUser?.user_id as string, token, "192.0.2.10");
  t.equal((await call("GET", `${base}/invitations`, readOnly)).body.metadata.total_count, 0, "used up");

  // A second member, made owner by the operator's invitation (an owner may be invited only so).
  const grace = httpEarner(laurel.origin, smtp);
  await grace.signIn("grace@example.org");
  const [graceUser] = await laurel.db.all<{ user_id: string }>("select user_id from user_emails where email_key = ?", [
    "grace@example.org",
  ]);
  await laurel.db.run(
    "insert into memberships (id, organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, 'owner', now(), now())",
    [crypto.randomUUID(), a.organization.id, graceUser?.user_id],
  );

  const list = await call("GET", `${base}/memberships`, readOnly);
  t.equal(list.status, 200);
  t.same(
    list.body.data.map((m: { user: { email: string }; role: string }) => [m.user.email, m.role]),
    [
      ["ada@example.org", "admin"],
      ["grace@example.org", "owner"],
    ],
  );
  const [adaM, graceM] = list.body.data as Array<{ id: string }>;
  t.equal((await call("GET", `${base}/memberships/${adaM?.id}`, readOnly)).body.data.role, "admin");
  t.equal((await call("GET", `${base}/memberships/${crypto.randomUUID()}`, readOnly)).status, 404);
  t.equal(
    (
      await call(
        "GET",
        `${laurel.baseUrl}/organizations/${b.organization.id}/memberships/${adaM?.id}`,
        basic(b.authorization_token.token),
      )
    ).status,
    404,
    "another organization's id in one's own: 404",
  );

  // Roles: a credential changes non-owners, never owners.
  const demoted = await call("PUT", `${base}/memberships/${adaM?.id}`, full, { role: "issuer" });
  t.equal(demoted.status, 200);
  t.equal(demoted.body.data.role, "issuer");
  t.equal(
    (await call("PUT", `${base}/memberships/${adaM?.id}`, readOnly, { role: "viewer" })).status,
    403,
    "PUT needs write",
  );
  t.equal(
    (await call("PUT", `${base}/memberships/${adaM?.id}`, full, { role: "owner" })).status,
    403,
    "no promotion to owner",
  );
  t.equal(
    (await call("PUT", `${base}/memberships/${graceM?.id}`, full, { role: "admin" })).status,
    403,
    "no demotion of an owner",
  );
  t.equal((await call("DELETE", `${base}/memberships/${graceM?.id}`, full)).status, 403, "no removal of an owner");
  t.equal((await call("DELETE", `${base}/memberships/${adaM?.id}`, writeOnly)).status, 403, "DELETE needs delete");
  t.equal((await call("DELETE", `${base}/memberships/${adaM?.id}`, full)).status, 204);
  t.equal((await call("DELETE", `${base}/memberships/${adaM?.id}`, full)).status, 404);

  // Cancel an invitation.
  const third = await call("POST", `${base}/invitations`, full, { email: "carl@example.org", role: "issuer" });
  t.equal((await call("DELETE", `${base}/invitations/${third.body.data.id}`, readOnly)).status, 403);
  t.equal((await call("DELETE", `${base}/invitations/${third.body.data.id}`, full)).status, 204);
  t.equal((await call("GET", `${base}/invitations`, readOnly)).body.metadata.total_count, 0);

  // The audit log recorded each change with its credential and address.
  const audit = await laurel.db.all<{ action: string; actor_kind: string; client_address: string | null }>(
    "select action, actor_kind, client_address from audit_log where organization_id = ? order by occurred_at, id",
    [a.organization.id],
  );
  const actions = audit.map((r) => r.action);
  for (const action of [
    "invitation.created",
    "invitation.accepted",
    "membership.role_changed",
    "membership.removed",
    "invitation.cancelled",
  ])
    t.ok(actions.includes(action), `audit: ${action}`);
  const changed = audit.find((r) => r.action === "membership.role_changed");
  t.equal(changed?.actor_kind, "authorization_token");
  t.ok(changed?.client_address, "the client's address is recorded");
});

t.test("the last owner cannot be demoted; invitations expire after seven days", async (t) => {
  const a = await laurel.createOrganization("Solo");
  const full = basic(a.authorization_token.token);
  const base = `${laurel.baseUrl}/organizations/${a.organization.id}`;
  const owner = httpEarner(laurel.origin, smtp);
  await owner.signIn("solo@example.org");
  const [u] = await laurel.db.all<{ user_id: string }>("select user_id from user_emails where email_key = ?", [
    "solo@example.org",
  ]);
  const id = crypto.randomUUID();
  await laurel.db.run(
    "insert into memberships (id, organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, 'owner', now(), now())",
    [id, a.organization.id, u?.user_id],
  );
  const keys = loadServerKeys({ secretKey: undefined, signingKeyPem: undefined }, laurel.dataDir);
  const { changeRole, removeMember } = await import("../../core/members/mod.ts");
  const members = postgresMemberStore(laurel.db);
  const me = {
    kind: "member",
    accountId: u?.user_id as string,
    organizationId: a.organization.id,
    role: "owner",
  } as const;
  const ctx = { now: new Date(), newId: () => crypto.randomUUID() };
  const demote = await changeRole({ members }, ctx, me, null, a.organization.id, id, "admin").catch((e) => e);
  t.equal(demote.code, "validation_failed");
  const leave = await removeMember({ members }, ctx, me, null, a.organization.id, id).catch((e) => e);
  t.equal(leave.code, "validation_failed");

  const inv = await call("POST", `${base}/invitations`, full, { email: "late@example.org", role: "viewer" });
  t.equal(inv.status, 201);
  t.equal(
    new Date(inv.body.data.expires_at).getTime() - new Date(inv.body.data.created_at).getTime(),
    7 * 86_400_000,
    "seven days",
  );
  const token = tokenIn((await invitationMail("late@example.org")).data);
  const late = httpEarner(laurel.origin, smtp);
  await late.signIn("late@example.org");
  const [lu] = await laurel.db.all<{ user_id: string }>("select user_id from user_emails where email_key = ?", [
    "late@example.org",
  ]);
  const deps = { members, secrets: nodeSecretBox(keys) };
  const eightDays = { now: new Date(Date.now() + 8 * 86_400_000), newId: () => crypto.randomUUID() };
  const expired = await acceptInvitation(deps, eightDays, lu?.user_id as string, token, null).catch((e) => e);
  t.equal(expired.code, "not_found", "expired");
  // Someone else's account cannot use the link either.
  const wrong = await acceptInvitation(deps, ctx, u?.user_id as string, token, null).catch((e) => e);
  t.equal(wrong.code, "forbidden", "the invited address must be the account's");
  await acceptInvitation(deps, ctx, lu?.user_id as string, token, null);
  const list = await call("GET", `${base}/memberships`, full);
  t.equal(list.body.metadata.total_count, 2);
});

t.test("merging accounts moves memberships; the survivor keeps the stronger role", async (t) => {
  const a = await laurel.createOrganization("Merged");
  const other = await laurel.createOrganization("Only the source");
  const full = basic(a.authorization_token.token);
  const base = `${laurel.baseUrl}/organizations/${a.organization.id}`;
  const keeper = httpEarner(laurel.origin, smtp);
  await keeper.signIn("keeper@example.org");
  await httpEarner(laurel.origin, smtp).signIn("merged.owner@example.org");
  const idOf = async (email: string) =>
    (await laurel.db.all<{ user_id: string }>("select user_id from user_emails where email_key = ?", [email]))[0]
      ?.user_id as string;
  const keeperId = await idOf("keeper@example.org");
  const sourceId = await idOf("merged.owner@example.org");
  const add = (org: string, user: string, role: string) =>
    laurel.db.run(
      "insert into memberships (id, organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, ?, now(), now())",
      [crypto.randomUUID(), org, user, role],
    );
  await add(a.organization.id, keeperId, "viewer");
  await add(a.organization.id, sourceId, "owner");
  await add(other.organization.id, sourceId, "issuer");

  await keeper.mergeIn("merged.owner@example.org");

  const list = await call("GET", `${base}/memberships`, full);
  t.same(
    list.body.data.map((m: { user: { id: string }; role: string }) => [m.user.id, m.role]),
    [[keeperId, "owner"]],
    "one membership, the owner's role, on the surviving account",
  );
  const moved = await laurel.db.all<{ user_id: string; role: string }>(
    "select user_id, role from memberships where organization_id = ?",
    [other.organization.id],
  );
  t.same(moved, [{ user_id: keeperId, role: "issuer" }], "a membership only the source held moves");
});
