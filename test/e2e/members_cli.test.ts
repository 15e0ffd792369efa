import t from "tap";
import { loadServerKeys, nodeSecretBox } from "../../adapters/crypto/mod.ts";
import { postgresMemberStore } from "../../adapters/db/mod.ts";
import { acceptInvitation } from "../../core/members/mod.ts";
import { eventually } from "../support/badges.ts";
import { unfold } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { runTs } from "../support/processes.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/**
 * The operator's side of members through the CLI: `organizations create --owner-email` mails the
 * first owner's invitation; `members list|invite|remove` act on a running Laurel.
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

const cli = (...args: string[]) =>
  runTs("apps/cli.ts", args, { LAUREL_URL: laurel.adminOrigin, LAUREL_ADMIN_TOKEN: laurel.server.adminToken });

const mailTo = (to: string) =>
  eventually(async () => smtp.mails.find((m) => m.to.some((r) => r.toLowerCase().includes(to))), 10_000);

t.test("organizations create --owner-email, then members list, invite, remove", async (t) => {
  const made = await cli(
    "organizations",
    "create",
    "--name",
    "Cli Org",
    "--email",
    "issuer@example.org",
    "--owner-email",
    "first.owner@example.org",
    "--json",
  );
  t.equal(made.code, 0, made.stderr);
  const result = JSON.parse(made.stdout);
  const orgId = result.organization.id as string;
  t.equal(result.owner_invitation.role, "owner");
  t.equal(result.owner_invitation.invited_by.type, "operator");

  const mail = await mailTo("first.owner@example.org");
  t.match(mail.data, /multipart\/alternative/i);
  const text = unfold(mail.data);
  t.match(text, /Join Cli Org on Laurel/);
  t.match(text, /The Laurel operator invites you to join Cli Org on Laurel as owner/);
  const token = new RegExp(`${laurel.origin}/console/invitations/([A-Za-z0-9_-]+)`).exec(text)?.[1];
  t.ok(token, "the mail carries the console link");

  // The owner signs in with the address and accepts (the console's page calls this use case).
  await httpEarner(laurel.origin, smtp).signIn("first.owner@example.org");
  const [owner] = await laurel.db.all<{ user_id: string }>("select user_id from user_emails where email_key = ?", [
    "first.owner@example.org",
  ]);
  const secrets = nodeSecretBox(loadServerKeys({ secretKey: undefined, signingKeyPem: undefined }, laurel.dataDir));
  await acceptInvitation(
    { members: postgresMemberStore(laurel.db), secrets },
    { now: new Date(), newId: () => crypto.randomUUID() },
    owner?.user_id as string,
    token as string,
    null,
  );

  const invited = await cli(
    "members",
    "invite",
    "--organization",
    orgId,
    "--email",
    "helper@example.org",
    "--role",
    "issuer",
  );
  t.equal(invited.code, 0, invited.stderr);
  t.match(invited.stdout, /Invited helper@example.org as issuer/);
  const badRole = await cli("members", "invite", "--organization", orgId, "--email", "x@example.org", "--role", "king");
  t.equal(badRole.code, 2);

  const listed = await cli("members", "list", "--organization", orgId, "--json");
  t.equal(listed.code, 0, listed.stderr);
  const { members, invitations } = JSON.parse(listed.stdout);
  t.same(
    members.map((m: { role: string; user: { email: string } }) => [m.user.email, m.role]),
    [["first.owner@example.org", "owner"]],
  );
  t.same(
    invitations.map((i: { email: string; role: string }) => [i.email, i.role]),
    [["helper@example.org", "issuer"]],
  );
  const human = await cli("members", "list", "--organization", orgId);
  t.match(human.stdout, /owner\s+first\.owner@example\.org/);

  const lastOwner = await cli("members", "remove", "--organization", orgId, "--membership", members[0].id);
  t.equal(lastOwner.code, 1, "the last owner stays");
  t.match(lastOwner.stderr, /last owner/);

  const audit = await laurel.db.all<{ action: string; actor_kind: string }>(
    "select action, actor_kind from audit_log where organization_id = ? order by occurred_at, id",
    [orgId],
  );
  // Rows of the same millisecond have no order among them: compared as a set.
  t.same(audit.map((a) => `${a.action} by ${a.actor_kind}`).sort(), [
    "authorization_token.created by operator",
    "invitation.accepted by member",
    "invitation.created by operator",
    "invitation.created by operator",
    "organization.created by operator",
  ]);
});
