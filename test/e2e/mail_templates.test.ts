import PostalMime from "postal-mime";
import t from "tap";
import { apiClient, createTemplate, eventually, issueBody, organization } from "../support/badges.ts";
import { png } from "../support/images.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * The mails as a mail program reads them: the SMTP sink keeps what was sent, a MIME parser
 * (postal-mime) splits it, and each part is checked for what a person sees.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

const parsedMailTo = async (to: string, after: number) => {
  const raw = await eventually(async () =>
    mailed.smtp.mails.slice(after).find((m) => m.to.some((r) => r.includes(to))),
  );
  return PostalMime.parse(raw.data);
};

t.test("the badge mail: the badge's image, the issuer, one button, every name escaped", async (t) => {
  const { laurel } = mailed;
  const api = apiClient(laurel);
  const org = await organization(laurel, 'Acme <Labs> & "Co"');
  const logo = "https://acme.example.org/logo.png";
  t.equal((await api("PUT", `/organizations/${org.id}`, org.auth, { photo_url: logo })).status, 200);
  const template = await createTemplate(laurel, org, {
    name: "Rust <b>& Safety</b>",
    description: "Writes <script>alert(1)</script> safe code",
    image: `data:image/png;base64,${png(64, 64, [30, 90, 160]).toString("base64")}`,
  });
  const before = mailed.smtp.mails.length;
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "grace@example.org" }),
  );
  t.equal(issued.status, 201);
  const mail = await parsedMailTo("grace@example.org", before);

  t.equal(mail.subject, 'Acme <Labs> & "Co" sent you a badge: Rust <b>& Safety</b>');
  const html = mail.html ?? "";
  const text = mail.text ?? "";
  t.ok(html.length > 0 && text.length > 0, "an HTML part and a text part");
  t.match(html, `<img src="${template.image_url}"`, "the badge's image");
  t.match(html, `<img src="${logo}"`, "the issuer's logo");
  const accept = new RegExp(`href="(${issued.body.data.accept_badge_url.replace(/[.?]/g, "\\$&")}\\?token=[\\w-]+)"`);
  const button = accept.exec(html);
  t.ok(button, "one button, to the badge's accept link with its token");
  t.match(html, /Accept your badge|See your badge/);
  t.notMatch(html, /<script>|<b>|<Labs>/, "no name or description reaches the HTML as markup");
  t.match(html, "Acme &lt;Labs> &amp; &quot;Co&quot;");
  t.match(html, "Writes &lt;script>alert(1)&lt;/script> safe code");
  t.match(text, "Rust <b>& Safety</b>: Writes <script>alert(1)</script> safe code", "the text part as written");
  t.match(text, (button?.[1] ?? "").replace(/&amp;/g, "&"), "the link in full in the text part");
});

t.test("the issuer's message: the template's, or the badge's own in its place, shown as written", async (t) => {
  const { laurel } = mailed;
  const api = apiClient(laurel);
  const org = await organization(laurel, "Message Academy");
  const template = await createTemplate(laurel, org, {
    name: "Kind Words",
    notification_message: "Well done!\n<b>See you</b> at the <a href='x'>ceremony</a>.",
  });
  t.equal(template.notification_message, "Well done!\n<b>See you</b> at the <a href='x'>ceremony</a>.");
  let before = mailed.smtp.mails.length;
  t.equal(
    (await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: "m1@example.org" }))).status,
    201,
  );
  let mail = await parsedMailTo("m1@example.org", before);
  t.match(mail.html, "A message from Message Academy:");
  t.match(
    mail.html,
    "Well done!\n&lt;b>See you&lt;/b> at the &lt;a href='x'>ceremony&lt;/a>.",
    "escaped, its lines kept",
  );
  t.notMatch(mail.html, "<b>See you</b>");
  t.match(mail.text, "A message from Message Academy:\nWell done!\n<b>See you</b> at the <a href='x'>ceremony</a>.");

  before = mailed.smtp.mails.length;
  const own = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "m2@example.org", notification_message: "Congratulations, Ada." }),
  );
  t.equal(own.body.data.notification_message, "Congratulations, Ada.");
  mail = await parsedMailTo("m2@example.org", before);
  t.match(mail.text, "A message from Message Academy:\nCongratulations, Ada.", "the badge's own message");
  t.notMatch(mail.text, "Well done!", "in place of the template's");
  const tooLong = await api("POST", org.templates, org.auth, {
    name: "Long",
    description: "d",
    notification_message: "x".repeat(2001),
  });
  t.equal(tooLong.status, 422);
  t.match(tooLong.body.data.errors[0], { field: "notification_message" });
});

t.test("the sign-in mail: the same layout, its button and the link in full", async (t) => {
  const { laurel } = mailed;
  const before = mailed.smtp.mails.length;
  const res = await fetch(`${laurel.origin}/sign_in`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? "";
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const sent = await fetch(`${laurel.origin}/sign_in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: laurel.origin },
    body: new URLSearchParams({ email: "ada@example.org", _csrf: csrf }).toString(),
  });
  t.ok(sent.status < 400, `sign-in asked (${sent.status})`);
  const mail = await parsedMailTo("ada@example.org", before);
  t.equal(mail.subject, "Your Laurel sign-in link");
  const link = /href="([^"]+\/sign_in\/link\?token=[\w-]+)"/.exec(mail.html ?? "")?.[1];
  t.ok(link, "a button to the sign-in link");
  t.match(mail.html, ">Sign in</a>");
  t.match(mail.text, link ?? "(none)");
  t.match(mail.text, "The link works once, for 15 minutes.");
});
