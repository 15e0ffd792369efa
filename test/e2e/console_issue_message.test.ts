import PostalMime from "postal-mime";
import t from "tap";
import { createTemplate, eventually, organization } from "../support/badges.ts";
import { signedInMember } from "../support/console.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * The console's issue form takes the badge's own message for its mail (per issue, as the API's
 * `notification_message`): it replaces the template's in the mail, quoted and escaped; a form
 * without one keeps the template's.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

t.test("a message typed on the issue form is the badge mail's; none: the template's", async (t) => {
  const { laurel, smtp } = mailed;
  const org = await organization(laurel, "Forge Academy");
  const tpl = await createTemplate(laurel, org, { name: "Welding", notification_message: "From the template" });
  const owner = await signedInMember(laurel, smtp, org.id, "owner@forge.example", "owner");
  const page = await owner.get(`/console/${org.id}/issue`);
  t.match(page.text, 'name="notification_message"', "the form offers the message");
  const issue = async (email: string, message: string) => {
    await owner.get(`/console/${org.id}/issue`);
    const before = smtp.mails.length;
    const sent = await owner.post(`/console/${org.id}/issue`, {
      badge_template_id: tpl.id,
      issued_to_first_name: "Ada",
      issued_to_last_name: "Lovelace",
      recipient_email: email,
      issued_at: "2026-12-01",
      notification_message: message,
    });
    t.match(sent.location ?? "", /\/badges\/[0-9a-f-]+\?done=issued$/, `${email}: issued`);
    const mail = await eventually(async () =>
      smtp.mails.slice(before).find((m) => m.to.some((r) => r.includes(email))),
    );
    return PostalMime.parse(mail.data);
  };
  const own = await issue("ada@example.org", "Well done <b>Ada</b>!\nSee you Friday.");
  t.match(own.html ?? "", "Well done &lt;b>Ada&lt;/b>!", "this badge's words, escaped");
  t.notMatch(own.html ?? "", "From the template");
  t.match(own.text ?? "", "Well done <b>Ada</b>!\nSee you Friday.", "as written in the text part");
  const plain = await issue("grace@example.org", "");
  t.match(plain.html ?? "", "From the template", "without one, the template's");
});
