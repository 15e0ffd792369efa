import { createHash } from "node:crypto";
import t from "tap";
import { loadServerKeys, nodeSecretBox } from "../../adapters/crypto/mod.ts";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { earnerFlows } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * The pending-badge mail's accept link, signed out: only with the mail's token does the page name
 * the recipient, the badge and its issuer. Without it (badge ids are discoverable), or with any
 * other token, the page is the same for every id. Only a keyed digest of the token is stored.
 * The link signs its recipient in with one button press and no second mail: once, for 14 days,
 * only for the badge's address, never by merely being opened.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

const page = async (path: string) => {
  const res = await fetch(`${mailed.laurel.origin}${path}`, { headers: { accept: "text/html" }, redirect: "manual" });
  return { status: res.status, text: await res.text(), cacheControl: res.headers.get("cache-control") };
};

t.test("the accept page names nobody without the mail's token", async (t) => {
  const org = await organization(mailed.laurel, "Hidden Issuer");
  const template = await createTemplate(mailed.laurel, org, { name: "Secret Skill" });
  const before = mailed.smtp.mails.length;
  const issued = await apiClient(mailed.laurel)(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "rita@example.org" }),
  );
  const id = issued.body.data.id as string;
  const personal = [/rita@example\.org/, /Secret Skill/, /Hidden Issuer/];
  for (const [label, path] of [
    ["no token", `/badges/${id}/accept`],
    ["another token", `/badges/${id}/accept?token=${"A".repeat(43)}`],
    ["an empty token", `/badges/${id}/accept?token=`],
    ["a token given twice", `/badges/${id}/accept?token=a&token=b`],
  ] as const) {
    const answer = await page(path);
    t.equal(answer.status, 200, `${label}: the sign-in page`);
    for (const p of personal) t.notMatch(answer.text, p, `${label}: nothing personal (${p.source})`);
    t.match(answer.text, new RegExp(`name="next" value="/badges/${id}"`), `${label}: back to the badge after sign-in`);
  }
  // An unknown id gets the same page: no oracle for pending badges either.
  const unknown = await page("/badges/0190a0d8-0000-7000-8000-000000000000/accept");
  t.equal(unknown.status, 200);

  const link = await earnerFlows(() => ({ origin: mailed.laurel.origin, smtp: mailed.smtp })).mailedLink(
    "rita@example.org",
    /https?:\/\/\S+\/badges\/[0-9a-f-]+\/accept\?token=[A-Za-z0-9_-]+/,
    before,
  );
  const url = new URL(link);
  t.equal(url.pathname, `/badges/${id}/accept`, "the mail links to the badge's accept page");
  const token = url.searchParams.get("token") ?? "";

  const withToken = await page(`${url.pathname}${url.search}`);
  t.equal(withToken.status, 200);
  t.match(withToken.text, /<strong>rita@example\.org<\/strong>/, "the mail's link names the address");
  t.match(withToken.text, /Hidden Issuer sent you the badge “Secret Skill”/);
  t.match(withToken.text, new RegExp(`action="/badges/${id}/continue"`), "and offers to continue as it");
  t.equal(withToken.cacheControl, "no-store", "and is not kept by caches");

  const [row] = (await mailed.laurel.db.all("select accept_token_digest from badges where id = ?", [id])) as {
    accept_token_digest: string | null;
  }[];
  const stored = row?.accept_token_digest ?? "";
  t.ok(stored.length > 0, "a digest is stored");
  t.notOk(stored.includes(token), "not the token");
  t.not(stored, createHash("sha256").update(token).digest("base64url"), "nor its unkeyed hash");
  t.not(stored, createHash("sha256").update(token).digest("hex"));

  // Once decided, even the mail's link names nobody.
  await mailed.laurel.db.run("update badges set state = 'rejected' where id = ?", [id]);
  t.notMatch((await page(`${url.pathname}${url.search}`)).text, /rita@example\.org/, "not pending: nothing personal");
  const browser = httpEarner(mailed.laurel.origin, mailed.smtp);
  await browser.get(`${url.pathname}${url.search}`);
  t.equal((await browser.submit(`/badges/${id}/continue`, { token })).status, 410, "and it signs nobody in");
  t.equal((await browser.get("/wallet")).status, 303);
});

const ACCEPT_LINK = /https?:\/\/\S+\/badges\/[0-9a-f-]+\/accept\?token=[A-Za-z0-9_-]+/;

/** A badge issued to `email` over the API, and the path and token of its mail's link. */
const issuedWithLink = async (org: Awaited<ReturnType<typeof organization>>, templateId: string, email: string) => {
  const before = mailed.smtp.mails.length;
  const issued = await apiClient(mailed.laurel)(
    "POST",
    org.badges,
    org.auth,
    issueBody(templateId, { recipient_email: email }),
  );
  const id = issued.body.data.id as string;
  const url = new URL(
    await earnerFlows(() => ({ origin: mailed.laurel.origin, smtp: mailed.smtp })).mailedLink(
      email,
      ACCEPT_LINK,
      before,
    ),
  );
  t.equal(url.pathname, `/badges/${id}/accept`);
  return { id, path: `${url.pathname}${url.search}`, token: url.searchParams.get("token") ?? "" };
};

const mailsTo = (email: string) => mailed.smtp.mails.filter((m) => m.to.some((r) => r.includes(email))).length;

t.test("the mail's link signs its recipient in: a button press, once, no second mail", async (t) => {
  const org = await organization(mailed.laurel, "Linking Issuer");
  const template = await createTemplate(mailed.laurel, org, { name: "Link Skill", allow_duplicate_badges: true });
  const first = await issuedWithLink(org, template.id, "sam@example.org");
  const other = await issuedWithLink(org, template.id, "lee@example.org");
  const mailed0 = mailsTo("sam@example.org");

  // A mail scanner opens the link (twice): that uses nothing.
  const browser = httpEarner(mailed.laurel.origin, mailed.smtp);
  await browser.get(first.path);
  const opened = await browser.get(first.path);
  t.equal(opened.status, 200);
  t.match(opened.text, /Your badge is waiting/);
  const digest = async (id: string) =>
    (await mailed.laurel.db.one<{ d: string | null }>("select accept_token_digest as d from badges where id = ?", [id]))
      ?.d ?? null;
  t.ok(await digest(first.id), "opening the link used nothing");

  // Forms from elsewhere, or without the page's CSRF token, are refused before the token is looked at.
  const forged = await fetch(`${mailed.laurel.origin}/badges/${first.id}/continue`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    body: new URLSearchParams({ token: first.token }).toString(),
  });
  t.equal(forged.status, 403, "a form from another site is refused");
  t.notOk(forged.headers.get("set-cookie")?.includes("laurel_session"), "and signs nobody in");

  // Another badge's token, or a made-up one: refused, nobody signed in.
  const crossed = await browser.submit(`/badges/${first.id}/continue`, { token: other.token });
  t.equal(crossed.status, 404, "another badge's link does not sign in for this one");
  t.equal((await browser.get("/wallet")).status, 303, "not signed in");
  await browser.get(first.path);
  t.equal((await browser.submit(`/badges/${first.id}/continue`, { token: "x".repeat(60) })).status, 404);

  // The button: signed in as the badge's recipient (an account made for the address), on the badge.
  await browser.get(first.path);
  const pressed = await browser.submit(`/badges/${first.id}/continue`, { token: first.token });
  t.equal(pressed.status, 303);
  t.equal(pressed.location, `/badges/${first.id}`, "lands on the badge");
  const badgePage = await browser.get(`/badges/${first.id}`);
  t.equal(badgePage.status, 200, "the recipient sees the pending badge");
  t.match(badgePage.text, /Accept/);
  const confirmed = await mailed.laurel.db.one<{ confirmed: boolean }>(
    "select confirmed from user_emails where email_key = 'sam@example.org'",
    [],
  );
  t.equal(confirmed?.confirmed, true, "the address is confirmed on the new account");
  t.equal(await digest(first.id), null, "the link is used up");
  t.ok(await digest(other.id), "another badge's link is untouched");

  const accepted = await browser.post(`/badges/${first.id}/accept`);
  t.match(accepted.location ?? "", /done=accepted/, "and accepts it");
  t.equal(mailsTo("sam@example.org"), mailed0, "no second mail was sent");

  // Once used, the link signs nobody in again (another browser, the same link).
  const again = httpEarner(mailed.laurel.origin, mailed.smtp);
  const reopened = await again.get(first.path);
  t.notMatch(reopened.text, /sam@example\.org/, "used: the link names nobody any more");
  const second = await again.submit(`/badges/${first.id}/continue`, { token: first.token });
  t.equal(second.status, 410, "a second press is refused");
  t.match(second.text, /used already/);
  t.equal((await again.get("/wallet")).status, 303, "and signs nobody in");
});

t.test("signed in as another account: the link offers to switch; as the recipient: the badge", async (t) => {
  const org = await organization(mailed.laurel, "Switching Issuer");
  const template = await createTemplate(mailed.laurel, org, { name: "Switch Skill", allow_duplicate_badges: true });
  const first = await issuedWithLink(org, template.id, "kim@example.org");
  const browser = httpEarner(mailed.laurel.origin, mailed.smtp);
  await browser.signIn("other@example.org");
  const offered = await browser.get(first.path);
  t.equal(offered.status, 200);
  t.match(offered.text, /signed in as other@example\.org, another account: continuing signs it in as kim@example\.org/);
  const pressed = await browser.submit(`/badges/${first.id}/continue`, { token: first.token });
  t.equal(pressed.location, `/badges/${first.id}`);
  const wallet = await browser.get("/account");
  t.match(wallet.text, /kim@example\.org/, "now signed in as the recipient");
  // Signed in as the recipient, a fresh link of theirs goes straight to the badge.
  const second = await issuedWithLink(org, template.id, "kim@example.org");
  const straight = await browser.get(second.path);
  t.equal(straight.status, 303);
  t.equal(straight.location, `/badges/${second.id}`, "the recipient's own badge: its page");
});

t.test("an old link names the badge but signs nobody in: the sign-in mail as before", async (t) => {
  const org = await organization(mailed.laurel, "Old Issuer");
  const template = await createTemplate(mailed.laurel, org, { name: "Old Skill", allow_duplicate_badges: true });
  const box = nodeSecretBox(loadServerKeys({}, mailed.laurel.dataDir));
  const day = 86_400_000;
  for (const [label, token] of [
    ["made 15 days ago", `${(Date.now() - 15 * day).toString(36).padStart(10, "0")}${"B".repeat(43)}`],
    ["made without its time", "C".repeat(43)],
  ] as const) {
    const { id } = await issuedWithLink(org, template.id, "old@example.org");
    await mailed.laurel.db.run("update badges set accept_token_digest = ? where id = ?", [box.digest(token), id]);
    const browser = httpEarner(mailed.laurel.origin, mailed.smtp);
    const opened = await browser.get(`/badges/${id}/accept?token=${token}`);
    t.match(opened.text, /value="old@example\.org"/, `${label}: the address is pre-filled`);
    t.match(opened.text, /Send me a sign-in link/, `${label}: a sign-in link is offered`);
    const pressed = await browser.submit(`/badges/${id}/continue`, { token });
    t.equal(pressed.status, label === "made 15 days ago" ? 410 : 404, `${label}: pressing anyway is refused`);
    t.equal((await browser.get("/wallet")).status, 303, `${label}: nobody signed in`);
  }
});
