import t from "tap";
import {
  apiClient,
  createTemplate,
  eventRows,
  eventually,
  issueBody,
  organization,
  rowXmin,
  trpc,
  trpcFailure,
} from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { runTs } from "../support/processes.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/**
 * Earners: accounts over tRPC and the CLI, accept / reject / privacy, account
 * linking, and the pending-badge notifications through the SMTP adapter (a loopback sink).
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
t.before(async () => {
  smtp = await startSmtpSink();
  laurel = await startLaurel({ env: { SMTP_URL: smtp.url, MAIL_FROM: "Laurel <badges@laurel.test>" } });
  api = apiClient(laurel);
});
t.teardown(async () => {
  await laurel.close();
  await smtp.close();
});

// biome-ignore lint/suspicious/noExplicitAny: tRPC results are JSON
type Json = any;

/** Quoted-printable soft breaks and escapes undone, so a long link reads whole. */
const unfold = (data: string): string =>
  data
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

t.test("users.create: an account with its addresses; one account per address", async (t) => {
  const user: Json = await trpc(laurel, "users.create", {
    email: "Grace@Example.org",
    additional_emails: ["grace@work.example", "GRACE@example.org"],
    first_name: "Grace",
    last_name: "Hopper",
    confirmed: true,
  });
  t.match(user, {
    id: String,
    first_name: "Grace",
    last_name: "Hopper",
    full_name: "Grace Hopper",
    emails: [
      { email: "Grace@Example.org", confirmed: true, primary: true },
      { email: "grace@work.example", confirmed: true, primary: false },
    ],
  });
  t.equal(user.emails.length, 2, "the same address in another case counts once");
  const taken = await trpcFailure(laurel, "users.create", {
    email: "grace@WORK.example",
    first_name: "G",
    last_name: "H",
  });
  t.equal(taken.code, "UNPROCESSABLE_CONTENT");
  t.match(taken.message, /already owns/);
  t.equal(
    (await trpcFailure(laurel, "users.create", { email: "x@example.org", first_name: " ", last_name: "H" })).code,
    "UNPROCESSABLE_CONTENT",
  );
  t.equal(
    (await trpcFailure(laurel, "users.create", { email: "nope", first_name: "a", last_name: "b" })).code,
    "BAD_REQUEST",
  );
  t.equal(
    (
      await trpcFailure(laurel, "users.create", {
        email: "y@example.org",
        first_name: "a",
        last_name: "b",
        admin: true,
      })
    ).code,
    "BAD_REQUEST",
  );
  const nul = await trpcFailure(laurel, "users.create", {
    email: "n@example.org",
    first_name: "a\u0000",
    last_name: "b",
  });
  t.equal(nul.code, "BAD_REQUEST", "a NUL in a name is refused, not a database error");
  const anonymous = await fetch(`${laurel.adminOrigin}/trpc/users.create`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "z@example.org", first_name: "a", last_name: "b" }),
  });
  t.equal(anonymous.status, 401, "internal procedures need the admin token");
});

t.test("issuing links the badge to the account and sends the right notification", async (t) => {
  const org = await organization(laurel, "Notifying Org");
  const tpl = await createTemplate(laurel, org, { name: "Compilers" });
  const confirmed: Json = await trpc(laurel, "users.create", {
    email: "confirmed@example.org",
    first_name: "Con",
    last_name: "Firmed",
    confirmed: true,
  });
  const unconfirmed: Json = await trpc(laurel, "users.create", {
    email: "unconfirmed@example.org",
    first_name: "Un",
    last_name: "Confirmed",
  });
  const issue = async (email: string, extra: Record<string, unknown> = {}) =>
    (await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: email, ...extra }))).body.data;

  const silent = await issue("silent@example.org", { suppress_badge_notification_email: true });
  const a = await issue("Confirmed@Example.org");
  const b = await issue("unconfirmed@example.org");
  const c = await issue("nobody@example.org");
  t.same(a.user, { id: confirmed.id }, "linked by address, any case");
  t.same(b.user, { id: unconfirmed.id }, "linked even before the address is confirmed");
  t.equal(c.user, null);

  const kinds = await eventually(async () => {
    const rows = (await eventRows(laurel, org.id)).filter((e) => e.event_type.startsWith("pending_badge_notification"));
    return rows.length === 3 ? rows : undefined;
  });
  const byBadge = new Map(kinds.map((e) => [e.detail.badge.id, e]));
  t.equal(byBadge.get(a.id)?.event_type, "pending_badge_notification.sent");
  t.equal(byBadge.get(b.id)?.event_type, "pending_badge_notification.unconfirmed_email.sent");
  t.equal(byBadge.get(c.id)?.event_type, "pending_badge_notification.no_user.sent");
  t.notOk(byBadge.has(silent.id), "suppress_badge_notification_email is respected");
  t.same(byBadge.get(c.id)?.detail.recipient_email, "nobody@example.org");
  t.equal(byBadge.get(c.id)?.detail.badge.state, "pending");

  const mails = await eventually(async () => (smtp.mails.length >= 3 ? smtp.mails : undefined));
  t.notOk(
    mails.some((m) => m.to.some((to) => to.includes("silent@"))),
    "no mail for a suppressed notification",
  );
  const toC = mails.find((m) => m.to.some((to) => to.includes("nobody@example.org")));
  t.ok(toC, "mail sent through SMTP");
  const text = unfold(toC?.data ?? "");
  t.match(text, /Subject: Notifying Org sent you a badge: Compilers/);
  t.match(text, /From: Laurel <badges@laurel\.test>/);
  t.ok(text.includes(c.accept_badge_url), "the mail holds the accept link");
  t.match(text, /Create an account/);

  const late: Json = await trpc(laurel, "users.create", {
    email: "NOBODY@example.org",
    first_name: "No",
    last_name: "Body",
  });
  const linked = await api("GET", `${org.badges}/${c.id}`, org.auth);
  t.same(linked.body.data.user, { id: late.id }, "an account created later takes the badges sent to its address");
});

t.test("accept, reject and privacy over tRPC, each with its event in the same transaction", async (t) => {
  const org = await organization(laurel, "Earner Actions Org");
  const tpl = await createTemplate(laurel, org, { allow_duplicate_badges: true });
  const owner: Json = await trpc(laurel, "users.create", {
    email: "owner@example.org",
    first_name: "O",
    last_name: "W",
  });
  const issue = async () =>
    (await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: "owner@example.org" }))).body.data;
  const one = await issue();
  const two = await issue();

  const accepted: Json = await trpc(laurel, "badges.accept", { badge_id: one.id, user_id: owner.id });
  t.match(accepted, { id: one.id, state: "accepted", user: { id: owner.id } });
  const [acceptEvent] = (await eventRows(laurel, org.id, "badge.state.changed")).slice(-1);
  t.equal(acceptEvent?.detail.badge.state, "accepted");
  t.equal(acceptEvent?.xmin, await rowXmin(laurel, "badges", one.id));

  t.equal((await trpcFailure(laurel, "badges.accept", { badge_id: one.id })).code, "UNPROCESSABLE_CONTENT", "twice");
  t.equal((await trpcFailure(laurel, "badges.reject", { badge_id: one.id })).code, "UNPROCESSABLE_CONTENT");
  const stranger = "00000000-0000-4000-8000-000000000001";
  t.equal((await trpcFailure(laurel, "badges.reject", { badge_id: two.id, user_id: stranger })).code, "FORBIDDEN");
  const rejected: Json = await trpc(laurel, "badges.reject", { badge_id: two.id });
  t.equal(rejected.state, "rejected");
  t.equal((await trpcFailure(laurel, "badges.accept", { badge_id: stranger })).code, "NOT_FOUND");
  t.equal((await trpcFailure(laurel, "badges.accept", { badge_id: "nope" })).code, "BAD_REQUEST");

  const hidden: Json = await trpc(laurel, "badges.privacy", { badge_id: one.id, public: false });
  t.equal(hidden.public, false);
  const privacy = await eventRows(laurel, org.id, "badge.privacy.changed");
  t.equal(privacy.length, 1);
  t.equal(privacy[0]?.detail.badge.public, false);
  t.equal(privacy[0]?.xmin, await rowXmin(laurel, "badges", one.id));
  await trpc(laurel, "badges.privacy", { badge_id: one.id, public: false });
  t.equal((await eventRows(laurel, org.id, "badge.privacy.changed")).length, 1, "no change, no event");
  t.equal((await api("GET", `${org.badges}/${one.id}`, org.auth)).body.data.public, false);
});

t.test("the CLI: users create, badges accept / reject / privacy", async (t) => {
  const org = await organization(laurel, "CLI Org");
  const tpl = await createTemplate(laurel, org, { allow_duplicate_badges: true });
  const env = { LAUREL_URL: laurel.adminOrigin, LAUREL_ADMIN_TOKEN: laurel.server.adminToken };
  const cli = (...args: string[]) => runTs("apps/cli.ts", args, env);

  const created = await cli(
    "users",
    "create",
    "--email",
    "cli@example.org",
    "--first-name",
    "Cli",
    "--last-name",
    "User",
    "--confirmed",
    "--json",
  );
  t.equal(created.code, 0, created.stderr);
  const user = JSON.parse(created.stdout);
  t.match(user, { first_name: "Cli", emails: [{ email: "cli@example.org", confirmed: true }] });

  const issue = async () =>
    (await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: "cli@example.org" }))).body.data;
  const one = await issue();
  const two = await issue();
  t.same(one.user, { id: user.id });

  const accepted = await cli("badges", "accept", "--badge", one.id, "--json");
  t.equal(accepted.code, 0, accepted.stderr);
  t.match(JSON.parse(accepted.stdout), { id: one.id, state: "accepted" });
  const rejected = await cli("badges", "reject", "--badge", two.id);
  t.equal(rejected.code, 0, rejected.stderr);
  t.match(rejected.stdout, /rejected/);
  const hidden = await cli("badges", "privacy", "--badge", one.id, "--public", "false", "--json");
  t.equal(hidden.code, 0, hidden.stderr);
  t.equal(JSON.parse(hidden.stdout).public, false);

  const again = await cli("badges", "accept", "--badge", one.id);
  t.equal(again.code, 1, "a refused action exits 1");
  t.match(again.stderr, /UNPROCESSABLE_CONTENT/);
  const usage = await cli("badges", "privacy", "--badge", one.id, "--public", "maybe");
  t.equal(usage.code, 2, "a usage mistake exits 2");
  t.equal((await cli("users", "create", "--email", "x@example.org")).code, 2);
});
