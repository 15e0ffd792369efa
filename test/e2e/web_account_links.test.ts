import t from "tap";
import { apiClient, createTemplate, eventually, issueBody, organization } from "../support/badges.ts";
import { earnerFlows, unfold } from "../support/earner_flows.ts";
import { type FormAnswer, httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * Links that act for an account (adding an address, merging) against real PostgreSQL: they work
 * only in the asking account's own session, their mail names that account, a merge ends the
 * merged-away account's links, and two merges of the same accounts in opposite directions at
 * once leave exactly one account open, holding everything.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

const flows = earnerFlows(() => ({ origin: mailed.laurel.origin, smtp: mailed.smtp }));
const tokenOf = (link: string): string => new URL(link).searchParams.get("token") ?? "";
/** A form's answer, or its refusal's status (the helper throws on 4xx). */
const attempt = (answer: Promise<FormAnswer>): Promise<FormAnswer | number> =>
  answer.catch((err: Error) => Number(/^POST \S+: (\d+)/.exec(err.message)?.[1] ?? 0));

const ownerOf = async (email: string): Promise<string | null> => {
  const [row] = (await mailed.laurel.db.all("select user_id from user_emails where email_key = ?", [email])) as {
    user_id: string;
  }[];
  return row?.user_id ?? null;
};
const badgeOwner = async (id: string): Promise<string | null> => {
  const [row] = (await mailed.laurel.db.all("select user_id from badges where id = ?", [id])) as {
    user_id: string | null;
  }[];
  return row?.user_id ?? null;
};

t.test("an add-address link works only in the asking account's session, and its mail names that account", async (t) => {
  const org = await organization(mailed.laurel, "Links");
  const template = await createTemplate(mailed.laurel, org, { name: "Welding" });
  const issued = await apiClient(mailed.laurel)(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "victim@example.org" }),
  );
  const badgeId = issued.body.data.id as string;

  const attacker = httpEarner(mailed.laurel.origin, mailed.smtp);
  await attacker.signIn("mallory@example.org");
  await attacker.post("/account/name", { first_name: "Mallory", last_name: "Mal" });
  const before = mailed.smtp.mails.length;
  await attacker.post("/account/emails", { email: "victim@example.org" });
  const link = await flows.linkMailedTo("victim@example.org", before);
  const mail = mailed.smtp.mails.slice(before).find((m) => m.to.some((r) => r.includes("victim@example.org")));
  t.match(unfold(mail?.data ?? ""), /Mallory Mal <mallory@example\.org>/, "the mail names the asking account");
  t.match(unfold(mail?.data ?? ""), /If that is not your account, ignore this e-mail/);

  // The victim presses the button in their own browser: signed out, then signed in to their own account.
  const victim = httpEarner(mailed.laurel.origin, mailed.smtp);
  await victim.get(`/sign_in/link?token=${tokenOf(link)}`);
  t.equal(await attempt(victim.post("/sign_in/link", { token: tokenOf(link) })), 409, "signed out: refused");
  t.equal(await ownerOf("victim@example.org"), null, "the address joined no account");
  t.equal(await badgeOwner(badgeId), null, "the pending badge joined no account");
  await victim.signIn("victim@example.org");
  t.equal(await attempt(victim.post("/sign_in/link", { token: tokenOf(link) })), 409, "another account: refused");
  const victimId = await ownerOf("victim@example.org");
  t.not(victimId, null);
  t.equal(await badgeOwner(badgeId), victimId, "the badge is the victim's, by their own sign-in");
  const [row] = (await mailed.laurel.db.all("select count(*)::int as n from user_emails where email_key = ?", [
    "victim@example.org",
  ])) as { n: number }[];
  t.equal(row?.n, 1);

  // In the asking account's own session the same kind of link confirms an address.
  const mine = mailed.smtp.mails.length;
  await attacker.post("/account/emails", { email: "mallory@home.example" });
  const own = await attacker.useMailedLink("mallory@home.example", mine);
  t.equal(own.location, "/account?done=email_confirmed");
  t.equal(await ownerOf("mallory@home.example"), await ownerOf("mallory@example.org"));
});

t.test("a merge ends the merged-away account's outstanding links", async (t) => {
  const old = httpEarner(mailed.laurel.origin, mailed.smtp);
  await old.signIn("pat@old.example");
  const before = mailed.smtp.mails.length;
  await old.post("/account/emails", { email: "pat@spare.example" });
  const pending = await flows.linkMailedTo("pat@spare.example", before);
  const oldId = await ownerOf("pat@old.example");

  const current = httpEarner(mailed.laurel.origin, mailed.smtp);
  await current.signIn("pat@example.org");
  await current.mergeIn("pat@old.example");
  const [closed] = (await mailed.laurel.db.all("select closed_at from users where id = ?", [oldId])) as {
    closed_at: Date | null;
  }[];
  t.not(closed?.closed_at, null, "the old account is closed");

  // Whoever presses it now, the closed account's link confirms nothing.
  for (const [who, earner] of [
    ["a signed-out browser", httpEarner(mailed.laurel.origin, mailed.smtp)],
    ["the surviving account", current],
  ] as const) {
    await earner.get(`/sign_in/link?token=${tokenOf(pending)}`);
    t.equal(await attempt(earner.post("/sign_in/link", { token: tokenOf(pending) })), 410, `${who}: expired`);
  }
  t.equal(await ownerOf("pat@spare.example"), null, "the address joined no account");
});

t.test("two merges in opposite directions at once leave one account open with everything", async (t) => {
  const org = await organization(mailed.laurel, "Race");
  const template = await createTemplate(mailed.laurel, org, { name: "Race", allow_duplicate_badges: true });
  const issue = async (email: string) =>
    (await apiClient(mailed.laurel)("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: email })))
      .body.data.id as string;
  const badges = [await issue("lee@one.example"), await issue("lee@two.example")];
  const one = httpEarner(mailed.laurel.origin, mailed.smtp);
  const two = httpEarner(mailed.laurel.origin, mailed.smtp);
  await one.signIn("lee@one.example");
  await two.signIn("lee@two.example");
  const ids = [await ownerOf("lee@one.example"), await ownerOf("lee@two.example")] as string[];

  // Each asks to merge the other in; each link is pressed in its own account's browser.
  const links: string[] = [];
  for (const [earner, other] of [
    [one, "lee@two.example"],
    [two, "lee@one.example"],
  ] as const) {
    const before = mailed.smtp.mails.length;
    await earner.post("/account/merge", { email: other });
    links.push(tokenOf(await flows.linkMailedTo(other, before)));
    await earner.get(`/sign_in/link?token=${links.at(-1)}`);
  }

  // Both accounts' rows are held while both merges start, so both are under way at once when
  // they are let go (on PostgreSQL, each in its own connection).
  let answers: Promise<Array<FormAnswer | number>> = Promise.resolve([]);
  await mailed.laurel.db.transaction(async (tx) => {
    await tx.all("select id from users where id in (?, ?) for update", ids);
    answers = Promise.all([
      attempt(one.post("/sign_in/link", { token: links[0] ?? "" })),
      attempt(two.post("/sign_in/link", { token: links[1] ?? "" })),
    ]);
    await eventually(async () => {
      const [row] = (await mailed.laurel.db.all(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'`,
      )) as { n: number }[];
      return (row?.n ?? 0) >= 2 ? true : undefined;
    }, 10_000);
  });
  const outcome = (await answers).map((a) => (typeof a === "number" ? a : a.location));
  t.same(outcome.slice().sort(), ["/account?done=merged", 409].sort(), `one merge went through, one was refused`);

  const rows = (await mailed.laurel.db.all("select id, closed_at from users where id in (?, ?)", ids)) as {
    id: string;
    closed_at: Date | null;
  }[];
  const open = rows.filter((r) => r.closed_at === null);
  t.equal(open.length, 1, "exactly one account stays open");
  const survivor = open[0]?.id;
  t.equal(await ownerOf("lee@one.example"), survivor, "it holds both addresses");
  t.equal(await ownerOf("lee@two.example"), survivor);
  for (const id of badges) t.equal(await badgeOwner(id), survivor, "and both badges");
});
